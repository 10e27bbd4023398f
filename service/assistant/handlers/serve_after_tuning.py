"""The serving half of "fine-tune and serve an 8B model": after the training plan, the smallest card that serves the
tuned model. Apart from archetypes.py, which answers whole workload descriptions; consulting adds this to any plan."""

from __future__ import annotations

from service.assistant import consult
from service.assistant.compose.fmt import num
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.contract import ParagraphBlock

SERVE_SMALL = ("l40s", 1)  # a 48 GB card serves a 7-13B model in 16-bit with room for the KV cache
SERVE_LARGE = ("h100-sxm", (1, 2, 4, 8))


def serve_after_tuning(ctx: Context, draft: Draft) -> None:
    """Append the serving plan when a fine-tuning question also says the model will be served to users."""
    s = ctx.slots
    if s.task not in (None, "fine-tune") or not (s.model or s.params_b) or draft.clarification is not None:
        return
    if not (consult.cue("serving", ctx.text) and consult.cue("fine_tune", ctx.text)):
        return
    params = ctx.catalog.models[s.model].params if s.model in ctx.catalog.models else (s.params_b or 0) * 1e9
    ref = {"model": s.model, "params_b": None if s.model else s.params_b}
    plans = [(SERVE_SMALL[0], SERVE_SMALL[1], fmt) for fmt in ("bf16", "fp8")] if params <= 15e9 else \
        [(SERVE_LARGE[0], n, "fp8") for n in SERVE_LARGE[1]]
    for gpu, gpus, fmt in plans:
        result, _ = ctx.try_run("inference", {**ref, "gpu": gpu, "gpus": gpus, "weights": fmt, "concurrency": s.concurrency or 1})
        if result is not None and result.fit != "does_not_fit":
            break
    else:
        return
    draft.blocks.append(ParagraphBlock(text=say("archetype.then_serve", ctx.lang, gpus=gpus, gpu=ctx.catalog.gpus[gpu].name,
                                                fmt=say(f"consult.method.{fmt}", ctx.lang), need=num(result.per_gpu_total_gib),
                                                have=num(result.gpu_memory_gib or 0))))
    draft.works.append((result.tool, result.work))
