"""Recommendations that consult when no model is named (handlers/archetypes.py, workload_archetypes.yaml).

Each archetype is asked in both languages through the real pipeline; every answer is checked for ungrounded numbers.
"""

from __future__ import annotations

import pytest

from service.assistant import consult
from service.assistant.handlers.archetypes import archetype_of
from service.sizing.cost import CAPEX_PER_GPU_USD, DEFAULT_FX_CNY_PER_USD
from tests.assistant.asking import ask, lead


def notices(answer) -> list[str]:
    return [b.text for b in answer.blocks if b.type == "notice"]


def tool(answer, name: str):
    return [c for c in answer.tool_calls if c.tool == name]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Weekend tinkerer doing Kaggle at home, which card?", "personal"),
        ("自己在家搞着玩，偶尔参加天池竞赛", "personal"),
        ("a support chatbot for our shop", "llm_product"),
        ("给游戏里的 NPC 加上对话", "llm_product"),
        ("radiology segmentation training cluster", "vision"),
        ("点云检测模型训练", "vision"),
        ("procurement insists on domestic hardware only", "domestic"),
        ("必须用国产卡", "domestic"),
        ("train our own base LLM from scratch", "pretrain_small"),
        ("从零训练一个语言模型", "pretrain_small"),
        ("How many GPUs do I need?", None),
        ("Fine-tune Llama 3 8B with LoRA", None),
    ],
)
def test_archetypes_are_told_apart(text, kind) -> None:
    assert archetype_of(text) == kind


def test_a_hobbyist_training_vision_models_at_home_is_personal_not_a_production_team() -> None:
    assert archetype_of("hobbyist training YOLO detectors at home, which GPU?") == "personal"


def test_user_counts_in_chinese_words_and_daily_actives() -> None:
    assert consult.users_in("日活大概三万") == 30_000
    assert consult.users_in("around 40k daily players") == 40_000
    assert consult.peak_share("40k daily players") == consult.DAILY_ACTIVE_SHARE
    assert consult.peak_share("400 concurrent users") == 1.0
    assert consult.peak_share("400 employees") == consult.PEAK_ACTIVE_SHARE


@pytest.mark.parametrize(
    "question",
    [
        "I enter Kaggle contests on my own, some image models and a bit of small LLM tuning. What GPU should I get?",
        "个人打 Kaggle 比赛和做点小模型微调，推荐买什么显卡？",
    ],
)
def test_a_personal_competitor_gets_one_24_gb_consumer_card_with_the_assumption_stated(advisor, question) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None
    assert "RTX 4090" in lead(answer) and "24 GB" in lead(answer)
    assert any("8B" in t for t in notices(answer))  # the assumed workload is said
    fits = [c.output["fit"] for c in tool(answer, "training-memory")]
    assert fits and all(f != "does_not_fit" for f in fits)  # LoRA and QLoRA of the assumed 8B fit the card named


@pytest.mark.parametrize(
    ("question", "cap_usd"),
    [
        ("Kaggle regular with a $2,000 cap. What should I use?", 2_000),
        ("打天池比赛，预算 1 万元，推荐什么配置？", 10_000 / DEFAULT_FX_CNY_PER_USD),
    ],
)
def test_a_personal_competitor_with_a_cap_gets_a_consumer_card_within_it(advisor, question, cap_usd) -> None:
    answer = ask(advisor, question)
    options = tool(answer, "purchase-options")[0].output["options"]
    assert options[0]["gpu"] in ("rtx-4090", "rtx-3090")  # consumer cards are offered to a person buying for themselves
    assert all(o["total_usd"] <= cap_usd * 1.1 for o in options)


@pytest.mark.parametrize(
    ("question", "users", "concurrency"),
    [
        ("We are adding AI dialogue to the NPCs in our game and expect about 60k daily players. What hardware should we plan for serving?", 60_000, 600),
        ("我们想在产品里加一个智能客服，日活大概三万，先做个原型，需要什么GPU？", 30_000, 300),
    ],
)
def test_an_llm_feature_in_a_product_assumes_an_8b_model_and_derives_concurrency(advisor, question, users, concurrency) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None
    assert any("Llama 3.1 8B" in t for t in notices(answer))
    derived = tool(answer, "concurrency-from-users")[0]
    assert derived.input["users"] == users and derived.output["concurrency"] == concurrency
    assert "vLLM" in answer.answer and "AWQ" in answer.answer


@pytest.mark.parametrize(
    "question",
    [
        "We need a production setup to train segmentation and detection models on our factory camera footage. What do you recommend?",
        "我们公司做自动驾驶，要搭一套 BEV 感知模型训练的生产环境，怎么配？",
    ],
)
def test_vision_training_in_production_gets_an_8_gpu_node_and_storage_without_a_question(advisor, question) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None
    first = lead(answer)
    assert "8" in first and "A100 80GB" in first and "H100" in first
    assert "NVMe" in answer.answer and "Lustre" in answer.answer
    assert answer.citations  # the storage advice is quoted from the knowledge base


@pytest.mark.parametrize(
    "question",
    [
        "Our client requires domestic Chinese accelerators for the training cluster. Which hardware?",
        "公司要求信创国产化，准备训练大模型，推荐什么卡？",
    ],
)
def test_a_domestic_requirement_names_ascend_910b_and_its_software(advisor, question) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None
    assert "Ascend 910B" in lead(answer) and "CANN" in lead(answer)
    assert "H100" in answer.answer  # the NVIDIA option, if the requirement allows it
    assert answer.citations


