"""Workload answers: tier recommendations, single sizing questions, rent vs buy (GPU comparisons: compare.py)."""

from __future__ import annotations

import re

from service.assistant.compose import extract, sizing
from service.assistant.compose.fmt import money, num
from service.assistant.compose.work import assumptions, warnings
from service.assistant.handlers.base import Context, Draft
from service.assistant import consult
from service.assistant.handlers.knowledge import faq
from service.assistant.messages import say
from service.contract import Clarification, LeadBlock, NoticeBlock, ParagraphBlock

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


# A money figure ("$80k a month", "每月 30 万"): a bill the break-even can be weighed against.
MONEY_FIGURE = re.compile(r"[$¥￥]\s*\d|\d[\d,.]*\s*(?:k\b|万|千|元|块|美元|美金|dollars?|usd|rmb|cny)", re.I)


def cloud_vs_onprem(ctx: Context) -> Draft:
    if "cloud_provider_choice" in ctx.understanding.evidence:
        return _providers_first(ctx)
    return _break_even(ctx)


def _providers_first(ctx: Context) -> Draft:
    """Which provider, which billing model: the knowledge leads; the break-even follows only when a utilisation or a bill is given."""
    s = ctx.slots
    draft = faq(ctx)
    draft.follow_ups = [say("cloud.follow_up_break_even", ctx.lang), say("cloud.follow_up_spot", ctx.lang)]
    if s.yearly_utilization is None and not s.budget and not MONEY_FIGURE.search(ctx.text):
        return draft
    result, blocks = _break_even_blocks(ctx)
    draft.blocks += [ParagraphBlock(text=say("cloud.break_even_after", ctx.lang)), *blocks]
    draft.works.append(("break-even", result.work))
    return draft


def _break_even_blocks(ctx: Context) -> tuple:
    s = ctx.slots
    notes = []
    if not s.gpu:
        notes.append(ctx.t("GPU assumed: H100 SXM.", "默认按 H100 SXM 计算。"))
    if s.yearly_utilization is None:
        notes.append(ctx.t("Assumed 60% yearly utilization; tell me yours.", "默认年利用率 60%，请告诉我您的实际预期。"))
    result = ctx.run("break-even", {"gpu": s.gpu or DEFAULT_GPU, "gpus": s.gpus or 8, "utilization": s.yearly_utilization or 0.6, "currency": _currency(ctx)})
    return result, [*sizing.blocks(result, ctx.lang, ctx.catalog), *assumptions(notes), *warnings(result.work, ctx.lang)]


def _break_even(ctx: Context) -> Draft:
    s = ctx.slots
    result, blocks = _break_even_blocks(ctx)
    hits = ctx.retrieve(k=3, topics=["cloud-vs-onprem", "cost"])
    passages = extract.select(ctx.text, [h.text for h in hits], max_points=3, headings=[h.heading for h in hits])
    quoted, hits = extract.cite(passages, hits, title=ctx.t("What else decides it", "其他决定因素"))
    blocks += quoted
    if s.data_sensitivity == "restricted":
        blocks.append(NoticeBlock(kind="info", text=ctx.t("Your data may not leave your premises: that alone points to on-prem (or a dedicated compliant region).",
                                                          "您的数据不能出域：仅这一点就意味着应当自建（或使用专属合规区域）。")))
    return Draft(blocks=blocks, hits=hits, works=[("break-even", result.work)], follow_ups=[
        ctx.t("What if utilization were 90%?", "如果利用率是 90% 呢？"), ctx.t("How does a hybrid setup work?", "混合云怎么做？")])
