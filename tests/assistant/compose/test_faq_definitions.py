"""A "what is X" question is answered by the sentence that says what X is, and sibling documents' templated lines
(same words, other numbers) are one point, not several.

Unit tests of service/assistant/compose/faq_answer.py on hand-made hits (words alone, embed=None), then the same
behaviour through the whole assistant on the shipped knowledge.
"""

from __future__ import annotations

import re

import pytest

from service.assistant.compose.faq_answer import compose_faq
from service.assistant.compose.faq_kinds import defines as _defines
from service.assistant.compose.faq_kinds import same_template as _same_template
from tests.assistant.asking import ask, lead
from tests.assistant.compose.faq_hits import Hit, quoted

FORMULA = "KV cache bytes = 2 × layers × kv_heads × head_dim × bytes per value × tokens."
DEFINITION = "The KV cache stores the keys and values of every earlier token so decoding does not recompute attention."
KV_SECTION = f"{FORMULA} {DEFINITION} It grows with the context length and the batch size."


def test_what_is_x_is_led_by_the_defining_sentence_not_the_formula() -> None:
    hits = [Hit(KV_SECTION, "KV cache size", "serving")]
    result = compose_faq("what is the KV cache", "en", hits, None)
    assert result.lead.startswith(DEFINITION[:30]), result.lead
    assert "=" not in result.lead, result.lead


def test_a_sizing_question_on_the_same_section_is_not_led_by_the_definition() -> None:
    # The control: without "what is", the formula (the most relevant line for "how big") may lead; the definition rule
    # is what moves it, so the test above fails if the rule is gone.
    hits = [Hit(KV_SECTION, "KV cache size", "serving")]
    result = compose_faq("how many bytes does the KV cache take per token", "en", hits, None)
    assert not result.lead.startswith(DEFINITION[:30]), result.lead


def test_a_chinese_definition_question_is_led_by_the_chinese_definition() -> None:
    text = (
        "每 token KV 字节数 = 2 × 层数 × KV 头数 × 头维度 × 每元素字节数。"
        "KV cache 就是生成时的注意力缓存：每一层为之前的每个 token 保存 key 和 value，注意力不必重算。"
        "上下文越长、并发越多，KV cache 占的显存越多。"
    )
    result = compose_faq("KV cache 是什么？", "zh", [Hit(text, "KV cache 大小", "serving")], None)
    assert result.lead.startswith("KV cache 就是"), result.lead
    assert "注意力" in result.lead


def test_a_definition_in_a_second_section_leads_when_nearly_as_relevant() -> None:
    hits = [
        Hit("Pipeline parallelism bubble fraction = (stages − 1) × microbatch time ÷ total step time.", "Bubbles", "pp"),
        Hit(
            "Pipeline parallelism (PP) puts consecutive groups of layers on different GPUs and streams microbatches through them.",
            "What pipeline parallelism is",
            "pp",
        ),
    ]
    result = compose_faq("what is pipeline parallelism", "en", hits, None)
    assert "puts consecutive groups of layers" in result.lead, result.lead


@pytest.mark.parametrize(
    ("question", "defines"),
    [
        ("what is NVSwitch", True),
        ("explain FSDP in plain words", True),
        ("NVSwitch 是干嘛的", True),
        ("DDP 和 FSDP 有什么区别", True),
        ("what is the best GPU for inference", False),  # a choice, not a definition
        ("how do I fix an NCCL timeout", False),
        ("our MFU is 30%, is that low?", False),
    ],
)
def test_which_questions_ask_for_a_definition(question: str, defines: bool) -> None:
    assert _defines(question) is defines


def test_templated_lines_with_other_numbers_are_the_same_template() -> None:
    h100 = "Interconnect: the H100 SXM has NVLink 4 at 900 GB/s per GPU, bidirectional, through NVSwitch."
    a100 = "Interconnect: the A100 SXM has NVLink 3 at 600 GB/s per GPU, bidirectional, through NVSwitch."
    assert _same_template(h100, a100)
    assert not _same_template(h100, "NVSwitch is a switch chip that every GPU's NVLinks plug into.")


