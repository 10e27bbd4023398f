"""Linear-scaling claims: "8 GPUs = 8× one GPU", "scaling is always linear", "卡数翻倍时间减半".

The speed-up of N GPUs is N × the scaling efficiency. The allreduce tool gives the time of one all-reduce of the
model's BF16 gradients on that GPU and count (NVLink inside a server, the network between servers), the
training-time tool the compute of one optimizer step at a stated per-GPU batch; efficiency without overlap is
compute ÷ (compute + all-reduce). Published efficiencies are quoted from the knowledge base (claim-linear-scaling).
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import model_label, num, pct
from service.assistant.messages import say
from service.sizing.defaults import DEFAULT_GPU

DEFAULT_PARAMS_B = 7.0
SEQS_PER_GPU, SEQ_LEN = 4, 4096  # one optimizer step per GPU: 4 sequences of 4,096 tokens (stated in the answer)
GPU_AFTER = re.compile(r"\s*(?:[A-Za-z]{1,4}\s?\d|gpus?\b|cards?\b|nodes?\b|张|卡|台)", re.I)
SPEED_WORD = re.compile(r"speed|fast|quick|速度|快|性能|倍速|吞吐|throughput", re.I)
SCALE_CONTEXT = re.compile(r"gpu|卡|节点|node|server|服务器|scal|扩展|加速|speed|速度", re.I)


def is_scaling_claim(text: str, slots) -> bool:
    """A claim that speed grows linearly with the GPU count: said in words, or "N GPUs = N×"."""
    from service.assistant.claim_finding import FACTOR, _factor, _gpus, cue

    if cue("linear_scaling", text) and SCALE_CONTEXT.search(text):
        return True
    count = slots.gpus or (slots.nodes * 8 if slots.nodes else None)
    factor = FACTOR.search(text)
    if not (count and count >= 2 and factor and _factor(factor.group(1)) == count and len(_gpus(slots)) <= 1):
        return False
    # "8x A100 do 900 samples/s" names a server, not a speed-up: the factor must be about speed
    return not GPU_AFTER.match(text, factor.end()) and bool(SPEED_WORD.search(text))


def scaling_claim(ctx):
    from service.assistant.claim_finding import FACTOR, Finding, _factor, cue

    s, lang, catalog = ctx.slots, ctx.lang, ctx.catalog
    notes = []
    gpu = catalog.gpus[s.gpu or DEFAULT_GPU]
    if not s.gpu:
        notes.append(say("claims_extra.scaling_assumed_gpu", lang, gpu=gpu.name))
    model = {"model": s.model, "params_b": None if s.model else s.params_b}
    if not (s.model or s.params_b):
        model = {"params_b": DEFAULT_PARAMS_B}
        notes.append(say("claims_extra.scaling_assumed_model", lang, params=num(DEFAULT_PARAMS_B)))
    count = s.gpus or (s.nodes * 8 if s.nodes else None)
    counts = [8, count] if count and count > 8 else [count, 64] if count and count >= 2 else [8, 64]  # inside one server, and across 8
    per_gpu = SEQS_PER_GPU * SEQ_LEN
    notes.append(say("claims_extra.scaling_assumed", lang, tokens=f"{per_gpu:,}", seqs=SEQS_PER_GPU, seq_len=f"{SEQ_LEN:,}"))
    rows, output = [], {"tokens_per_gpu": per_gpu, "sequences_per_gpu": SEQS_PER_GPU, "seq_len": SEQ_LEN}
    for n in counts:
        comm = ctx.run("allreduce", {**model, "gpu": gpu.id, "gpus": n, "gpus_per_node": 8})
        step = ctx.run("training-time", {**model, "tokens": per_gpu * n, "seq_len": SEQ_LEN, "gpu": gpu.id, "gpus": n})
        compute_s, comm_s = step.hours.typical * 3600, comm.total_ms / 1000
        eff = compute_s / (compute_s + comm_s)
        rows.append((n, comm, compute_s, comm_s, eff))
        output[f"gpus_{n}"] = {
            "allreduce_s": comm_s,
            "compute_s": compute_s,
            "efficiency": round(eff, 4),
            "efficiency_pct": round(eff * 100, 1),
            "speedup": round(n * eff, 2),
            "fabric": comm.fabric,
        }
    sublinear = cue("sublinear", ctx.text)
    verdict = "true" if sublinear else "false"
    grad_gb = rows[0][1].size_mb / 1000
    output |= {"gradient_gb": grad_gb, "verdict": verdict}
    ctx.record("claim-check", {"gpu": gpu.id, "gpus": counts, **{k: v for k, v in model.items() if v}}, output)
    name = model_label(catalog, s.model, model.get('params_b') or 0)
    lead = (
        say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say("claims_extra.scaling_lead", lang, grad_gb=num(grad_gb), model=name)
    )
    points = [say("claims_extra.scaling_true", lang)] if sublinear else []
    points += [
        say(
            "claims_extra.scaling_row",
            lang,
            gpus=n,
            gpu=gpu.name,
            fabric=comm.fabric,
            comm=num(comm_s * 1000),
            compute=num(compute_s),
            eff=pct(eff),
            speedup=num(n * eff),
        )
        for n, comm, compute_s, comm_s, eff in rows
    ]
    factor = FACTOR.search(ctx.text)
    claimed = _factor(factor.group(1)) if factor else None
    row = next((r for r in rows if r[0] in (count, claimed)), None)  # "8 GPUs = 8×": the row of the count the claim is about
    if claimed and claimed >= 2 and row:
        points.append(say("claims_extra.scaling_claimed", lang, claimed=num(claimed), gpus=row[0], speedup=num(row[0] * row[4])))
    points += [say("claims_extra.scaling_decides", lang), say("claims_extra.scaling_measure", lang)]
    return Finding("scaling", verdict, lead, points, notes, topics=["claims", "parallelism"], query=say("claims_extra.scaling_query", lang))
