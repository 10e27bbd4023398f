"""Recommendations for someone who wants to learn, not to run a workload: a student with no money for GPUs.

"I'm a student, can't afford a GPU, want to learn distributed training" has no model to size and nothing to buy,
so neither the tier tools nor a rent-or-buy break-even answer it. The understander marks it with the
`learner_without_budget` evidence rule (service/understanding/data/registry.yaml); the answer is the knowledge
base's own advice on entry-level cards rented by the hour and the platforms that rent them, cited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from service.assistant import cues
from service.assistant.handlers import archetypes
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.knowledge import faq

EVIDENCE = "learner_without_budget"
# Searched together with the question, so the knowledge answer comes from the entry tier and the per-hour GPU clouds
# rather than from whatever the question's words ("distributed training") match. Not shown to the user.
SEARCH_WITH = {
    "en": "the entry validation tier suits students: one 16-24 GB GPU (NVIDIA T4, A10 or L4) to check data, code and evaluation before "
    "spending real money; rent it by the hour from GPU-specialist clouds and per-hour platforms (RunPod, Vast.ai, Lambda)",
    "zh": "入门验证型适合学生：单卡 16–24 GB（T4、A10、L4），在真正花钱之前确认数据、代码和评测流程；按小时租用 GPU 专业云和按小时计费平台（AutoDL、RunPod、Vast.ai）",
}


def for_learners(handler: Callable[[Context], Draft]) -> Callable[[Context], Draft]:
    """`handler`, except for a learner with no budget and no workload named: the knowledge answer about renting entry GPUs."""

    def answer(ctx: Context) -> Draft:
        s = ctx.slots
        if EVIDENCE not in ctx.understanding.evidence or s.model or s.params_b or _choosing_own_card(ctx.text):
            return handler(ctx)
        context = " ".join(part for part in (ctx.understanding.context, SEARCH_WITH["zh" if ctx.lang == "zh" else "en"]) if part)
        return faq(replace(ctx, understanding=ctx.understanding.model_copy(update={"context": context})))

    answer.__name__ = getattr(handler, "__name__", "recommend")
    return answer


def _choosing_own_card(text: str) -> bool:
    """"自己玩 Kaggle，买哪张卡": a hobbyist picking a card to own gets the card (handlers/archetypes.py), not renting advice."""
    return archetypes.archetype_of(text) == "personal" and (cues.matches("market_cues.yaml", "buy", text)
                                                            or cues.matches("market_cues.yaml", "choose_card", text))
