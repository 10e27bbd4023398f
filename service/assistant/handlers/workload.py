"""Workload answers: tier recommendations, single sizing questions, GPU comparisons, rent vs buy."""

from __future__ import annotations

import re

from service.assistant.compose import extract, sizing
from service.assistant.compose.fmt import money, num
from service.assistant.compose.work import assumptions, warnings
from service.assistant.handlers.base import Context, Draft
from service.assistant import consult
from service.assistant.handlers.knowledge import faq
from service.contract import BulletsBlock, Clarification, LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.sizing.cost import cheapest_instance

DEFAULT_GPU = "h100-sxm"


def _currency(ctx: Context) -> str:
    return ctx.slots.currency or ("CNY" if ctx.lang == "zh" else "USD")


def _task(ctx: Context) -> tuple[str, str | None]:
    """(task, a note when it was assumed)."""
    s = ctx.slots
    if s.task:
        return s.task, None
    if s.tokens and s.tokens >= 1e11:
        return "pretrain", ctx.t("Assumed pre-training (hundreds of billions of tokens).", "按预训练处理（数据量达千亿 token 级）。")
    return "fine-tune", ctx.t("Assumed full fine-tuning; say pre-training, LoRA, QLoRA or inference if you meant another task.",
                              "默认按全参数微调处理；如果是预训练、LoRA、QLoRA 或推理，请说明。")


def clarify_model(ctx: Context) -> Draft:
    question = ctx.t("Which model (or how many parameters), and is it pre-training, full fine-tuning, LoRA/QLoRA, or inference?",
                     "请问是哪个模型（或多少参数），要做预训练、全参微调、LoRA/QLoRA，还是推理部署？")
    suggestions = [ctx.t("QLoRA fine-tune Llama 3 8B on 50k samples", "QLoRA 微调 Llama 3 8B，5 万条样本"),
                   ctx.t("Full fine-tune Qwen2.5 14B within 24 hours", "Qwen2.5 14B 全参微调，24 小时内完成"),
                   ctx.t("Pre-train a 7B model on 1T tokens", "7B 模型预训练，1 万亿 token")]
    return Draft(blocks=[LeadBlock(text=question)], clarification=Clarification(question=question, suggestions=suggestions), show_sources=False,
                 follow_ups=suggestions)


def recommend(ctx: Context) -> Draft:
    s = ctx.slots
    if not (s.model or s.params_b):
        # A configuration depends on the model; questions about clusters, storage or networks do not.
        if s.gpus or s.nodes or consult.cue("no_model_needed", ctx.text):
            return faq(ctx)
        return clarify_model(ctx)
    task, note = _task(ctx)
    payload = {
        "model": s.model, "params_b": None if s.model else s.params_b, "task": task, "method": s.method or "full",
        "tokens": s.tokens, "samples": s.samples, "seq_len": s.seq_len if task != "inference" else None, "epochs": s.epochs,
        "deadline_hours": s.deadline_hours, "budget": s.budget, "currency": _currency(ctx), "precision": s.precision,
        "data_sensitivity": s.data_sensitivity or "internal", "yearly_utilization": s.yearly_utilization, "gpu": s.gpu,
        "gpus": s.gpus, "concurrency": s.concurrency or 1, "context_len": s.context_len if task == "inference" else None,
    }
    if task == "pretrain" or task == "inference":
        payload["method"] = "full"
    result, error = ctx.try_run("recommend", payload)
    if result is None and payload["method"] != "qlora" and task == "fine-tune" and (s.gpu or s.gpus):
        # The pinned GPUs cannot hold this method: say so and size the method that fits.
        fallback = "qlora" if payload["method"] == "lora" or (s.gpus or 1) == 1 else "lora"
        result, second = ctx.try_run("recommend", {**payload, "method": fallback})
        if result is None and fallback == "lora":
            result, second = ctx.try_run("recommend", {**payload, "method": "qlora"})
            fallback = "qlora"
        if result is not None:
            note = ctx.t(f"{payload['method'].upper() if payload['method'] != 'full' else 'Full fine-tuning'} does not fit on the GPUs you named ({error.message('en')}); sized for {fallback.upper()} instead.",
                         f"按您指定的 GPU，{'全参数微调' if payload['method'] == 'full' else payload['method'].upper()}放不下（{error.message('zh')}）；下面改按 {fallback.upper()} 配置。")
            payload["method"] = fallback
    if result is None:
        raise error
    blocks = [*sizing.blocks(result, ctx.lang, ctx.catalog), *assumptions([note] if note else []), *warnings(result.work, ctx.lang)]
    works = [("recommend", result.work)]
    for nested in (result.memory, result.timing, result.inference, result.break_even):
        if nested is not None:
            works.append((nested.tool, nested.work))
    topics = ["tiers", "memory", "parallelism", "peft"] if task != "inference" else ["inference"]
    hits = ctx.retrieve(k=2, topics=topics)
    rec_gpu = result.recommended.configuration.gpu
    follow = [ctx.t("What if the budget were half?", "如果预算只有一半呢？")]
    if rec_gpu != "h100-sxm":
        follow.insert(0, ctx.t("What about H100 instead?", "如果换成 H100 呢？"))
    if payload["method"] == "full" and task == "fine-tune":
        follow.append(ctx.t("And with LoRA instead of full fine-tuning?", "改用 LoRA 呢？"))
    return Draft(blocks=blocks, hits=hits, works=works, recommendation=result.model_dump(mode="json"), follow_ups=follow[:3])