@pytest.mark.parametrize(
    "question",
    ["单位有信创要求，想微调 Qwen2.5-14B，需要什么配置？", "We must use domestic chips only. What do we need to fine-tune Qwen2.5-14B?"],
)
def test_a_domestic_requirement_with_a_model_is_sized_on_ascend(advisor, question) -> None:
    answer = ask(advisor, question)
    assert answer.recommendation is not None
    assert answer.recommendation["recommended"]["configuration"]["gpu"] == "ascend-910b"


@pytest.mark.parametrize(
    ("question", "budget_usd", "params"),
    [
        ("With $3M we want to pre-train a small LLM from scratch. What cluster should we get?", 3e6, 7e9),
        ("我们有八百万人民币，想从零预训练一个 13B 的模型，能买多少卡？", 8e6 / DEFAULT_FX_CNY_PER_USD, 13e9),
    ],
)
def test_pre_training_with_a_budget_counts_the_gpus_it_buys_and_the_compute_optimal_time(advisor, question, budget_usd, params) -> None:
    answer = ask(advisor, question)
    assert answer.clarification is None
    bought = tool(answer, "gpus-in-budget")[0].output
    assert bought["gpus"] % 8 == 0 and bought["gpus"] * CAPEX_PER_GPU_USD["h100-sxm"] <= budget_usd < (bought["gpus"] + 8) * CAPEX_PER_GPU_USD["h100-sxm"]
    assert tool(answer, "compute-optimal-data")[0].output["tokens"] == pytest.approx(20 * params, rel=0.01)
    assert tool(answer, "training-time")[0].input["gpus"] == bought["gpus"]
    assert tool(answer, "gpu-hours-in-budget")  # the renting alternative, in GPU-hours


@pytest.mark.parametrize(
    ("first", "then", "method"),
    [
        ("We can spend $25k on hardware to fine-tune 13B models. What should we buy?", "And if we spend that same budget in the cloud instead?", "LoRA"),
        ("课题组预算40万，想买机器微调70B，怎么配？", "同样的预算如果上云租用呢？", "LoRA"),
    ],
)
def test_a_fine_tuning_budget_names_the_method_and_converts_to_gpu_hours_in_the_cloud(advisor, first, then, method) -> None:
    bought = ask(advisor, first)
    assert method in lead(bought)
    assert any(b.type == "paragraph" and ("Full fine-tuning" in b.text or "全参微调" in b.text) for b in bought.blocks)
    rented = ask(advisor, first, then)
    converted = tool(rented, "gpu-hours-in-budget")
    assert converted, [c.tool for c in rented.tool_calls]
    budget = converted[0].input["budget"]
    assert converted[0].output["gpu_hours"] * converted[0].input["price_per_gpu_hour"] == pytest.approx(budget)
    assert any(b.type == "table" for b in rented.blocks)


@pytest.mark.parametrize(
    "question",
    [
        "Our startup will fine-tune an 8B model on support tickets and then serve it to customers. What do we need?",
        "我们初创团队要微调一个 8B 模型再部署给客户使用，需要什么配置？",
    ],
)
def test_fine_tune_then_serve_adds_the_serving_plan(advisor, question) -> None:
    answer = ask(advisor, question)
    assert answer.recommendation is not None
    assert "inference" in [c.tool for c in answer.tool_calls]
    assert "vLLM" in answer.answer


@pytest.mark.parametrize("question", ["How many GPUs do I need?", "我需要多少张卡？"])
def test_a_question_with_nothing_to_go_on_still_gets_the_clarifying_question(advisor, question) -> None:
    assert ask(advisor, question).clarification is not None


@pytest.mark.parametrize(
    "question",
    ["研究生，打算自己配一台机器做 Qwen2.5-7B 的 LoRA，买哪张卡？", "Hobbyist: which GPU should I buy for LoRA on Llama 3.1 8B at home?"],
)
def test_a_person_buying_for_a_small_named_model_gets_the_24_gb_card_checked_for_that_model(advisor, question) -> None:
    answer = ask(advisor, question)
    assert "RTX 4090" in lead(answer)
    sized = tool(answer, "training-memory")
    assert sized and all(c.input.get("model") in ("qwen2.5-7b", "llama-3.1-8b") for c in sized)


@pytest.mark.parametrize(
    ("question", "currency"),
    [
        ("Research institute, roughly $1.5M, we want to pretrain 7-13B models ourselves. What cluster?", "USD"),
        ("研究院预算六百万元，准备自己预训练 13B 模型，集群怎么配？", "CNY"),
    ],
)
def test_pre_training_a_named_size_with_a_budget_is_sized_by_what_the_budget_buys(advisor, question, currency) -> None:
    answer = ask(advisor, question)
    bought = tool(answer, "gpus-in-budget")
    assert bought and bought[0].input["currency"] == currency
    assert "H100" in lead(answer)


def test_spending_a_budget_in_house_is_a_purchase_that_names_the_method(advisor) -> None:
    answer = ask(advisor, "about $45k to spend, we want to fine-tune 13B models in-house")
    assert tool(answer, "purchase-options")
    assert "LoRA" in lead(answer)
