"""The routed understander: neighbours plus structured evidence, a trace of why, and the out-of-scope and close-call rules."""

from __future__ import annotations

import numpy as np
import pytest

from service.catalog import default_catalog
from service.understanding import RoutedUnderstander, load_registry



@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("新集群交付了，开训前要验哪些东西？", "preflight"),
        ("开训前都要检查点啥？", "preflight"),
        ("how fast is the HBM on an H100?", "spec"),
        ("H100 SXM 显存带宽多少", "spec"),
        ("几千万张小图片做训练集，用什么存储？", "faq"),
        ("405B稠密模型在H100上训15T token要多少卡时", "sizing"),
        ("Llama 2 70B 一个token占多少KV cache", "sizing"),
        ("what is the population of lagos", "out_of_scope"),
        ("英伟达的股票现在还能买吗", "out_of_scope"),
        ("谢谢，很有帮助", "smalltalk"),
    ],
)
def test_reads_questions_it_has_no_exemplar_for(understander, text, intent):
    und = understander.understand(text)
    assert und.intent == intent, und.trace


def test_the_trace_names_winner_runner_up_scores_neighbours_and_rules(understander):
    und = understander.understand("新集群交付了，开训前要验哪些东西？")
    trace = und.trace
    assert trace.intent == "preflight" and trace.runner_up and trace.runner_up != "preflight"
    assert trace.scores["preflight"] == max(trace.scores.values())
    assert trace.neighbours and trace.neighbours[0].intent == "preflight"
    assert all(-1.0 <= n.similarity <= 1.0 for n in trace.neighbours)
    assert any("preflight" in rule for rule in trace.rules)


def test_sizing_asks_come_from_cues_or_neighbours(understander):
    assert understander.understand("Llama 2 70B 一个token占多少KV cache").ask == "inference"
    assert understander.understand("405B稠密模型在H100上训15T token要多少卡时").ask == "time"


def test_a_pasted_topology_is_diagnostics_whatever_the_neighbours_say(understander):
    und = understander.understand("看看这个\n        GPU0    GPU1\nGPU0     X      NV18\nGPU1    NV18     X\n")
    assert (und.intent, und.pasted) == ("diagnostics", "topo")
    assert any("pasted topo" in rule for rule in und.trace.rules)


def test_out_of_scope_is_distance_not_substring(understander):
    # "population" contains "io", "portion" contains "io"; neither makes it about storage I/O.
    und = understander.understand("what portion of the population of brazil lives in cities")
    assert und.intent == "out_of_scope"
    assert any("far from every in-domain exemplar" in rule or "cue cascade" not in rule for rule in und.trace.rules)


def test_a_catalog_name_keeps_an_odd_question_in_scope(understander):
    assert understander.understand("H100 呢").intent != "out_of_scope"


def test_spec_has_its_own_handler(understander):
    assert understander.handler("spec") == "spec"
    assert understander.handler("sizing") == "sizing"


class _Axes:
    """A two-dimensional encoder: exemplars and questions are placed by hand, so scores are exact."""

    identity = "test-axes"

    def __init__(self, places: dict[str, tuple[float, float]]) -> None:
        self.places = places

    def encode(self, texts: list[str]) -> np.ndarray:
        rows = np.array([self.places.get(t, (0.0, 0.0)) for t in texts], dtype=np.float32)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.maximum(norms, 1e-12)


def test_a_close_call_between_intents_needing_different_inputs_asks_which(tmp_path):
    registry = load_registry()
    # Six diagnostics and six preflight exemplars equally near the question, the rest far: a tie of neighbours.
    diagnostics = [e.text for e in registry.exemplars if e.intent == "diagnostics"][:6]
    preflight = [e.text for e in registry.exemplars if e.intent == "preflight"][:6]
    places = {e.text: (-1.0, 0.0) for e in registry.exemplars}
    places.update({text: (1.0, 0.0) for text in diagnostics + preflight})
    question = "zzz qqq"  # no cue word, no catalog name: only the neighbours speak
    places[question] = (1.0, 0.0)
    understander = RoutedUnderstander(default_catalog(), encoder=_Axes(places), registry=registry, cache_dir=tmp_path)
    und = understander.understand(question, language="zh")
    assert {und.trace.intent, und.trace.runner_up} == {"diagnostics", "preflight"}
    assert und.clarification is not None
    assert len(und.clarification.suggestions) == 2
    assert und.clarification.question.startswith("您是想要")
    assert any("close call" in rule for rule in und.trace.rules)


def test_a_clear_reading_asks_nothing(understander):
    assert understander.understand("新集群交付了，开训前要验哪些东西？").clarification is None


def test_a_knowledge_question_is_answered_not_questioned(understander):
    # Close to both spot-instance FAQ and claim exemplars: the knowledge answer needs no more input, so no question back.
    und = understander.understand("被回收之前云厂商会提前打招呼吗？")
    assert und.clarification is None


def test_a_follow_up_keeps_the_previous_workload(understander):
    from service.assistant.followup import state

    first = understander.understand("我们想对Qwen-14B做全参数微调，24小时内完成，需要什么配置？")
    second = understander.understand("如果换成 H100 呢？", state=state(first, "我们想对Qwen-14B做全参数微调，24小时内完成，需要什么配置？"))
    assert second.intent == "recommend"
    assert second.slots.model == first.slots.model and second.slots.gpu == "h100-sxm"
    assert any("follow-up" in rule for rule in second.trace.rules)
