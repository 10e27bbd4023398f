"""Claim checks: find what the claim asserts, check it with the matching tool or catalog fact,
and say how far the claim is from the estimate, quoting the claim's own numbers.

The kinds and checks live in service/assistant/claim_checks.py; a claim that fits none of
them gets the knowledge base's answer and a list of what can be checked, never another claim's verdict.
"""

from __future__ import annotations

from dataclasses import replace

from service.assistant import claim_checks
from service.assistant.compose import extract, sizing
from service.assistant.compose.work import assumptions, warnings
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.fit_questions import fit_question
from service.assistant.handlers.knowledge import faq
from service.assistant.messages import say
from service.contract import BulletsBlock, Clarification, LeadBlock, NoticeBlock


def claim_check(ctx: Context) -> Draft:
    kind = claim_checks.classify(ctx.text, ctx.slots, ctx.catalog)
    if kind is None and ctx.understanding.context:
        # "and with two of them?" after a claim: the claim's own numbers are in the question it follows; the
        # merged slots carry the change. Same tool-call list, so the calls are recorded on this turn.
        joined = replace(ctx, text=f"{ctx.understanding.context} {ctx.text}")
        kind = claim_checks.classify(joined.text, joined.slots, ctx.catalog)
        if kind is not None:
            ctx = joined
    if kind is None:
        # "can a 4090 fine-tune Llama 3 8B?" reads like a claim but asks whether it fits: answer that.
        return fit_question(ctx) or _from_knowledge(ctx)
    finding = claim_checks.check(kind, ctx)
    return _draft(ctx, finding) if finding is not None else _from_knowledge(ctx)


def _draft(ctx: Context, finding: claim_checks.Finding) -> Draft:
    if finding.verdict == "unchecked":  # the check needs one more figure (training tokens): ask for it
        return Draft(blocks=[LeadBlock(text=finding.lead), BulletsBlock(items=finding.points)],
                     clarification=Clarification(question=finding.lead, suggestions=[]), show_sources=False)
    hits = ctx.retrieve(finding.query, k=2, topics=finding.topics)
    passages = extract.select(finding.query or ctx.text, [h.text for h in hits], max_points=2, headings=[h.heading for h in hits])
    quoted, cited = extract.cite(passages, hits, title=say("claim.from_kb", ctx.lang))
    blocks = [LeadBlock(text=finding.lead), *assumptions(finding.notes)]
    if finding.points:
        blocks.append(BulletsBlock(items=finding.points))
    if finding.table is not None:
        blocks.append(finding.table)
    if finding.results:
        first = finding.results[0]
        shown = sizing.blocks(first, ctx.lang, ctx.catalog, lead=False)
        if finding.kind in ("decode", "weights", "offload"):
            shown = shown[1:]  # the tool's own fit headline would read as a second verdict; its table stays
        blocks += [*shown, *([] if finding.kind == "offload" else warnings(first.work, ctx.lang))]  # offload: "does not fit" is the premise
    blocks += quoted
    return Draft(blocks=blocks, hits=cited, works=[(r.tool, r.work) for r in finding.results[:2]],
                 follow_ups=[say("claim.follow_config", ctx.lang), say("claim.follow_other", ctx.lang)])


def _from_knowledge(ctx: Context) -> Draft:
    """A claim no tool can check: what the knowledge base says, and what could be checked with numbers."""
    draft = faq(ctx)
    listed = [say(f"claim.kinds.{kind}", ctx.lang) for kind in claim_checks.KINDS]
    listed += [say(f"claims_expert.kinds.{kind}", ctx.lang) for kind in claim_checks.EXPERT_KINDS]
    kinds = ("；" if ctx.lang == "zh" else "; ").join(listed)
    at = 1 if draft.blocks and draft.blocks[0].type == "lead" else 0
    draft.blocks[at:at] = [NoticeBlock(kind="info", text=say("claim.unchecked", ctx.lang, kinds=kinds))]
    return draft

