"""Only passages about the question: the entity gate of knowledge answers (compose/relevance.py)."""

from __future__ import annotations

from types import SimpleNamespace

from service.assistant.compose.relevance import about_the_question, entities


def hit(title: str, text: str):
    return SimpleNamespace(title=title, heading="", text=text)


def test_entities_are_tools_flags_variables_and_shaped_identifiers() -> None:
    found = entities("vLLM with --max-model-len 32768 hangs unless NCCL_P2P_DISABLE=1 on my A100, why?")
    assert {"vllm", "--max-model-len".strip("-"), "nccl_p2p_disable", "a100"} <= found | {"max-model-len"}
    assert "why" not in found and "gpu" not in entities("why is my GPU slow")


def test_passages_that_share_nothing_with_the_question_are_left_out() -> None:
    hits = [hit("Spot instances", "Spot VMs are reclaimed with two minutes notice."),
            hit("Serving engines", "Ollama offloads as many layers as fit into VRAM and runs the rest on the CPU."),
            hit("Cloud cost", "Reserved instances cost less per hour.")]
    kept = about_the_question("Why does Ollama run my model partly on the CPU?", hits[1:] + hits[:1])
    assert [h.title for h in kept] == ["Serving engines"]


def test_when_nothing_names_the_question_the_best_passage_alone_answers() -> None:
    hits = [hit("A", "first passage"), hit("B", "second passage")]
    assert [h.title for h in about_the_question("How do I set OLLAMA_SCHED_SPREAD?", hits)] == ["A"]


def test_a_question_with_no_technical_word_is_not_gated() -> None:
    hits = [hit("A", "x"), hit("B", "y")]
    assert about_the_question("how do I make training faster", hits) == hits


def card(title: str, text: str):
    return SimpleNamespace(title=title, heading="", text=text, kind="card")


def written(title: str, text: str):
    return SimpleNamespace(title=title, heading="", text=text, kind="doc")


def test_spec_cards_answer_only_a_question_with_a_spec_word() -> None:
    from service.assistant.compose.relevance import only_cards, without_spec_cards

    hits = [card("H100 PCIe specifications", "FP8 dense 1513 TFLOPS."), written("Benchmarks", "Published runs use the SXM part.")]
    assert [h.title for h in without_spec_cards(hits, [])] == ["Benchmarks"]
    assert without_spec_cards(hits, ["tflops"]) == hits  # "what are its TFLOPS": the card is the answer
    assert without_spec_cards(hits[:1], []) == hits[:1]  # nothing written came back: the card stays rather than nothing
    assert only_cards(hits[:1]) and not only_cards(hits) and not only_cards([])
