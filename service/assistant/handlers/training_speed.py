"""Training throughput: "how many tokens/s per GPU should I expect training Llama 3 8B on an H100 in BF16?".

A training step costs about 6·N FLOPs per token (4·N for LoRA/QLoRA, which skip the frozen weights' gradients), so a
GPU processes MFU × peak ÷ FLOPs-per-token tokens a second. The training-time tool holds the FLOPs per token, the
card's dense peak at the precision and the typical MFU band; its cluster throughput divided by the GPUs is the figure
per GPU. Asked with the words of inference ("tokens/s"), this is not the single-user decode speed.
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import model_label, num, pct
from service.assistant.handlers.base import Context, Draft, model_ref
from service.assistant.messages import say
from service.contract import LeadBlock, ParagraphBlock
from service.sizing.defaults import DEFAULT_GPU

RATE = re.compile(r"tokens?\s*/\s*s(?:ec)?|tok/s|tokens? (?:per|a) (?:second|sec)|每秒.{0,6}token|tokens?每秒|throughput|吞吐|samples?\s*/\s*s", re.I)
TRAINING = re.compile(r"train|fine[\s-]*tun|finetun|pre[\s-]*train|\bsft\b|lora|训练|微调|预训练|精调", re.I)
TRAINING_VERB = re.compile(r"\btrain(?:ing)?\b|fine[\s-]*tun|finetun|pre[\s-]*train|训练|微调|预训练", re.I)
RUN_TOKENS = 1e9  # any run length: the rate does not depend on it


def asks(ctx: Context) -> bool:
    s = ctx.slots
    # "tokens/s" reads as serving in the slots; an explicit training verb says which rate is meant
    training = s.task != "inference" or bool(TRAINING_VERB.search(ctx.text))
    return bool(
        (s.model or s.params_b) and training and RATE.search(ctx.text) and TRAINING.search(ctx.text) and not (s.tokens or s.samples or s.deadline_hours)
    )


def answer(ctx: Context) -> Draft | None:
    if not asks(ctx):
        return None
    s, lang = ctx.slots, ctx.lang
    gpus = s.gpus or 1
    payload = {
        **model_ref(ctx),
        "gpu": s.gpu or DEFAULT_GPU,
        "gpus": gpus,
        "tokens": RUN_TOKENS,
        "precision": s.precision,
        "method": s.method or "full",
        "seq_len": s.seq_len,
    }
    result, _ = ctx.try_run("training-time", payload)
    if result is None:
        return None
    per_gpu = result.tokens_per_second / result.gpus
    # The band of the MFU gives the band of the rate: tokens/s scales with MFU at a fixed FLOPs per token.
    low, high = per_gpu * result.mfu.low / result.mfu.typical, per_gpu * result.mfu.high / result.mfu.typical
    ctx.record(
        "training-throughput",
        {
            "tokens_per_second_cluster": result.tokens_per_second,
            "gpus": result.gpus,
            "mfu_low": result.mfu.low,
            "mfu_typical": result.mfu.typical,
            "mfu_high": result.mfu.high,
        },
        {"tokens_per_second_per_gpu": per_gpu, "low": low, "high": high},
    )
    gpu = ctx.catalog.gpus[result.gpu]
    name = model_label(ctx.catalog, result.model, result.params_b)
    values = {
        "model": name,
        "gpu": gpu.name,
        "precision": result.precision.upper(),
        "rate": num(per_gpu),
        "low": num(low),
        "high": num(high),
        "mfu": pct(result.mfu.typical),
        "mfu_low": pct(result.mfu.low),
        "mfu_high": pct(result.mfu.high),
        "peak": num(result.peak_tflops_per_gpu),
        "per_token": f"{result.flops_per_token:.3g}",
        "gpus": result.gpus,
        "cluster": num(result.tokens_per_second),
    }
    blocks = [LeadBlock(text=say("training_speed.lead", lang, **values)), ParagraphBlock(text=say("training_speed.how", lang, **values))]
    if result.gpus > 1:
        blocks.append(ParagraphBlock(text=say("training_speed.cluster", lang, **values)))
    blocks.append(ParagraphBlock(text=say("training_speed.advice", lang)))
    return Draft(
        blocks=blocks,
        hits=ctx.retrieve(say("training_speed.query", lang), k=2),
        works=[(result.tool, result.work)],
        follow_ups=[say("training_speed.follow_time", lang), say("training_speed.follow_mfu", lang)],
    )
