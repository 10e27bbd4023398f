"""Notes a serving plan carries (the weights' size at the chosen format, what grouped-query attention saves on the KV
cache), kept apart from consulting.py because the fit questions (fit_questions.py) add them too."""

from __future__ import annotations

from service.assistant.compose.fmt import num
from service.assistant.handlers.base import Context
from service.assistant.messages import say
from service.contract import ParagraphBlock

WEIGHT_BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}


def weights_size_note(ctx: Context, params: float) -> ParagraphBlock:
    """The first number anyone checks in a serving plan: how big the weights are at the chosen precision."""
    # "用 FP8 跑" names the serving precision, which is the weights' format when no other is named.
    fmt = ctx.slots.weights or (ctx.slots.precision if ctx.slots.precision in ("fp8", "fp16") else "bf16")
    size = params * WEIGHT_BYTES.get(fmt, 2.0)
    ctx.record("weights-size", {"params": params, "weights": fmt, "bytes_per_param": WEIGHT_BYTES.get(fmt, 2.0)},
               {"weights_gb": size / 1e9, "weights_gib": size / 2**30})
    return ParagraphBlock(text=say("consult.weights_size", ctx.lang, fmt=say(f"consult.method.{fmt}", ctx.lang), gb=num(size / 1e9),
                                   gib=num(size / 2**30)))


def gqa_notes(ctx: Context) -> list:
    model = ctx.catalog.models.get(ctx.slots.model or "")
    if model is None or model.kv_heads >= model.attention_heads:
        return []
    ctx.record("catalog-lookup", {"model": model.id}, {"kv_heads": model.kv_heads, "attention_heads": model.attention_heads,
                                                       "kv_reduction": model.attention_heads / model.kv_heads})
    return [ParagraphBlock(text=say("consult.gqa", ctx.lang, model=model.name, kv_heads=model.kv_heads, heads=model.attention_heads,
                                    ratio=num(model.attention_heads / model.kv_heads)))]
