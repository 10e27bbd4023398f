"""Serving plans driven by load and latency targets, not only by memory.

- `throughput_notes(ctx)`: "20 requests/s, 1,500-token prompts, 300 output tokens" becomes the token
  throughput the fleet must sustain (prefill and decode tokens/s), the requests in flight at once
  (Little's law: arrival rate × time per request) and the GPUs the prefill compute alone needs; the
  concurrency then sizes the KV cache in the plan.
- `ttft_answer(ctx)`: "TTFT under 2 s for a 32k prompt" is a question about prefill time: the
  inference tool's prefill seconds on the named GPUs, against the target.
- `serving_options(ctx, result)` / `finish_plan(ctx, draft)`: every serving plan names the engine (continuous
  batching, paged KV cache) and the quantisation options with the weights' size in each format on the card chosen.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from service.assistant.compose.fmt import num
from service.assistant.compose.sizing import model_name
from service.assistant.handlers.base import Context, Draft, model_ref
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock
from service.errors import InputError
from service.sizing.defaults import DEFAULT_GPU

I = re.IGNORECASE
ASSUMED_PROMPT_TOKENS = 2048  # a chat prompt with some history; the inference tool's own default prompt length
PREFILL_MFU = 0.5  # the inference tool's prefill efficiency (service/sizing/inference.py)
_N = r"(\d[\d,]*(?:\.\d+)?)"
QPS = [re.compile(rf"{_N}\s*(?:qps|rps|req(?:uest)?s?\s*(?:/\s*s(?:ec)?\b|per\s+sec(?:ond)?)|queries\s+per\s+sec(?:ond)?|个?请求\s*/\s*秒|次\s*/\s*秒)", I),
       re.compile(rf"(?:qps|rps)\s*(?:of|=|为|是|达到|要|:|：|大约|约|around|about)?\s*{_N}", I),
       re.compile(rf"每秒\s*(?:钟)?\s*(?:大约|约)?\s*{_N}\s*(?:个|次)?\s*(?:请求|调用|查询)", I)]
PROMPT = [re.compile(rf"{_N}\s*(k)?\s*(?:个)?\s*-?\s*tokens?\s*(?:的)?\s*(?:长)?(?:documents?|texts?|contexts?|文档|文本|上下文|提示词?|prompt|输入)", I),
          re.compile(rf"(?:prompts?|inputs?|输入|提示词?)\s*(?:of|are|is|=|为|是|长度|约|大约|about|around|~|:|：)?\s*(?:about|around|~|约)?\s*{_N}\s*(k)?", I),
          re.compile(rf"{_N}\s*(k)?\s*-?\s*(?:tokens?\s+(?:of\s+)?)?(?:prompt|input)|{_N}\s*(k)?\s*(?:个)?\s*token\s*(?:的)?\s*(?:输入|提示)", I),
          re.compile(rf"{_N}\s*(k)?\s*(?:的)?\s*(?:提示词?|输入)", I)]  # "8k 提示词", "32k 的输入"
OUTPUT = [re.compile(rf"(?:outputs?|generat\w*|completions?|responses?|answers?|输出|生成|回答)\s*(?:of|are|is|=|为|是|长度|约|大约|about|around|~|:|：)?\s*(?:about|around|~|约)?\s*{_N}\s*(k)?", I),
          re.compile(rf"{_N}\s*(k)?\s*-?\s*(?:tokens?\s+(?:of\s+)?)?(?:output|generated|completion|response)|{_N}\s*(k)?\s*(?:个)?\s*token\s*(?:的)?\s*(?:输出|生成|回答)", I)]
TTFT = re.compile(r"time[- ]to[- ]first[- ]token|\bttft\b|first[- ]token|首\s*token|首字|首包|prefill", I)
SECONDS = re.compile(rf"{_N}\s*(?:s\b|sec(?:ond)?s?\b|秒)", I)
MILLISECONDS = re.compile(rf"{_N}\s*(?:ms\b|毫秒)", I)


BATCH = re.compile(r"(?:batch(?:[\s_-]*size)?|批(?:大小|量)?|并发(?:数)?)\s*(?:=|:|：|为|是|of)?\s*(\d{1,5})(?!\d)|(\d{1,5})\s*(?:个|路)?\s*(?:sequences|序列|并发)", re.I)


def batch_in(text: str) -> int | None:
    """"batch 16", "16 sequences": how many sequences share the KV cache when the slots hold no concurrency."""
    m = BATCH.search(text)
    return int(m.group(1) or m.group(2)) if m else None


def _first(patterns: list[re.Pattern], text: str) -> float | None:
    for pattern in patterns:
        m = pattern.search(text)
        if m:
            groups = [g for g in m.groups()]
            for i in range(0, len(groups), 2):
                if groups[i]:
                    value = float(groups[i].replace(",", ""))
                    k = groups[i + 1] if i + 1 < len(groups) else None
                    return value * (1024 if k else 1)
    return None


def qps_in(text: str) -> float | None:
    return _first(QPS, text)


def lengths_in(text: str) -> tuple[int | None, int | None]:
    prompt, output = _first(PROMPT, text), _first(OUTPUT, text)
    return (int(prompt) if prompt else None), (int(output) if output else None)



def _active_params(ctx: Context) -> float | None:
    s = ctx.slots
    model = ctx.catalog.models.get(s.model or "")
    if model is not None:
        return model.active_params or model.params
    return s.params_b * 1e9 if s.params_b else None


def throughput_notes(ctx: Context) -> list:
    """Blocks stating the required token throughput and how it was derived; sets the concurrency the plan is sized for."""
    s, lang, text = ctx.slots, ctx.lang, ctx.text
    qps = qps_in(text)
    params = _active_params(ctx)
    if not qps or params is None:
        return []
    prompt, output = lengths_in(text)
    prompt = prompt or 1024
    output = output or 256
    prefill_tps, decode_tps = qps * prompt, qps * output
    ctx.record("serving-throughput", {"requests_per_second": qps, "prompt_tokens": prompt, "output_tokens": output},
               {"prefill_tokens_per_second": prefill_tps, "decode_tokens_per_second": decode_tps, "total_tokens_per_second": prefill_tps + decode_tps})
    blocks: list = [ParagraphBlock(text=say("serving_load.throughput", lang, qps=num(qps), prompt=f"{prompt:,}", output=f"{output:,}",
                                            prefill=f"{prefill_tps:,.0f}", decode=f"{decode_tps:,.0f}", total=f"{prefill_tps + decode_tps:,.0f}"))]
    gpu_id = s.gpu or DEFAULT_GPU
    gpu = ctx.catalog.gpus[gpu_id]
    probe = None
    for gpus in ([s.gpus] if s.gpus else [1, 2, 4, 8]):
        # The fewest GPUs that hold the weights set the per-sequence speed (tensor parallel when more than one).
        probe, _ = ctx.try_run("inference", {**model_ref(ctx), "gpu": gpu_id, "gpus": gpus, "concurrency": 1, "context_len": prompt + output,
                                             "prompt_tokens": prompt, "weights": s.weights})
        if probe is None or probe.fit != "does_not_fit":
            break
    peak = gpu.dense_tflops("bf16" if gpu.supports_bf16 else "fp16")
    if probe is None or not probe.decode_tokens_per_second or not peak:
        return blocks
    per_seq = probe.decode_tokens_per_second.typical
    seconds = probe.prefill_seconds + output / per_seq
    in_flight = max(1, math.ceil(qps * seconds))
    prefill_flops = 2 * params * prefill_tps
    prefill_gpus = prefill_flops / (peak * 1e12 * PREFILL_MFU)
    ctx.record("serving-concurrency", {"requests_per_second": qps, "prefill_seconds": probe.prefill_seconds, "output_tokens": output,
                                       "decode_tokens_per_second_per_sequence": per_seq, "active_params": params,
                                       "peak_tflops": peak, "prefill_mfu": PREFILL_MFU},
               {"seconds_per_request": seconds, "requests_in_flight": in_flight, "prefill_flops_per_second": prefill_flops,
                "gpus_for_prefill_compute": prefill_gpus})
    blocks.append(ParagraphBlock(text=say("serving_load.in_flight", lang, gpu=f"{probe.gpus} × {gpu.name}", card=gpu.name, per_seq=num(per_seq), prefill_s=num(probe.prefill_seconds),
                                          output=f"{output:,}", seconds=num(seconds), qps=num(qps), in_flight=f"{in_flight:,}",
                                          flops=f"{prefill_flops:.3g}", prefill_gpus=num(prefill_gpus), peak=num(peak, 4))))
    if not s.concurrency:
        slots = s.model_copy(update={"concurrency": in_flight, "context_len": prompt + output, "task": "inference"})
        ctx.understanding = ctx.understanding.model_copy(update={"slots": slots})
    return blocks


def ttft_answer(ctx: Context) -> Draft | None:
    """Time to first token for a long prompt is prefill time: compute it on the GPUs named and hold it against the target."""
    s, lang, text = ctx.slots, ctx.lang, ctx.text
    if not TTFT.search(text) or not (s.model or s.params_b):
        return None
    prompt, _ = lengths_in(text)
    prompt = prompt or s.context_len or s.seq_len
    assumed = None
    if not prompt and _other_latency_targets(text):
        return None  # "首字 1 秒内、每路每秒 20 token": the serving plan checks every target (latency_target.py)
    if not prompt:
        # "p95 TTFT under 400 ms": a target with no prompt length is judged on a typical chat prompt, said so
        prompt = ASSUMED_PROMPT_TOKENS
        assumed = NoticeBlock(kind="assumption", text=say("serving_load.ttft_assumed_prompt", lang, prompt=f"{prompt:,}"))
    gpu_id = s.gpu or DEFAULT_GPU
    for gpus in ([s.gpus] if s.gpus else [1, 2, 4, 8]):
        # No GPU count given: the fewest GPUs (tensor parallel) that hold the model, as a deployment would use.
        result, _ = ctx.try_run("inference", {**model_ref(ctx), "gpu": gpu_id, "gpus": gpus, "concurrency": 1, "context_len": prompt + 512,
                                              "prompt_tokens": prompt, "weights": s.weights})
        if result is None or result.fit != "does_not_fit":
            break
    if result is None or result.prefill_seconds is None:
        return None
    gpu = ctx.catalog.gpus[gpu_id].name
    target = _target_seconds(text)
    values = {"prompt": f"{prompt:,}", "gpus": gpus, "gpu": gpu, "prefill": num(result.prefill_seconds), "ttft": num(result.time_to_first_token_s),
              "model": model_name(ctx.catalog, result.model)}
    if target is None:
        lead = say("serving_load.ttft_lead", lang, **values)
    else:
        ok = result.time_to_first_token_s <= target
        ctx.record("latency-target", {"target_seconds": target, "time_to_first_token_s": result.time_to_first_token_s}, {"meets_target": ok})
        lead = say("serving_load.ttft_meets" if ok else "serving_load.ttft_misses", lang, target=num(target), **values)
    blocks = [LeadBlock(text=lead), ParagraphBlock(text=say("serving_load.ttft_why", lang, **values)),
              ParagraphBlock(text=say("serving_load.ttft_levers", lang))]
    if result.fit == "does_not_fit":
        blocks.insert(1, ParagraphBlock(text=say("serving_load.ttft_memory", lang, need=num(result.per_gpu_total_gib), gpu=gpu)))
    if assumed is not None:
        blocks.insert(1, assumed)
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["inference"]), works=[(result.tool, result.work)],
                 follow_ups=[say("consulting.follow_users", lang), say("consulting.follow_int4", lang)])


def _other_latency_targets(text: str) -> bool:
    """Whether the question also sets a per-user speed or an end-to-end latency target besides the first token."""
    from service.assistant.handlers.latency_target import end_to_end_target, per_sequence_target  # it imports this module

    return per_sequence_target(text) is not None or end_to_end_target(text) is not None


def _target_seconds(text: str) -> float | None:
    m = MILLISECONDS.search(text)
    if m:
        return float(m.group(1).replace(",", "")) / 1000
    m = SECONDS.search(text)
    return float(m.group(1).replace(",", "")) if m else None


def replicas_for_throughput(ctx: Context, draft: Draft) -> None:
    """After a serving plan sized for memory: how many copies of it the prefill compute of the stated request rate needs."""
    demand = next((c for c in ctx.tool_calls if c.tool == "serving-concurrency"), None)
    rec = draft.recommendation
    if demand is None or not rec or rec.get("task") != "inference":
        return
    configuration = rec["recommended"]["configuration"]
    gpu = ctx.catalog.gpus.get(configuration["gpu"])
    peak = gpu.dense_tflops("bf16" if gpu.supports_bf16 else "fp16") if gpu else None
    if not peak:
        return
    per_replica = configuration["gpus"]
    needed = demand.output["prefill_flops_per_second"] / (peak * 1e12 * PREFILL_MFU)
    replicas = max(1, math.ceil(needed / per_replica))
    ctx.record("serving-replicas-for-rate", {"prefill_flops_per_second": demand.output["prefill_flops_per_second"], "peak_tflops": peak,
                                             "prefill_mfu": PREFILL_MFU, "gpus_per_replica": per_replica},
               {"gpus_for_prefill": needed, "replicas": replicas, "gpus": replicas * per_replica})
    key = "serving_load.replicas_one" if replicas == 1 else "serving_load.replicas"
    draft.blocks.insert(1, ParagraphBlock(text=say(key, ctx.lang, gpu=gpu.name, needed=num(needed), replicas=replicas, per=per_replica,
                                                   total=replicas * per_replica)))


WEIGHT_FORMATS = (("bf16", 2.0), ("fp8", 1.0), ("int8", 1.0), ("int4", 0.5))


def _total_params(ctx: Context, model: str | None = None) -> float | None:
    s = ctx.slots
    entry = ctx.catalog.models.get(model or s.model or "")
    if entry is not None:
        return entry.params
    return s.params_b * 1e9 if s.params_b else None


def quantisation(ctx: Context, gpu_id: str | None, model: str | None = None) -> ParagraphBlock | None:
    """Weights at BF16 / FP8 / INT8 / INT4 (AWQ, GPTQ) and whether the chosen card runs FP8 natively (Hopper, Ada and newer)."""
    params = _total_params(ctx, model)
    gpu = ctx.catalog.gpus.get(gpu_id or "")
    if params is None:
        return None
    sizes = {fmt: params * per / 1e9 for fmt, per in WEIGHT_FORMATS}
    ctx.record("weights-by-format", {"params": params, "bytes_per_param": dict(WEIGHT_FORMATS)}, {f"{fmt}_gb": gb for fmt, gb in sizes.items()})
    text = say("sizing_expert.quant_options", ctx.lang, **{fmt: num(gb) for fmt, gb in sizes.items()})
    if gpu is not None:
        key = "sizing_expert.quant_fp8_native" if gpu.supports_fp8 else "sizing_expert.quant_no_fp8"
        text += " " + say(key, ctx.lang, gpu=gpu.name, arch=gpu.architecture)
    return ParagraphBlock(text=text)


def serving_options(ctx: Context, result) -> list:
    """For a serving calculation: the engine to run it with, then the quantisation options on its card."""
    if not (ctx.slots.model or ctx.slots.params_b):
        return []
    block = quantisation(ctx, result.gpu, result.model)
    return [ParagraphBlock(text=say("consult.serving_stack", ctx.lang)), *([block] if block else [])]


def finish_plan(ctx: Context, draft: Draft) -> None:
    """After any plan: replicas for a request rate; for a serving plan, the quantisation options on the card chosen
    (and the engine, when the notes did not name it)."""
    from service.assistant.handlers.latency_target import check_latency_target  # it reads lengths with this module's patterns

    replicas_for_throughput(ctx, draft)
    check_latency_target(ctx, draft)
    _drop_repeats(draft)
    rec = draft.recommendation
    if not rec or rec.get("task") != "inference":
        return
    configuration = rec["recommended"]["configuration"]
    block = quantisation(ctx, configuration["gpu"])
    if block is None:
        return
    if not any("vLLM" in getattr(b, "text", "") for b in draft.blocks):
        draft.blocks.append(ParagraphBlock(text=say("consult.serving_stack", ctx.lang)))
    draft.blocks.append(block)


def _drop_repeats(draft: Draft) -> None:
    """A handler and the consulting notes may both name the serving engines: say each paragraph once."""
    seen: set[str] = set()
    kept = []
    for block in draft.blocks:
        if isinstance(block, ParagraphBlock):
            if block.text in seen:
                continue
            seen.add(block.text)
        kept.append(block)
    draft.blocks[:] = kept


def serving_plan(ctx: Context, single, recommend: Callable[[Context], Draft]) -> Draft | None:
    """A serving load with no GPU count, or more than one named card holds: the plan (which card, how many, tensor parallel)
    is the answer; the one-GPU figure stays in the work. None when no single-node plan holds it (the caller answers as before)."""
    try:
        plan = recommend(ctx)
    except InputError:
        return None
    if plan.clarification is not None:
        return None
    total = single.weights_gib + single.kv_total_gib
    ctx.record("serving-memory-total", {"weights_gib": single.weights_gib, "kv_total_gib": single.kv_total_gib}, {"total_gib": total,
                                                                                                                "total_gb": total * 2**30 / 1e9})
    at = 1 if plan.blocks and plan.blocks[0].type == "lead" else 0
    plan.blocks.insert(at, ParagraphBlock(text=say("sizing_expert.serving_total", ctx.lang, weights=num(single.weights_gib), kv=num(single.kv_total_gib),
                                                   sequences=f"{single.concurrency:,}", context=f"{single.context_len:,}", total=num(total),
                                                   total_gb=num(total * 2**30 / 1e9))))
    plan.works.append((single.tool, single.work))
    return plan


def kv_changed(ctx: Context, result, before, draft: Draft) -> Draft:
    """"And with an FP8 KV cache?": the inference tool re-run with that KV format; the lead is the new KV cache in GB
    against the plan's, and the memory per GPU."""
    lang = ctx.lang
    gb, gb_before = result.kv_total_gib * 2**30 / 1e9, before.kv_total_gib * 2**30 / 1e9
    ctx.record("unit-conversion", {"kv_total_gib": result.kv_total_gib, "kv_total_gib_before": before.kv_total_gib},
               {"kv_total_gb": gb, "kv_total_gb_before": gb_before, "saved_gb": gb_before - gb})
    fit_word = say(f"claim.fit.{result.fit}", lang) if result.fit else ""
    lead = say("s2.kv_changed", lang, kv=result.kv_format.upper(), before_kv=before.kv_format.upper(), gb=num(gb), gib=num(result.kv_total_gib),
               before=num(gb_before), concurrency=result.concurrency, context=f"{result.context_len:,}", per_gpu=num(result.per_gpu_total_gib),
               gpus=result.gpus, gpu=ctx.catalog.gpus[result.gpu].name if result.gpu else "",
               fit=fit_word)
    if draft.blocks and draft.blocks[0].type == "lead":
        draft.blocks[0:1] = [LeadBlock(text=lead), ParagraphBlock(text=draft.blocks[0].text)]
    else:
        draft.blocks.insert(0, LeadBlock(text=lead))
    draft.works.append((before.tool, before.work))
    return draft