def sizing_answer(ctx: Context) -> Draft:
    ask = ctx.understanding.ask or "memory"
    handler = {"memory": _memory, "time": _time, "deadline": _deadline, "budget_tokens": _tokens_budget, "inference": _inference,
               "cost": _cost, "checkpoint": _checkpoint, "allreduce": _allreduce, "data_loader": _data_loader, "compute": _compute,
               "nccl": _nccl}[ask]
    return handler(ctx)


def _finish(ctx: Context, result, *, notes: list[str | NoticeBlock] | None = None, topics: list[str] | None = None,
            follow: list[str] | None = None) -> Draft:
    notices = [n if isinstance(n, NoticeBlock) else NoticeBlock(kind="assumption", text=n) for n in notes or []]
    blocks = [*sizing.blocks(result, ctx.lang, ctx.catalog), *notices, *warnings(result.work, ctx.lang)]
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=topics), works=[(result.tool, result.work)], follow_ups=follow or [
        ctx.t("What configuration would you recommend for this?", "这个任务推荐什么配置？"),
        ctx.t("How long would it take on 8 H100s?", "用 8 张 H100 要多久？")])


def _need_model(ctx: Context) -> Draft | None:
    return None if (ctx.slots.model or ctx.slots.params_b) else clarify_model(ctx)


def _model_ref(ctx: Context) -> dict:
    return {"model": ctx.slots.model, "params_b": None if ctx.slots.model else ctx.slots.params_b}


def _memory(ctx: Context) -> Draft:
    if ctx.slots.task == "inference":
        return _inference(ctx)
    missing = _need_model(ctx)
    if missing:
        return missing
    s = ctx.slots
    task, note = _task(ctx)
    gpus = s.gpus or 1
    payload = {**_model_ref(ctx), "task": task, "method": s.method or "full", "gpu": s.gpu, "gpus": gpus, "seq_len": s.seq_len, "precision": s.precision}
    notes = [note] if note and not s.method else []
    if gpus > 1:
        payload["sharding"] = "zero3"
        notes.append(ctx.t(f"Sharded with ZeRO-3/FSDP across the {gpus} GPUs.", f"按 ZeRO-3/FSDP 在 {gpus} 张卡间切分计算。"))
    result = ctx.run("training-memory", payload)
    return _finish(ctx, result, notes=notes, topics=["memory", "peft", "parallelism"])