def test_sibling_cards_templated_lines_are_quoted_once() -> None:
    cards = [
        ("H100 SXM", "NVLink 4", 900, "PCIe Gen5"),
        ("A100 SXM", "NVLink 3", 600, "PCIe Gen4"),
        ("H200 SXM", "NVLink 4", 900, "PCIe Gen5"),
        ("B200 SXM", "NVLink 5", 1800, "PCIe Gen6"),
    ]
    hits = [
        Hit(
            f"The {name} connects to the other GPUs over {link} at {bw} GB/s per GPU through NVSwitch. The host link of the {name} is {pcie}.",
            "Interconnect and power",
            f"gpu-{name.split()[0].lower()}",
        )
        for name, link, bw, pcie in cards
    ]
    result = compose_faq("how do GPUs connect to each other over NVLink and NVSwitch", "en", hits, None)
    text = quoted(result)
    templated = [line for line in text.splitlines() if "connects to the other GPUs" in line]
    assert len(templated) == 1, text


# -- end to end: the shipped knowledge through the assistant --------------------------------------------------------


def _lead_defines_nvswitch(text: str) -> bool:
    """The lead names NVSwitch and says what it is: a switch (交换) — not just a chip that appears on a board."""
    return "NVSwitch" in text and bool(re.search(r"\bswitch\b|交换", text, re.I))


@pytest.mark.parametrize("question", ["what exactly is NVSwitch and why does it matter", "NVSwitch 是干嘛的", "NVSwitch 是什么"])
def test_nvswitch_definition_questions_lead_with_what_it_is(advisor, question: str) -> None:
    answer = ask(advisor, question)
    assert answer.intent == "faq" and answer.clarification is None
    assert _lead_defines_nvswitch(lead(answer)), lead(answer)


def test_a_bare_what_is_nvswitch_leads_with_the_switch_sentence(advisor) -> None:
    answer = ask(advisor, "what is NVSwitch")
    assert _lead_defines_nvswitch(lead(answer)), lead(answer)


def _replica_and_shard(advisor, question: str) -> None:
    answer = ask(advisor, question)
    text = answer.answer
    assert answer.intent == "faq" and answer.clarification is None
    assert re.search(r"full (?:replica|copy)|完整的?模型副本|完整副本|存一份完整", text, re.I), text
    assert re.search(r"\bshard|分片|切分", text, re.I), text


@pytest.mark.parametrize("question", ["DDP vs FSDP?", "what's the difference between DDP and FSDP"])
def test_ddp_versus_fsdp_says_replica_against_shard(advisor, question: str) -> None:
    _replica_and_shard(advisor, question)


@pytest.mark.parametrize("question", ["DDP 和 FSDP 有什么区别", "FSDP 和 DDP 通俗讲区别是啥"])
def test_chinese_ddp_versus_fsdp_says_replica_against_shard(advisor, question: str) -> None:
    _replica_and_shard(advisor, question)


def _kv_lead(advisor, question: str) -> None:
    answer = ask(advisor, question)
    first = lead(answer)
    assert answer.intent == "faq" and answer.clarification is None
    assert "KV cache" in first and re.search(r"注意力|attention", first, re.I), first
    assert not re.match(r"^[^。.]{0,80}=", first), first  # not the sizing formula


@pytest.mark.parametrize("question", ["KV cache 是什么？", "通俗解释一下 KV cache 是啥", "what's a KV cache?"])
def test_kv_cache_definition_mentions_attention(advisor, question: str) -> None:
    _kv_lead(advisor, question)


def test_kv_cache_definition_in_serving_words_mentions_attention(advisor) -> None:
    _kv_lead(advisor, "what is the KV cache in LLM serving")


def test_a_side_is_explained_by_a_sentence_about_it_not_by_a_mention() -> None:
    from service.assistant.compose.faq_kinds import explains_uncovered_side, sides_of

    sides = sides_of("DDP 和 FSDP 有什么区别")
    replica = "DDP（PyTorch DistributedDataParallel）在每张 GPU 上保留一份完整的模型副本。"
    mention = "纯 DDP 大约到 4–5B 参数就放不下了。"
    assert explains_uncovered_side(replica, [mention, "FSDP 则把模型状态切分到各张卡上。"], sides)
    assert not explains_uncovered_side(mention, [], sides)
    assert not explains_uncovered_side("**DDP** keeps a full replica.", ["DDP (data parallel) copies the model."], sides)
