"""Tier recommendation: a Workload in, a concrete configuration with time, cost, memory fit,
bottleneck warnings and alternatives out.

Search: for every GPU type that can be rented (or the one the user pinned), find
the fewest GPUs whose per-GPU memory fits (trying ZeRO-2, then ZeRO-3/FSDP, with
selective then full recomputation) and that finish by the deadline at typical
MFU; a rented instance's spare GPUs are used. The recommendation is the smallest
tier that meets the deadline and budget, and the cheapest option within it;
alternatives are the fastest, the cheapest overall, and the one with the fewest
GPUs.
"""

from __future__ import annotations

import math

from service.catalog import Catalog, GpuSpec, TierProfile
from service.errors import InputConflictError, Problem
from service.sizing import references as ref
from service.sizing.advice import deployment_advice, warn_bottlenecks
from service.sizing.compute import (
    TrainingTimeRequest,
    default_goodput,
    flops_per_token,
    mfu_band,
    resolve_tokens,
    round_gpus,
    run_hours,
    training_time,
)
from service.sizing.memory import (
    TIGHT_ABOVE,
    TrainingMemoryRequest,
    check_method,
    estimate_training_memory,
    plan_memory,
    resolve_precision,
)
from service.sizing.job_cost import layout_hours, note_unlisted, price_job, rank, shown_pricings
from service.sizing.recommend_inference import recommend_inference
from service.sizing.recommendation import (
    MAX_GPUS,
    TIER_RANK,
    Option,
    Recommendation,
    Workload,
    Candidate,
    option_of,
    rental_price,
    tier_for,
)
from service.sizing.shapes import ModelShape, resolve_shape
from service.sizing.storage import CheckpointRequest, checkpoint
from service.sizing.work import Ledger, NullLedger, relabel, sig

DEFAULT_TARGET_HOURS = 30 * 24.0
SHARDINGS = ("zero2", "zero3")


def recommend(req: Workload, catalog: Catalog) -> Recommendation:
    ledger = Ledger()
    shape = resolve_shape(req, catalog, ledger)
    ledger.field(req, "task")
    if req.task != "inference":
        check_method(req.task, req.method, req.precision)
        ledger.field(req, "method")
    pinned = catalog.gpu(req.gpu) if req.gpu else None
    currency = ledger.field(req, "currency")
    if req.task == "inference":
        return recommend_inference(req, catalog, shape, pinned, ledger)
    tokens = seq_len = None
    if req.tokens is not None or req.samples is not None:
        tokens, seq_len = resolve_tokens(req, shape, ledger)
    else:
        seq_len = ledger.field(req, "seq_len", "tokens", "default sequence length", default=2048)
        ledger.warn("no_tokens", "No dataset size given: the configuration is sized for memory only; give tokens or samples for time and cost.",
                    "未给出数据量：配置仅按显存确定；给出 token 数或样本数才能估算时间和费用。", "info")
    deadline = req.deadline_hours
    if deadline is not None:
        ledger.given("deadline_hours", deadline, "h")
    elif tokens is not None:
        ledger.default("target_hours", DEFAULT_TARGET_HOURS, "h", "no deadline given: sized to finish within 30 days")
    if req.budget is not None:
        ledger.given("budget", req.budget, currency)
    pricing = ledger.field(req, "pricing")
    # The pinned GPU is the answer; the others are sized too, as alternatives.
    gpus_considered = [g for g in catalog.gpus.values() if catalog.instances_for(g.id) and g is not pinned]
    if pinned:
        gpus_considered.insert(0, pinned)
    candidates = []
    target = deadline or DEFAULT_TARGET_HOURS
    for gpu in gpus_considered:
        cand = _size_on(gpu, shape, req, tokens, seq_len, target, gpu is pinned, req.gpus if gpu is pinned or not pinned else None)
        if cand is None:
            continue
        cand.price = rental_price(catalog, gpu, cand.gpus, pricing, currency, req.fx_cny_per_usd)
        if req.gpus is None and cand.price is not None and cand.price.gpu_count > cand.gpus:
            # The whole instance is billed anyway: use all of its GPUs.
            price = cand.price
            cand = _size_on(gpu, shape, req, tokens, seq_len, target, pinned is not None, price.gpu_count) or cand
            cand.price = price
        candidates.append(cand)
    if req.layout is not None and tokens is not None:
        def resize(cand: Candidate, n: int) -> Candidate | None:
            bigger = _size_on(cand.gpu, shape, req, tokens, seq_len, target, cand.gpu is pinned, n)
            if bigger is not None:
                bigger.price = rental_price(catalog, cand.gpu, n, pricing, currency, req.fx_cny_per_usd)
            return bigger

        candidates = _time_on_layout(req, catalog, candidates, tokens, seq_len, resize, ledger)
    if not candidates or (pinned and candidates[0].gpu is not pinned):
        raise _does_not_fit(req, pinned)
    return _choose(req, catalog, shape, tokens, seq_len, candidates, ledger, pinned)


