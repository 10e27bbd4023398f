"""Step time for a layout the user states (TP, PP, micro-batch, global batch, sequence, GPUs): the step-time model's answer
with every term (compute, memory-bound kernels, tensor-parallel collectives, pipeline bubble and sends, data-parallel
reduction, optimizer) shown, instead of the MFU band that answers when no layout is given."""

from __future__ import annotations

from service.assistant.capabilities.base import Finding, capability
from service.assistant.capabilities.job import card, model_payload, record_facts
from service.assistant.handlers.base import Context
from service.assistant.messages import say
from service.render.fmt import num
from service.sizing.defaults import DEFAULT_GPU

LAYOUT_FACTS = ("model_id", "params_b", "tp", "pp", "job_micro_batch", "micro_batch", "global_batch", "train_seq_len", "seq_len", "gpus_total")
TOKENS_PER_STEP = 4 * 2**20  # a global batch of about 4M tokens: what published runs at this scale use when none is stated
TERMS = ("compute_s", "memory_bound_s", "tensor_parallel_s", "pipeline_bubble_s", "pipeline_send_s", "data_parallel_s", "optimizer_s")


@capability("size_step_time")
def size_step_time(ctx: Context) -> Finding | None:
    lang = ctx.lang
    facts = record_facts(ctx, LAYOUT_FACTS)
    model = model_payload(ctx, facts)
    if model is None:
        return None
    gpu, _ = card(ctx, facts)
    slots = ctx.slots
    payload = {**model, "gpu": gpu or DEFAULT_GPU, "gpus": int(facts.get("gpus_total") or slots.gpus or 8), "tp": int(facts.get("tp") or 1),
               "pp": int(facts.get("pp") or 1), "micro_batch": int(facts.get("job_micro_batch") or facts.get("micro_batch") or 1),
               "global_batch": facts.get("global_batch"), "seq_len": facts.get("train_seq_len") or facts.get("seq_len") or slots.seq_len}
    result, error = ctx.try_run("step-time", {k: v for k, v in payload.items() if v is not None})
    if result is None:
        return Finding("size_step_time", lead=say("pipeline.cannot_compute", lang, reason=error.message(lang)) if error else "", verdict=None)
    minimal = None
    if payload["global_batch"] is None:
        # No global batch stated: one micro-batch per rank leaves the pipeline mostly idle; time the usual ~4M-token batch too.
        per_step = result.dp * result.micro_batch
        typical = max(per_step, round(TOKENS_PER_STEP / result.seq_len / per_step) * per_step)
        if typical > per_step:
            bigger, _ = ctx.try_run("step-time", {**{k: v for k, v in payload.items() if v is not None}, "global_batch": typical})
            if bigger is not None:
                minimal, result = result, bigger
    terms = result.terms
    lead = say("case.step.lead", lang, seconds=num(result.step_time_s), gpus=f"{result.gpus:,}", tp=result.tp, pp=result.pp, dp=result.dp,
               micro=result.micro_batch, global_batch=f"{result.global_batch:,}", seq=f"{result.seq_len:,}", mfu=num(result.mfu * 100, 2))
    shares = {name: getattr(terms, name) for name in TERMS}
    parts = ", ".join(say(f"case.step.term.{name}", lang, s=num(value)) for name, value in shares.items() if value > 0)
    points = [say("case.step.terms", lang, parts=parts),
              say("case.step.throughput", lang, tokens=f"{round(result.tokens_per_second):,}", per_gpu=f"{round(result.tokens_per_gpu_second):,}"),
              say("case.step.assumed", lang)]
    if minimal is not None:
        points.insert(0, say("case.step.batch_assumed", lang, global_batch=f"{result.global_batch:,}", minimal=f"{minimal.global_batch:,}",
                             seconds=num(minimal.step_time_s), bubble=num(minimal.terms.pipeline_bubble_s)))
    return Finding("size_step_time", lead=lead, points=points, works=[("step-time", result.work)], verdict=str(result.step_time_s),
                   basis={"step_time_s": result.step_time_s})
