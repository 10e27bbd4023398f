"""One GPU that trains slowly: "my 4090 only reaches 40 TFLOPS", and the follow-up that gives the settings.

`answer(ctx)` returns a Draft or None:
- the first question: the measured TFLOPS against the card's dense BF16 and TF32 peaks (catalog), then the usual
  causes in order: precision (FP32/TF32 instead of BF16 autocast), batch size and sequence length, the data loader,
  torch.compile and fused kernels, and profiling;
- a follow-up with settings ("already bf16, batch 1, seq 512"): answered for those settings, never with "which model?";
  a small batch (tokens per step) is the lead cause, with larger micro-batches, packing and gradient accumulation.
Sentences are in the message catalog (s2.slow_*).
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import num, pct
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.contract import ChecklistBlock, ChecklistStep, LeadBlock, ParagraphBlock

MEASURED = re.compile(r"(\d+(?:\.\d+)?)\s*(?:tflops|tflop/s|t\s*flops|tf/s)", re.I)
SLOW = re.compile(
    r"慢|slow|sluggish|低效|利用率(?:很|太|比较)?低|underperform|不够快|上不去|不高|偏低|正常吗|only|just|barely|\blow\b|"
    r"tops? out|max(?:es)? out|stuck at|只|才|仅",
    re.I,
)
# Slowness the user sees in a run of theirs ("特别慢", "way too slow"), not "would it be slow on a 4090?"
OBSERVED_SLOW = re.compile(
    r"(?:太|特别|很|好|非常|真|巨)慢|慢得|慢死|so slow|too slow|very slow|really slow|painfully slow|sluggish|"
    r"slower than (?:expected|it should)",
    re.I,
)
TRAIN = re.compile(r"训练|微调|train|fine-?tun|step", re.I)
BATCH = re.compile(r"(?:batch(?:[\s_-]*size)?|\bbs\b|批大小|批次大小|批量)\s*(?:=|:|：|为|是|of)?\s*(\d+)", re.I)
SEQ = re.compile(r"(?:seq(?:uence)?[\s_-]*(?:len(?:gth)?)?|序列长度|序列长|上下文长度)\s*(?:=|:|：|为|是|of)?\s*(\d+)", re.I)
BF16 = re.compile(r"bf16|bfloat16|fp16|混合精度|mixed precision|autocast|amp\b", re.I)
SMALL_TOKENS_PER_STEP = 4096  # below this many tokens per step a single GPU's matmuls are too small to fill it
STEPS = ("precision", "batch", "loader", "compile", "profile")
COMMANDS = {
    "precision": ['torch.autocast(device_type="cuda", dtype=torch.bfloat16)', "torch.backends.cuda.matmul.allow_tf32 = True"],
    "batch": [],
    "loader": ["DataLoader(..., num_workers=N, pin_memory=True, persistent_workers=True)", "nvidia-smi dmon -s u"],
    "compile": ["model = torch.compile(model)", "torch.optim.AdamW(params, fused=True)"],
    "profile": [
        "torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])",
        "nsys profile -o run python train.py",
        "nvidia-smi -q -d PERFORMANCE",
    ],
}


def asks(text: str) -> bool:
    """A slow training run on a card: a measured TFLOPS figure called low, or plain slowness words."""
    return bool(TRAIN.search(text) and SLOW.search(text) and (MEASURED.search(text) or OBSERVED_SLOW.search(text)))


def answer(ctx: Context) -> Draft | None:
    s = ctx.slots
    if (s.gpus or 1) != 1 or s.nodes:
        return None
    context = ctx.understanding.context or ""
    if s.gpu and asks(ctx.text) and not _settings(ctx.text):
        return _first(ctx, ctx.text)
    if asks(context) and (_settings(ctx.text) or asks(ctx.text)):
        return _settings_answer(ctx, context)
    if s.gpu and asks(ctx.text):
        return _settings_answer(ctx, ctx.text)
    return None


def _settings(text: str) -> bool:
    return bool(BATCH.search(text) or SEQ.search(text))


def gives_settings(text: str) -> bool:
    """ "already bf16, batch 1, seq 512": a turn that states the run's settings."""
    return _settings(text) or bool(BF16.search(text))