def _time_on_layout(req: Workload, catalog: Catalog, candidates: list[Candidate], tokens: float, seq_len: int, resize,
                    ledger: Ledger) -> list[Candidate]:
    """A stated layout: each candidate's time from the step-time model on its rented instance (the MFU band where it
    cannot run). A GPU count the layout does not divide is raised to the next multiple of tp·pp·cp (unless pinned)."""
    layout = req.layout
    ledger.given("layout", ", ".join(f"{k}={v}" for k, v in layout.model_dump(exclude_unset=True).items()) or "defaults")
    if req.method != "full":
        ledger.warn("layout_full_only", "The step-time model covers full training; LoRA/QLoRA times stay on the MFU band.",
                    "步时模型只覆盖全参训练；LoRA/QLoRA 的时间仍按 MFU 区间估算。", "info")
        return candidates
    model = {"model": req.model} if req.model else {"params_b": req.params_b}
    unit = layout.model_parallel
    out = []
    for cand in candidates:
        if cand.gpus % unit and req.gpus is None:
            n = -(-cand.gpus // unit) * unit
            cand = resize(cand, n if n <= 8 else -(-n // math.lcm(unit, 8)) * math.lcm(unit, 8)) or cand
        if cand.gpus % unit:
            ledger.warn(f"layout_not_run.{cand.gpu.id}", f"{cand.gpus} × {cand.gpu.name} is not a multiple of tp·pp·cp ({unit}): its time is the MFU band's.",
                        f"{cand.gpus} 张 {cand.gpu.name} 不是 tp·pp·cp（{unit}）的整数倍：其时间按 MFU 区间估算。", "info")
        else:
            inst = catalog.instances[cand.price.instance] if cand.price is not None else None
            hours = layout_hours(catalog, model, cand.gpu.id, cand.gpus, tokens, seq_len, layout, cand.precision, inst, ledger, cand.gpu.id)
            if hours is not None:
                cand.hours, cand.time_basis = hours, "step-time"
        out.append(cand)
    return out


def _does_not_fit(req: Workload, pinned: GpuSpec | None) -> InputConflictError:
    if pinned and req.gpus:
        return InputConflictError([Problem("gpus", f"{req.gpus} × {pinned.name} cannot hold this workload, even with ZeRO-3 and full activation recomputation",
                                           f"{req.gpus} 张 {pinned.name} 放不下这个工作负载，即使使用 ZeRO-3 和完整激活重计算也不行",
                                           allowed="more GPUs, a larger GPU, or method=lora/qlora")])
    name = pinned.name if pinned else "any catalog GPU"
    return InputConflictError([Problem("gpus", f"this workload does not fit on {name} with up to {MAX_GPUS} GPUs",
                                       f"在最多 {MAX_GPUS} 张 {name} 上也放不下这个工作负载")])




def _size_on(gpu: GpuSpec, shape: ModelShape, req: Workload, tokens: float | None, seq_len: int,
             target_hours: float, pinned: bool, fixed_gpus: int | None) -> Candidate | None:
    precision = req.precision or ("bf16" if gpu.supports_bf16 else "fp16")
    if (precision == "bf16" and not gpu.supports_bf16) or (precision == "fp8" and not gpu.supports_fp8):
        if pinned:
            resolve_precision(precision, gpu, NullLedger())  # raises the field-named conflict
        return None
    budget = gpu.memory_gb * 2**30 * TIGHT_ABOVE
    overhead = 2.0 * 2**30
    flash = gpu.supports_flash_attention_2
    best: tuple[int, str, str, float] | None = None
    for recompute in ("selective", "full"):
        plan = plan_memory(shape, method=req.method, precision=precision, optimizer="adamw", convention="textbook-16", recompute=recompute,
                           flash=flash, seq_len=seq_len, micro_batch=1)
        for sharding in ("none", *SHARDINGS):
            dp = plan.min_data_parallel(sharding, budget, overhead)
            if dp is None or (sharding == "none" and dp > 1):
                continue
            n = round_gpus(dp)
            if fixed_gpus is not None:
                if fixed_gpus < n:
                    continue
                n = fixed_gpus
            if n > MAX_GPUS:
                continue
            if best is None or n < best[0]:
                best = (n, sharding if n > 1 else "none", recompute, plan.per_gpu(sharding if n > 1 else "none", n, overhead)["total"])
        if best is not None and best[0] == 1:
            break
    if best is None:
        return None
    n, sharding, recompute, per_gpu = best
    hours = None
    if tokens is not None:
        if fixed_gpus is None:
            per_token = flops_per_token(shape, seq_len, req.method, NullLedger())
            peak = (gpu.dense_tflops(precision) or gpu.fp16_dense_tflops) * 1e12
            band = mfu_band(shape, gpu, precision, n, seq_len, NullLedger())
            needed = per_token * tokens / (target_hours * 3600 * peak * band.typical * default_goodput(n))
            if needed > n:
                # Capped: an impossible deadline still yields the fastest option, flagged by the chooser.
                n = min(round_gpus(needed), MAX_GPUS)
                sharding = sharding if sharding != "none" else "zero2"
                plan = plan_memory(shape, method=req.method, precision=precision, optimizer="adamw", convention="textbook-16",
                                   recompute=recompute, flash=flash, seq_len=seq_len, micro_batch=1)
                per_gpu = plan.per_gpu(sharding, n, overhead)["total"]
        hours = run_hours(shape, gpu, n, tokens, seq_len, req.method, precision)
    return Candidate(gpu=gpu, gpus=n, precision=precision, sharding=sharding, recompute=recompute, per_gpu_bytes=per_gpu, hours=hours, price=None)


def _choose(req: Workload, catalog: Catalog, shape: ModelShape, tokens: float | None, seq_len: int,
            candidates: list[Candidate], ledger: Ledger, pinned: GpuSpec | None) -> Recommendation:
    deadline, budget = req.deadline_hours, req.budget

    def meets(c: Candidate) -> bool | None:
        return None if deadline is None or c.hours is None else c.hours.typical <= deadline

    def within(c: Candidate) -> bool | None:
        cost = c.cost()
        return None if budget is None or cost is None else cost.typical <= budget

    def cheapness(c: Candidate) -> tuple[float, float]:
        cost = c.cost()
        primary = cost.typical if cost else (c.cost_per_hour if c.cost_per_hour is not None else math.inf)
        return primary, c.hours.typical if c.hours else c.gpus

    def speed(c: Candidate) -> tuple[float, float]:
        return (c.hours.typical if c.hours else c.gpus), cheapness(c)[0]

    priced = [c for c in candidates if c.price is not None] or candidates
    acceptable = [c for c in priced if meets(c) is not False and within(c) is not False]

    def fit_for_tier(c: Candidate) -> tuple:
        # The smallest deployment that does the job; within it the tier's own GPU class, then the cheapest.
        tier = tier_for(c.gpus)
        return TIER_RANK[tier], c.gpu.id not in catalog.tiers[tier].gpu_options, cheapness(c)

    if pinned:
        chosen = candidates[0]
        if meets(chosen) is False or within(chosen) is False:
            _explain_miss([chosen], deadline, budget, req.currency, meets, within, speed, cheapness, ledger)
    elif acceptable:
        chosen = min(acceptable, key=fit_for_tier)
    else:
        chosen = min(priced, key=speed)
        _explain_miss(priced, deadline, budget, req.currency, meets, within, speed, cheapness, ledger)
    picks: list[tuple[str, Candidate]] = [("recommended", chosen)]
    if tokens is not None:
        picks.append(("fastest", min(priced, key=speed)))
    picks.append(("cheapest", min(priced, key=cheapness)))
    picks.append(("fewest-gpus", min(priced, key=lambda c: (c.gpus, cheapness(c)[0]))))
    others = [c for c in (acceptable or priced) if c.gpu.id != chosen.gpu.id]
    if others:
        picks.append(("other-gpu", min(others, key=fit_for_tier)))
    seen: set[tuple[str, int]] = set()
    options: list[Option] = []
    for label, cand in picks:
        key = (cand.gpu.id, cand.gpus)
        if key in seen:
            continue
        seen.add(key)
        options.append(option_of(label, cand, catalog, meets(cand), within(cand)))
    rec = options[0]
    warn_bottlenecks(chosen, rec.configuration, req, ledger)
    memory = estimate_training_memory(TrainingMemoryRequest(
        model=req.model, params_b=req.params_b, task="pretrain" if req.task == "pretrain" else "fine-tune", method=req.method,
        precision=chosen.precision, sharding=chosen.sharding, gpus=chosen.gpus, seq_len=seq_len, recompute=chosen.recompute,
        gpu=chosen.gpu.id), catalog)
    timing = None
    if tokens is not None:
        timing = training_time(TrainingTimeRequest(model=req.model, params_b=req.params_b, tokens=tokens, seq_len=seq_len, method=req.method,
                                                   gpu=chosen.gpu.id, gpus=chosen.gpus, precision=chosen.precision), catalog)
    ckpt = checkpoint(CheckpointRequest(model=req.model, params_b=req.params_b, gpus=chosen.gpus,
                                        contents="full" if req.method == "full" else "weights"), catalog)
    ranking = rank([job for c in priced if c.hours is not None and c.price is not None
                    if (job := price_job(catalog, c.gpu.id, c.gpus, c.hours, c.time_basis, req.pricing, req.currency, req.fx_cny_per_usd, ledger))])
    if ranking:
        note_unlisted(ledger, shown_pricings(ranking), req.pricing)
    deployment, reason_en, reason_zh, be = deployment_advice(req, chosen, catalog, ledger)
    profile = catalog.tiers[rec.tier]
    _record_choice(ledger, candidates, chosen, profile)
    memory, timing, ckpt = (_chosen_by_recommender(r, req) for r in (memory, timing, ckpt))
    return Recommendation(
        task=req.task, method=req.method, model=shape.name, params_b=sig(shape.params / 1e9), tokens=tokens, currency=req.currency,
        tier=rec.tier, tier_name_en=profile.name_en, tier_name_zh=profile.name_zh, recommended=rec, alternatives=options[1:],
        deployment=deployment, deployment_reason_en=reason_en, deployment_reason_zh=reason_zh, checkpoint_gb=ckpt.size_gb,
        memory=memory, timing=timing, break_even=be, ranking=ranking, work=ledger.work(),
    )


def _chosen_by_recommender(result, req: Workload):
    """Nested results: values the recommender picked are 'derived', not the user's."""
    if result is None:
        return None
    stated = {"model", "params_b", "tokens", "samples", "seq_len", "epochs", "method", "task", "precision"} & req.model_fields_set
    if req.gpu:
        stated.add("gpu")
    if req.gpus:
        stated.add("gpus")
    return result.model_copy(update={"work": relabel(result.work, stated, provenance="derived", source="chosen by the recommender")})


def _record_choice(ledger: Ledger, candidates: list[Candidate], chosen: Candidate, profile: TierProfile) -> None:
    ledger.step("search.candidates", "GPU types sized (memory fit, then deadline)", len(candidates), "GPU types")
    ledger.step("choice.gpus", "fewest GPUs whose per-GPU memory fits (ZeRO-2/3, recomputation), raised to meet the deadline", chosen.gpus, "GPUs")
    ledger.step("choice.per_gpu_memory", "model states / shards + activations + buffers + overhead", chosen.per_gpu_bytes, "bytes")
    if chosen.hours is not None:
        formula = "the step-time model on the stated layout / goodput" if chosen.time_basis == "step-time" else "FLOPs / (gpus·peak·MFU) / goodput"
        ledger.step("choice.hours_typical", formula, chosen.hours.typical, "h")
    cost = chosen.cost()
    if cost is not None:
        ledger.step("choice.cost_typical", "instances · price/hour · hours", cost.typical, chosen.price.pricing if chosen.price else "")
    for source in profile.sources:
        ledger.cite(source.title, source.url)
    for c in (ref.ZERO, ref.LLAMA3, ref.SKYPILOT):
        ledger.cite(c.title, c.url)


def _explain_miss(priced, deadline, budget, currency, meets, within, speed, cheapness, ledger: Ledger) -> None:
    if deadline is not None and not any(meets(c) for c in priced):
        fastest = min(priced, key=speed)
        ledger.warn("deadline_missed", f"No catalog option finishes within {deadline:g} h; the fastest found takes {fastest.hours.typical:,.0f} h at typical MFU.",
                    f"目录中没有能在 {deadline:g} 小时内完成的方案；找到的最快方案在典型 MFU 下需要 {fastest.hours.typical:,.0f} 小时。", "critical")
    if budget is not None and not any(within(c) for c in priced):
        cheapest = min(priced, key=cheapness)
        cost = cheapest.cost()
        if cost is not None:
            ledger.warn("over_budget", f"No option fits the budget of {budget:,.0f} {currency}; the cheapest costs about {cost.typical:,.0f} {currency}.",
                        f"没有方案能控制在 {budget:,.0f} {currency} 的预算内；最便宜的方案约需 {cost.typical:,.0f} {currency}。", "critical")
