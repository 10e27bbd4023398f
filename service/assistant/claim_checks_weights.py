""""Our stack runs a 70B in FP16 on one 24 GB 4090" (and "what about INT4?"): the weights against the card.

No serving stack makes weights smaller than their format: 2 bytes per parameter in FP16, about half a byte in INT4.
The inference tool gives the weight size in the format claimed (and in INT4 when another was claimed) against the
card's memory, the fewest of these cards that hold it with tensor parallelism, and, when it does not fit, what CPU
offload costs: the part that does not fit crosses PCIe for every token (tokens/s ≤ PCIe bandwidth ÷ offloaded bytes).
Sentences are in the message catalog (claims_expert.weights_*).
"""

from __future__ import annotations

import re

from service.assistant.compose.fmt import model_label, num
from service.assistant.messages import say

FORMAT = re.compile(r"fp16|bf16|fp8|int8|int4|半精度|(?<!\d)(?:16|8|4)\s*(?:位|-?\s*bits?\b)|\bawq\b|\bgptq\b", re.I)
FORMATS = ("fp16", "bf16", "fp8", "int8", "int4")
TP_COUNTS = (2, 4, 8)
GB = 2**30 / 1e9


def claimed_format(text: str, slots) -> str | None:
    """The weight format the claim is about: the last one written (a follow-up "what about INT4?" comes last)."""
    if slots.weights in FORMATS:
        return slots.weights
    found = [_format(m.group(0)) for m in FORMAT.finditer(text)]
    if found:
        return found[-1]
    return slots.precision if slots.precision in FORMATS else None


FORMAT_SEPARATORS = re.compile(r"[\s-]")


def _format(word: str) -> str:
    w = FORMAT_SEPARATORS.sub("", word.lower())
    if w in FORMATS:
        return w
    if w == "半精度" or w.startswith("16"):
        return "fp16"
    return "int8" if w.startswith("8") else "int4"  # "4-bit", "4 位", AWQ, GPTQ


DECODE_SPEED = re.compile(r"\d\s*(?:tokens?|token)\s*(?:/\s*s|每秒|per second)|每秒.{0,8}token", re.I)


def is_weights_claim(text: str, slots) -> bool:
    """A model served on one named card in a named weight format, with no training and no speed figure."""
    from service.assistant.claim_checks import cue, has_inference_speed

    if not ((slots.model or slots.params_b) and slots.gpu) or (slots.gpus or 1) > 1:
        return False
    if slots.task in ("pretrain", "fine-tune") or slots.method or has_inference_speed(text):
        return False
    if DECODE_SPEED.search(text):
        return False  # a speed claim: the decode check answers it
    return claimed_format(text, slots) is not None and (cue("runs_model", text) or cue("inference", text) or slots.task == "inference")


def weights_claim(ctx):
    from service.assistant.claim_checks import Finding
    from service.assistant.claim_checks_decode import OFFLOAD_RESIDENT

    s, lang, catalog = ctx.slots, ctx.lang, ctx.catalog
    gpu = catalog.gpus[s.gpu]
    fmt = claimed_format(ctx.text, s)
    model = {"model": s.model, "params_b": None if s.model else s.params_b}
    base = {**model, "gpu": gpu.id, "concurrency": 1, "context_len": s.context_len}
    claimed = ctx.run("inference", {**base, "gpus": 1, "weights": fmt})
    int4 = claimed if fmt == "int4" else ctx.run("inference", {**base, "gpus": 1, "weights": "int4"})
    weights_gb, int4_gb = claimed.weights_gib * GB, int4.weights_gib * GB
    fits = claimed.fit != "does_not_fit"
    verdict = "true" if fits else "false"
    need = next((r for n in TP_COUNTS if (r := ctx.try_run("inference", {**base, "gpus": n, "weights": fmt})[0]) is not None
                 and r.fit != "does_not_fit"), None) if not fits else None
    resident_gb = OFFLOAD_RESIDENT * gpu.memory_gb
    offload_gb = max(weights_gb - resident_gb, 0)
    ceiling = gpu.pcie_gbps_per_direction / offload_gb if offload_gb else None
    ctx.record("claim-check", {"gpu": gpu.id, "weights": fmt, "gpus": 1, "resident_share": OFFLOAD_RESIDENT},
               {"weights_gb": weights_gb, "int4_weights_gb": int4_gb, "gpu_memory_gb": gpu.memory_gb, "per_gpu_total_gib": claimed.per_gpu_total_gib,
                "weights_to_memory": weights_gb / gpu.memory_gb, "gpus_needed": need.gpus if need else None, "resident_gb": resident_gb,
                "offloaded_gb": offload_gb, "pcie_gbps_per_direction": gpu.pcie_gbps_per_direction,
                "offload_ceiling_tokens_per_s": ceiling, "verdict": verdict})
    name = model_label(catalog, s.model, claimed.params_b)
    values = {"model": name, "fmt": fmt.upper(), "gpu": gpu.name, "mem": num(gpu.memory_gb), "weights": num(weights_gb),
              "weights_gib": num(claimed.weights_gib), "int4": num(int4_gb), "total": num(claimed.per_gpu_total_gib), "ratio": num(weights_gb / gpu.memory_gb)}
    key = "claims_expert.weights_fits" if fits else "claims_expert.weights_lead"
    lead = say("claim.lead", lang, verdict=say(f"claim.verdict.{verdict}", lang)) + " " + say(key, lang, **values)
    points = []
    if fmt != "int4":
        points.append(say("claims_expert.weights_int4_fits" if int4.fit != "does_not_fit" else "claims_expert.weights_int4", lang, **values))
    if need is not None:
        points.append(say("claims_expert.weights_tp", lang, **values, gpus=need.gpus, per_gpu=num(need.per_gpu_total_gib)))
    if ceiling is not None:
        points.append(say("claims_expert.weights_offload", lang, **values, offload=num(offload_gb), gen=gpu.pcie_gen, pcie=num(gpu.pcie_gbps_per_direction),
                          ceiling=num(ceiling)))
    if not fits:
        points.append(say("claims_expert.weights_ask", lang))
    return Finding("weights", verdict, lead, points, results=[claimed], topics=["claims", "inference", "memory"])