def _peaks(ctx: Context, text: str) -> list:
    gpu = ctx.slots.gpu
    if gpu is None or gpu not in ctx.catalog.gpus:
        return []
    spec = ctx.catalog.gpus[gpu]
    bf16, tf32 = spec.dense_tflops("bf16"), spec.dense_tflops("tf32") or spec.fp32_tflops
    m = MEASURED.search(text)
    if not (m and bf16 and tf32):
        if bf16 and tf32:
            ctx.record("catalog-lookup", {"gpu": spec.id}, {"bf16_dense_tflops": bf16, "tf32_dense_tflops": tf32})
        return [ParagraphBlock(text=say("s2.slow_peaks", ctx.lang, gpu=spec.name, bf16=num(bf16), tf32=num(tf32)))] if bf16 and tf32 else []
    measured = float(m.group(1))
    ctx.record(
        "achieved-vs-peak",
        {"gpu": spec.id, "measured_tflops": measured, "bf16_dense_tflops": bf16, "tf32_dense_tflops": tf32},
        {"share_of_bf16": measured / bf16, "share_of_tf32": measured / tf32},
    )
    key = "s2.slow_below_tf32" if measured <= tf32 * 1.05 else "s2.slow_above_tf32"
    return [
        LeadBlock(
            text=say(
                key,
                ctx.lang,
                gpu=spec.name,
                measured=num(measured),
                bf16=num(bf16),
                tf32=num(tf32),
                share=pct(measured / bf16),
                share_tf32=pct(measured / tf32),
            )
        )
    ]


def _checklist(ctx: Context, steps=STEPS) -> ChecklistBlock:
    return ChecklistBlock(
        title=say("s2.slow_title", ctx.lang), steps=[ChecklistStep(text=say(f"s2.slow_step.{step}", ctx.lang), commands=COMMANDS[step]) for step in steps]
    )


def _first(ctx: Context, text: str) -> Draft:
    blocks = _peaks(ctx, text)
    if not blocks or blocks[0].type != "lead":
        blocks.insert(0, LeadBlock(text=say("s2.slow_lead", ctx.lang)))
    blocks += [_checklist(ctx), ParagraphBlock(text=say("s2.slow_ask", ctx.lang))]
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["utilization"]), show_sources=False, follow_ups=[say("s2.slow_follow_settings", ctx.lang)])


def _settings_answer(ctx: Context, earlier: str) -> Draft:
    text, lang = ctx.text, ctx.lang
    batch = BATCH.search(text) or BATCH.search(earlier)
    seq = ctx.slots.seq_len or (int(m.group(1)) if (m := SEQ.search(text) or SEQ.search(earlier)) else None)
    blocks = []
    if batch and seq:
        b = int(batch.group(1))
        tokens = b * seq
        ctx.record("tokens-per-step", {"micro_batch": b, "seq_len": seq}, {"tokens_per_step": tokens})
        small = tokens < SMALL_TOKENS_PER_STEP
        blocks.append(LeadBlock(text=say("s2.slow_small_batch" if small else "s2.slow_batch_ok", lang, batch=b, seq=num(seq), tokens=num(tokens))))
    elif batch and int(batch.group(1)) <= 2:
        blocks.append(LeadBlock(text=say("s2.slow_small_batch_only", lang, batch=int(batch.group(1)))))
    else:
        blocks.append(LeadBlock(text=say("s2.slow_lead", lang)))
    bf16 = BF16.search(text) or ctx.slots.precision in ("bf16", "fp16")
    blocks.append(ParagraphBlock(text=say("s2.slow_bf16_check" if bf16 else "s2.slow_precision_first", lang)))
    blocks += _peaks(ctx, earlier)[1:] if MEASURED.search(earlier) else []
    steps = ("batch", "compile", "loader", "profile") if bf16 else ("precision", "batch", "compile", "loader", "profile")
    blocks.append(_checklist(ctx, steps))
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["utilization"]), show_sources=False, follow_ups=[say("s2.slow_follow_profile", lang)])
