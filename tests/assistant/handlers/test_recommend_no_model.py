"""Recommendations that name cards when the asker names no model: a serving purchase with a budget, a shared cluster,
a data-heavy small cluster with a named backbone, and an entry card asked for as a level (handlers/archetypes.py,
handlers/purchase.py serving_purchase). Every answer goes through the real pipeline and is checked for grounding."""

from __future__ import annotations

import pytest

from service.assistant import consult
from service.assistant.handlers.archetypes import archetype_of
from service.assistant.slot_amounts import budget as _budget
from service.sizing.cost import DEFAULT_FX_CNY_PER_USD
from tests.assistant.asking import ask, lead


def tool(answer, name: str):
    return [c for c in answer.tool_calls if c.tool == name]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Research computing admin, we will build a shared GPU cluster for many labs", "shared_cluster"),
        ("学校要建一个共享算力平台，给二十多个课题组用", "shared_cluster"),
        ("embodied AI team training a VLA policy on robot video", "vision"),
        ("I'm a grad student choosing a card for LLM fine-tuning", "personal"),
    ],
)
def test_new_askers_are_recognised(text, kind) -> None:
    assert archetype_of(text) == kind


def test_a_card_asked_for_as_a_level_is_a_card_choice() -> None:
    assert consult.cue("card_choice", "what's a good entry-level card for this?")
    assert consult.cue("card_choice", "入门显卡推荐一下")
    assert not consult.cue("card_choice", "my card runs out of memory")


def test_a_raised_budget_in_chinese_is_read() -> None:
    assert _budget("那预算提高到80万呢") == {"budget": 800_000.0, "currency": "CNY"}


@pytest.mark.parametrize(
    ("question", "budget_usd"),
    [
        ("We run a small internal LLM inference API and have $8,000 to spend on GPUs. Which cards?", 8_000),
        ("打算自建一个大模型推理服务，预算6万元，该买什么显卡？", 60_000 / DEFAULT_FX_CNY_PER_USD),
    ],
)
def test_a_serving_purchase_without_a_model_names_cards_within_the_budget(advisor, question, budget_usd) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None  # no "which model?" first
    options = tool(answer, "purchase-options")[0].output["options"]
    assert options and all(o["total_usd"] <= budget_usd * 1.1 for o in options)
    served = tool(answer, "inference")
    assert served and all(c.output["fit"] != "does_not_fit" for c in served)  # each option serves the model it lists
    assert options[0]["gpu"] in lead(answer).lower().replace("nvidia geforce ", "").replace(" ", "-") or "×" in lead(answer)
    assert "vLLM" in answer.answer


def test_raising_the_serving_budget_in_a_follow_up_buys_data_centre_cards(advisor) -> None:
    answer = ask(advisor, "打算自建一个大模型推理服务，预算6万元，该买什么显卡？", "那预算提高到80万呢")
    assert answer.clarification is None
    options = tool(answer, "purchase-options")[0].output["options"]
    assert all("rtx" not in o["gpu"] for o in options)  # a large serving budget buys data-centre cards
    assert all(o["total_usd"] <= 800_000 / DEFAULT_FX_CNY_PER_USD * 1.1 for o in options)


def test_renting_words_keep_the_serving_budget_out_of_a_purchase(advisor) -> None:
    answer = ask(advisor, "We want to rent cloud GPUs for an inference service, $8,000 budget, which instances?")
    assert not tool(answer, "purchase-options")


@pytest.mark.parametrize(
    "question",
    [
        "I run research computing at a university: $3M to build a shared GPU cluster for 50 research groups. What should we buy?",
        "学校要建一个共享算力平台，给二十多个课题组用，经费1500万元，怎么规划？",
    ],
)
def test_a_shared_cluster_gets_gpus_from_the_budget_storage_and_a_scheduler(advisor, question) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None
    bought = tool(answer, "gpus-in-budget")[0].output
    assert bought["gpus"] >= 8 and bought["gpus"] % 8 == 0
    assert "H100" in lead(answer)
    assert "Slurm" in answer.answer and "Lustre" in answer.answer and "InfiniBand" in answer.answer


def test_a_data_heavy_team_building_a_small_cluster_for_a_named_backbone_gets_a_node(advisor) -> None:
    answer = ask(
        advisor, "Our robotics team trains VLA policies with an 8B backbone on a huge video corpus. We want to build a small cluster, what do you suggest?"
    )
    assert answer.clarification is None
    assert "A100 80GB" in lead(answer) and "H100" in lead(answer)
    memory = tool(answer, "training-memory")
    assert memory and memory[0].output["fit"] != "does_not_fit"  # the backbone fits the node that is recommended
    assert "NVMe" in answer.answer


def test_an_entry_level_card_for_home_fine_tuning_is_a_24_gb_card_with_lora(advisor) -> None:
    answer = ask(advisor, "I want to fine-tune 7B models at home, which GPU should I get as an entry-level card?")
    assert answer.clarification is None
    assert "24 GB" in lead(answer)
    assert "LoRA" in answer.answer and "QLoRA" in answer.answer


@pytest.mark.parametrize(
    "question",
    [
        "Our quant research team trains small transformers, around 500M params, on market tick data. We care about iteration speed. What hardware?",
        "我们是量化团队，用行情数据训练几亿参数的时序模型，迭代速度最重要，硬件怎么配？",
    ],
)
def test_a_team_iterating_on_small_models_gets_one_node_with_local_data(advisor, question) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None
    assert "H100" in lead(answer) and "L40S" in lead(answer)
    fits = [c.output["fit"] for c in tool(answer, "training-memory")]
    assert fits and all(f != "does_not_fit" for f in fits)  # one model per GPU is what the plan relies on
    assert "NVMe" in answer.answer


def test_a_hobbyist_buying_for_local_llms_gets_one_user_and_4_bit_weights(advisor) -> None:
    answer = ask(advisor, "Hobbyist, I want to run local LLMs on my own desktop, $2,000 for the GPU. Which card?")
    assert answer.clarification is None
    served = tool(answer, "inference")
    assert served and all(c.input["concurrency"] == 1 for c in served)  # one person, not a service's concurrency
    assert "24 GB" in lead(answer)


def test_a_budget_below_any_data_centre_card_buys_a_desktop_card(advisor) -> None:
    answer = ask(advisor, "We can spend $1,800 on a GPU for fine-tuning experiments. What should we buy?")
    options = tool(answer, "purchase-options")[0].output["options"]
    assert options and all("rtx" in o["gpu"] for o in options)  # no data-centre card costs this little
    assert all(o["total_usd"] <= 1_800 * 1.1 for o in options)