def _time(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    s = ctx.slots
    notes: list[str | NoticeBlock] = []
    tokens = s.tokens
    if tokens is None and s.samples is None:
        model = ctx.catalog.models.get(s.model or "")
        if model is not None and model.pretraining_tokens and (s.task in (None, "pretrain")):
            tokens = model.pretraining_tokens
            notes.append(ctx.t(f"Using the published pre-training data size of {model.name}.", f"使用 {model.name} 公开的预训练数据量。"))
        else:
            question = ctx.t("How much data: how many tokens (or samples and tokens per sample)?", "数据量有多少：多少 token（或多少条样本、每条多少 token）？")
            return Draft(blocks=[LeadBlock(text=question)], clarification=Clarification(question=question, suggestions=["1T tokens", "50万条 × 2048 token" if ctx.lang == "zh" else "500k samples × 2048 tokens"]), show_sources=False)
    if s.gpus is None and s.deadline_hours:
        return _deadline(ctx)
    gpu = s.gpu or DEFAULT_GPU
    gpus = s.gpus or 8
    if not s.gpu:
        notes.append(ctx.t("GPU assumed: H100 SXM.", "默认按 H100 SXM 计算。"))
    if not s.gpus:
        notes.append(ctx.t("Assumed one 8-GPU node.", "默认按单节点 8 卡计算。"))
    payload = {**_model_ref(ctx), "tokens": tokens, "samples": s.samples if tokens is None else None, "seq_len": s.seq_len, "epochs": s.epochs or 1.0,
               "gpu": gpu, "gpus": gpus, "precision": s.precision, "method": s.method or "full"}
    result = ctx.run("training-time", payload)
    fit = _fits(ctx, gpu, gpus, s.task or "fine-tune", s.method or "full")
    if fit is not None:
        notes.append(fit)
    return _finish(ctx, result, notes=notes, topics=["utilization", "parallelism"], follow=[
        ctx.t("How many GPUs to finish in a week?", "一周内完成需要几张卡？"), ctx.t("What would it cost?", "大概要花多少钱？")])


def _fits(ctx: Context, gpu: str, gpus: int, task: str, method: str) -> NoticeBlock | None:
    """A warning when the workload does not fit in memory on the GPUs named (time alone would mislead)."""
    memory, error = ctx.try_run("training-memory", {**_model_ref(ctx), "task": task if task != "inference" else "fine-tune", "method": method, "gpu": gpu,
                                                    "gpus": gpus, "sharding": "zero3" if gpus > 1 else "none", "recompute": "full"})
    if memory is None or memory.fit != "does_not_fit":
        return None
    name = ctx.catalog.gpus[gpu].name
    return NoticeBlock(kind="error", text=ctx.t(f"Memory: even with ZeRO-3 and full activation checkpointing this needs {num(memory.per_gpu.total_gib)} GiB per GPU; {name} has {num(memory.gpu_memory_gib)} GiB. Use more GPUs, CPU offload, or LoRA/QLoRA.",
                 f"显存：即使用 ZeRO-3 和完整激活重计算，每卡仍需 {num(memory.per_gpu.total_gib)} GiB，而 {name} 只有 {num(memory.gpu_memory_gib)} GiB。需要更多 GPU、CPU offload，或改用 LoRA/QLoRA。"))


def _deadline(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    s = ctx.slots
    notes = [] if s.gpu else [ctx.t("GPU assumed: H100 SXM.", "默认按 H100 SXM 计算。")]
    result = ctx.run("gpus-for-deadline", {**_model_ref(ctx), "tokens": s.tokens, "samples": s.samples, "seq_len": s.seq_len, "epochs": s.epochs or 1.0,
                                           "gpu": s.gpu or DEFAULT_GPU, "deadline_hours": s.deadline_hours, "precision": s.precision, "method": s.method or "full"})
    return _finish(ctx, result, notes=notes, topics=["utilization", "parallelism"])


def _tokens_budget(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    s = ctx.slots
    result = ctx.run("tokens-in-budget", {**_model_ref(ctx), "gpu": s.gpu or DEFAULT_GPU, "gpus": s.gpus or 8, "hours": s.deadline_hours or 24.0,
                                          "seq_len": s.seq_len, "precision": s.precision})
    return _finish(ctx, result, topics=["utilization"])


def _inference(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    s = ctx.slots
    result = ctx.run("inference", {**_model_ref(ctx), "gpu": s.gpu, "gpus": s.gpus or 1, "concurrency": s.concurrency or 1, "context_len": s.context_len or s.seq_len,
                                   "weights": s.weights or (s.precision if s.precision in ("fp16", "bf16", "fp8") else None)})
    return _finish(ctx, result, topics=["inference"])


def _cost(ctx: Context) -> Draft:
    s = ctx.slots
    if s.gpu_hours:
        result = ctx.run("cost", {"gpu_hours": s.gpu_hours, "gpu": s.gpu, "gpus": 8, "currency": _currency(ctx)})
        draft = _finish(ctx, result, topics=["cost", "spot"])
        if re.search(r"spot|竞价|抢占|preempt", ctx.text, re.I):
            spot = ctx.run("cost", {"gpu_hours": s.gpu_hours, "gpu": s.gpu, "gpus": 8, "currency": _currency(ctx), "pricing": "spot"})
            if spot.cheapest:
                draft.blocks.append(ParagraphBlock(text=ctx.t(f"With spot pricing: about {money(spot.cheapest.total_cost, spot.currency)} ({spot.cheapest.price.name}), if you checkpoint often enough to survive preemption.",
                                            f"按竞价（spot）价格：约 {money(spot.cheapest.total_cost, spot.currency)}（{spot.cheapest.price.name}），前提是检查点足够频繁、能承受抢占。")))
                draft.works.append(("cost (spot)", spot.work))
        return draft
    if (s.model or s.params_b) and (s.tokens or s.samples):
        if s.samples and not s.tokens:
            return recommend(ctx)
        result = ctx.run("cost", {**_model_ref(ctx), "tokens": s.tokens, "gpu": s.gpu, "gpus": s.gpus or 8, "currency": _currency(ctx)})
        return _finish(ctx, result, topics=["cost"])
    return recommend(ctx) if (s.model or s.params_b) else cloud_vs_onprem(ctx)


def _checkpoint(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    result = ctx.run("checkpoint", {**_model_ref(ctx), "gpus": ctx.slots.gpus or 8})
    return _finish(ctx, result, topics=["reliability", "storage"])


def _allreduce(ctx: Context) -> Draft:
    s = ctx.slots
    result = ctx.run("allreduce", {**_model_ref(ctx), "gpu": s.gpu or DEFAULT_GPU, "gpus": max(s.gpus or 8, 2)}) if (s.model or s.params_b) \
        else ctx.run("allreduce", {"gpu": s.gpu or DEFAULT_GPU, "gpus": max(s.gpus or 8, 2), "size_mb": 25})
    return _finish(ctx, result, topics=["networking"])


def _nccl(ctx: Context) -> Draft:
    s = ctx.slots
    gpus = max(s.gpus or 8, 2)
    result = ctx.run("nccl-expected", {"gpu": s.gpu or DEFAULT_GPU, "gpus": gpus, "gpus_per_node": min(gpus, 8), "measured_busbw_gbps": s.measured_busbw_gbps})
    return _finish(ctx, result, notes=[] if s.gpu else [ctx.t("GPU assumed: H100 SXM.", "默认按 H100 SXM 计算。")], topics=["networking", "preflight"],
                   follow=[ctx.t("How do I run nccl-tests across nodes?", "多机怎么跑 nccl-tests？")])


def _data_loader(ctx: Context) -> Draft:
    s = ctx.slots
    if s.samples_per_second and s.bytes_per_sample:
        result = ctx.run("data-loader", {"samples_per_second": s.samples_per_second, "bytes_per_sample": s.bytes_per_sample})
        return _finish(ctx, result, topics=["storage"])
    if not (s.model or s.params_b):
        return _finish(ctx, ctx.run("data-loader", {"tokens_per_second": 1e6}), notes=[ctx.t("Assumed 1M tokens/s of training throughput.", "按每秒 100 万 token 的训练吞吐估算。")], topics=["storage"])
    timing = ctx.run("training-time", {**_model_ref(ctx), "tokens": s.tokens or 1e12, "gpu": s.gpu or DEFAULT_GPU, "gpus": s.gpus or 8, "seq_len": s.seq_len})
    result = ctx.run("data-loader", {"tokens_per_second": timing.tokens_per_second})
    return _finish(ctx, result, topics=["storage"])


def _compute(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    if not (ctx.slots.tokens or ctx.slots.samples):
        return _time(ctx)
    s = ctx.slots
    result = ctx.run("training-compute", {**_model_ref(ctx), "tokens": s.tokens, "samples": s.samples, "seq_len": s.seq_len})
    draft = _finish(ctx, result, topics=["utilization"])
    if s.gpu:
        # "...折合成 H100 大概多少 GPU-hours": the same compute on the GPU named.
        timing = ctx.run("training-time", {**_model_ref(ctx), "tokens": s.tokens, "samples": s.samples, "seq_len": s.seq_len, "gpu": s.gpu, "gpus": s.gpus or 8})
        draft.blocks += sizing.blocks(timing, ctx.lang, ctx.catalog, lead=False)
        draft.works.append((timing.tool, timing.work))
    return draft


def compare(ctx: Context) -> Draft:
    ids = (ctx.slots.compare_gpus or [ctx.slots.gpu or DEFAULT_GPU])[:4]
    specs = []
    for gpu_id in ids:
        g = ctx.catalog.gpus[gpu_id]
        price = cheapest_instance(ctx.catalog, gpu_id)
        specs.append({"gpu": g.id, "name": g.name, "memory_gb": g.memory_gb, "memory_bandwidth_gbps": g.memory_bandwidth_gbps,
                      "bf16_dense_tflops": g.bf16_dense_tflops or g.fp16_dense_tflops, "fp8_dense_tflops": g.fp8_dense_tflops,
                      "scale_up": g.scale_up.name if g.scale_up else "PCIe", "scale_up_gbps": g.scale_up.bandwidth_gbps_bidir if g.scale_up else g.pcie_gbps_per_direction * 2,
                      "tdp_w": g.tdp_w, "usd_per_gpu_hour": price.price_per_gpu_hour if price else None})
    base = specs[-1]
    ratios = {s["gpu"]: {"compute": round(s["bf16_dense_tflops"] / base["bf16_dense_tflops"], 3),
                         "bandwidth": round(s["memory_bandwidth_gbps"] / base["memory_bandwidth_gbps"], 3),
                         "memory": round(s["memory_gb"] / base["memory_gb"], 3)} for s in specs}
    ctx.record("gpu-compare", {"gpus": ids}, {"specs": specs, "ratios_vs": base["gpu"], "ratios": ratios})
    first, r = specs[0], ratios[specs[0]["gpu"]]
    lead = ctx.t(f"**{first['name']} vs {base['name']}: {num(r['compute'])}× the dense BF16 compute, {num(r['bandwidth'])}× the memory bandwidth, {num(r['memory'])}× the memory.**",
                 f"**{first['name']} 对比 {base['name']}：稠密 BF16 算力为 {num(r['compute'])} 倍，显存带宽 {num(r['bandwidth'])} 倍，显存容量 {num(r['memory'])} 倍。**")
    blocks = [LeadBlock(text=lead), _spec_table(ctx, specs), ParagraphBlock(text=ctx.t(
        "Datasheet peaks are not training speed: measured speed-ups depend on precision, model size and software.",
        "数据手册峰值不等于训练速度：实际加速比取决于精度、模型规模和软件栈。"))]
    draft = Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["precision", "hardware", "claims", "evaluation-dimensions"]),
                  follow_ups=[ctx.t("How long would my training take on each?", "我的训练在这两种卡上各要多久？"), ctx.t("Which is cheaper per training run?", "哪种卡完成一次训练更便宜？")])
    s = ctx.slots
    if (s.model or s.params_b) and not (s.tokens or s.samples):
        lines = []
        for gpu_id in ids:
            name = ctx.catalog.gpus[gpu_id].name
            if s.task == "inference":
                r, _ = ctx.try_run("inference", {**_model_ref(ctx), "gpu": gpu_id, "gpus": s.gpus or 1, "concurrency": s.concurrency or 1, "context_len": s.context_len,
                                                 "weights": s.weights})
                if r is not None:
                    speed = f", {num(r.decode_tokens_per_second.typical)} tokens/s" if r.decode_tokens_per_second else ""
                    lines.append(f"{name}: {num(r.per_gpu_total_gib)} GiB / {num(r.gpu_memory_gib)} GiB{speed}")
                    draft.works.append((f"inference ({gpu_id})", r.work))
            else:
                r, _ = ctx.try_run("training-memory", {**_model_ref(ctx), "task": s.task if s.task in ("pretrain", "fine-tune") else "fine-tune",
                                                       "method": s.method or "full", "gpu": gpu_id, "gpus": s.gpus or 1, "sharding": "zero3" if (s.gpus or 1) > 1 else "none"})
                if r is not None:
                    lines.append(f"{name}: {num(r.per_gpu.total_gib)} GiB / {num(r.gpu_memory_gib)} GiB ({sizing.FIT[ctx.lang][r.fit]})")
                    draft.works.append((f"training-memory ({gpu_id})", r.work))
        if lines:
            draft.blocks.append(BulletsBlock(title=ctx.t("For your workload, per GPU:", "按您的任务，每张卡："), items=lines))
    if (s.model or s.params_b) and (s.tokens or s.samples):
        lines = []
        for gpu_id in ids:
            t = ctx.run("training-time", {**_model_ref(ctx), "tokens": s.tokens, "samples": s.samples, "seq_len": s.seq_len, "gpu": gpu_id, "gpus": s.gpus or 8})
            lines.append(f"{ctx.catalog.gpus[gpu_id].name}: {sizing.duration_band(t.hours, ctx.lang)}")
            draft.works.append((f"training-time ({gpu_id})", t.work))
        draft.blocks.append(BulletsBlock(title=ctx.t("For your workload:", "按您的任务估算："), items=lines))
    return draft


def cloud_vs_onprem(ctx: Context) -> Draft:
    s = ctx.slots
    notes = []
    if not s.gpu:
        notes.append(ctx.t("GPU assumed: H100 SXM.", "默认按 H100 SXM 计算。"))
    if s.yearly_utilization is None:
        notes.append(ctx.t("Assumed 60% yearly utilization; tell me yours.", "默认年利用率 60%，请告诉我您的实际预期。"))
    result = ctx.run("break-even", {"gpu": s.gpu or DEFAULT_GPU, "gpus": s.gpus or 8, "utilization": s.yearly_utilization or 0.6, "currency": _currency(ctx)})
    hits = ctx.retrieve(k=3, topics=["cloud-vs-onprem", "cost"])
    passages = extract.select(ctx.text, [h.text for h in hits], max_points=3, headings=[h.heading for h in hits])
    quoted, hits = extract.cite(passages, hits, title=ctx.t("What else decides it", "其他决定因素"))
    blocks = [*sizing.blocks(result, ctx.lang, ctx.catalog), *assumptions(notes), *warnings(result.work, ctx.lang), *quoted]
    if s.data_sensitivity == "restricted":
        blocks.append(NoticeBlock(kind="info", text=ctx.t("Your data may not leave your premises: that alone points to on-prem (or a dedicated compliant region).",
                                                          "您的数据不能出域：仅这一点就意味着应当自建（或使用专属合规区域）。")))
    return Draft(blocks=blocks, hits=hits, works=[("break-even", result.work)], follow_ups=[
        ctx.t("What if utilization were 90%?", "如果利用率是 90% 呢？"), ctx.t("How does a hybrid setup work?", "混合云怎么做？")])


COMPARE_COLUMNS = (  # key, en label, zh label, unit
    ("gpu", "GPU", "GPU", None), ("memory_gb", "memory", "显存", "GB"), ("memory_bandwidth_gbps", "bandwidth", "显存带宽", "GB/s"),
    ("bf16_dense_tflops", "BF16 dense", "BF16 稠密算力", "TFLOPS"), ("fp8_dense_tflops", "FP8 dense", "FP8 稠密算力", "TFLOPS"),
    ("scale_up_gbps", "scale-up", "卡间互联", "GB/s"), ("tdp_w", "TDP", "功耗", "W"), ("usd_per_gpu_hour", "cheapest $/GPU-h", "最低单价 $/GPU·时", "USD"),
)


def _spec_table(ctx: Context, specs: list[dict]) -> TableBlock:
    columns = [TableColumn(key=key, label=ctx.t(en, zh), unit=unit, align="left" if key == "gpu" else "right") for key, en, zh, unit in COMPARE_COLUMNS]
    rows = []
    for s in specs:
        fp8 = f"{num(s['fp8_dense_tflops'])} TFLOPS" if s["fp8_dense_tflops"] else "—"
        price = money(s["usd_per_gpu_hour"], "USD") if s["usd_per_gpu_hour"] else "—"
        rows.append([TableCell(text=s["name"]), TableCell(text=f"{num(s['memory_gb'])} GB", value=s["memory_gb"]),
                     TableCell(text=f"{num(s['memory_bandwidth_gbps'])} GB/s", value=s["memory_bandwidth_gbps"]),
                     TableCell(text=f"{num(s['bf16_dense_tflops'])} TFLOPS", value=s["bf16_dense_tflops"]), TableCell(text=fp8, value=s["fp8_dense_tflops"]),
                     TableCell(text=f"{s['scale_up']} {num(s['scale_up_gbps'])} GB/s", value=s["scale_up_gbps"]),
                     TableCell(text=f"{num(s['tdp_w'])} W", value=s["tdp_w"]), TableCell(text=price, value=s["usd_per_gpu_hour"])])
    return TableBlock(columns=columns, rows=rows)
