"""A turn with no domain word of its own that refers back to a diagnostics (context-policy) conversation continues it;
an off-topic turn, chit-chat or a turn after a workload conversation does not."""

from __future__ import annotations

import pytest

from service.assistant import followup



def _second(understander, first: str, second: str):
    und = understander.understand(first)
    return und, understander.understand(second, state=followup.state(und, first))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("our step time doubled on one node this week and gpu util hovers around 45%", "we rebooted it and it is still the same, what does that suggest?"),
        ("训练到一半有张卡报 Xid 79", "换到另一台机器同样的配置就没问题了，这说明什么"),
    ],
)
def test_a_turn_referring_back_continues_the_diagnostics_conversation(understander, first, second):
    und, next_und = _second(understander, first, second)
    assert und.intent == "diagnostics", und.trace
    assert next_und.intent == "diagnostics", next_und.trace
    assert next_und.context and first in next_und.context  # the next answer is searched with the symptom it follows
    assert any("continues the diagnostics conversation" in r for r in next_und.trace.rules)


@pytest.mark.parametrize("second", ["what's the weather like in Berlin tomorrow", "明天北京天气怎么样", "who won the football match yesterday"])
def test_an_off_topic_turn_is_still_refused(understander, second):
    _, next_und = _second(understander, "our training loss turned nan at step 1200 on 16 gpus", second)
    assert next_und.intent == "out_of_scope", next_und.trace


def test_thanks_stays_smalltalk(understander):
    _, next_und = _second(understander, "our training loss turned nan at step 1200 on 16 gpus", "thanks, that helps")
    assert next_und.intent == "smalltalk", next_und.trace


def test_a_workload_conversation_is_not_continued_this_way(understander):
    # recommend has the workload follow-up policy: its follow-ups change inputs, handled by followup.merge
    und, next_und = _second(understander, "what hardware to fully fine-tune llama 3 8b on 100k samples", "we tried the same thing again")
    assert und.intent == "recommend", und.trace
    assert not any("continues the" in r for r in next_und.trace.rules), next_und.trace
