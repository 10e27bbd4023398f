"""What a follow-up changed: "换成 INT4 呢", "budget up to 800k?" re-run the tools, and the answer says which inputs
differ from the previous turn's, with the values before and after, so the reader need not compare two answers.

The previous values are recorded as a tool call ("conversation-inputs"), so the figures are grounded like any other.
"""

from __future__ import annotations

from typing import Any

from service.assistant.compose.fmt import duration, money, num
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.contract import NoticeBlock

# The inputs a follow-up changes, in the order they are reported.
CHANGEABLE = ("model", "params_b", "gpu", "gpus", "method", "weights", "precision", "tokens", "deadline_hours", "budget", "concurrency",
              "users", "context_len")
INTENTS = ("sizing", "recommend", "compare", "cloud_vs_onprem")


def changed_inputs(previous: dict[str, Any] | None, now: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """key -> (before, after) for the inputs set in both turns with different values."""
    before = previous or {}
    return {k: (before[k], now[k]) for k in CHANGEABLE if before.get(k) is not None and now.get(k) is not None and before[k] != now[k]}


def note_changes(ctx: Context, draft: Draft, previous: dict[str, Any] | None) -> None:
    """Put "changed from the previous answer: …" after the lead of a recomputed follow-up."""
    if draft.clarification is not None or ctx.understanding.intent not in INTENTS or not (draft.works or draft.recommendation):
        return
    changes = changed_inputs(previous, ctx.understanding.slots.stated())
    if not changes:
        return
    ctx.record("conversation-inputs", {k: v[0] for k, v in changes.items()}, {k: v[1] for k, v in changes.items()})
    currency = ctx.slots.currency or (previous or {}).get("currency") or ("CNY" if ctx.lang == "zh" else "USD")
    items = [say("changes.item", ctx.lang, name=say(f"changes.names.{k}", ctx.lang), after=_value(ctx, k, after, currency),
                 before=_value(ctx, k, before, currency)) for k, (before, after) in changes.items()]
    text = say("changes.lead", ctx.lang, items=("；" if ctx.lang == "zh" else "; ").join(items))
    at = 1 if draft.blocks and draft.blocks[0].type == "lead" else 0
    draft.blocks.insert(at, NoticeBlock(kind="info", text=text))


def _value(ctx: Context, key: str, value: Any, currency: str) -> str:
    if key == "gpu":
        gpu = ctx.catalog.gpus.get(value)
        return gpu.name if gpu else str(value)
    if key == "model":
        model = ctx.catalog.models.get(value)
        return model.name if model else str(value)
    if key == "params_b":
        return f"{num(value)}B"
    if key in ("weights", "precision"):
        return str(value).upper()
    if key == "method":
        return say(f"consult.method.{value}", ctx.lang)
    if key == "budget":
        return money(value, currency)
    if key == "deadline_hours":
        return duration(value, ctx.lang)
    if key == "tokens":
        return f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else num(value)
