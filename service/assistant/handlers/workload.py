"""Workload answers: single sizing questions, rent vs buy (tier recommendations: recommendation.py; GPU comparisons: compare.py)."""

from __future__ import annotations

import re

from service.assistant.compose import fit, sizing
from service.assistant.compose.fmt import duration, model_label, money, num
from service.assistant.compose.work import warnings
from service.assistant.handlers.latency_target import concurrency_lead, latency_estimate
from service.assistant.network import stated_network
from service.assistant.handlers.base import Context, Draft, model_ref
from service.assistant.handlers import card_capacity, expert_sizing, serving_load
from service.assistant import cues, followup
from service.assistant.handlers.knowledge import faq
from service.sizing.defaults import DEFAULT_GPU
from service.assistant.handlers.recommendation import _currency, clarify_model, context_query, recommend, task_of
from service.assistant.handlers.rental import listed_price_note, platform_in, quoted_price
from service.assistant.handlers.rent_or_buy import cloud_vs_onprem
from service.assistant.messages import say
from service.contract import Clarification, LeadBlock, NoticeBlock, ParagraphBlock


def sizing_answer(ctx: Context) -> Draft:
    ask = ctx.understanding.ask or "memory"
    handler = {"memory": _memory, "time": _time, "deadline": _deadline, "budget_tokens": _tokens_budget, "inference": _inference,
               "cost": _cost, "checkpoint": _checkpoint, "allreduce": _allreduce, "data_loader": _data_loader, "compute": _compute,
               "nccl": _nccl, "gpu_count": recommend}[ask]
    return handler(ctx)


def _finish(ctx: Context, result, *, notes: list[str | NoticeBlock] | None = None, topics: list[str] | None = None,
            follow: list[str] | None = None) -> Draft:
    notices = [n if isinstance(n, NoticeBlock) else NoticeBlock(kind="assumption", text=n) for n in notes or []]
    blocks = [*sizing.blocks(result, ctx.lang, ctx.catalog), *notices, *warnings(result.work, ctx.lang)]
    return Draft(blocks=blocks, hits=ctx.retrieve(context_query(ctx, topics), k=2, topics=topics), works=[(result.tool, result.work)], follow_ups=follow or [
        say("workload.follow_recommend", ctx.lang), say("workload.follow_8_h100", ctx.lang)])


def _need_model(ctx: Context) -> Draft | None:
    """None when a model is known; else the knowledge answer when the question needs no model (how often to
    checkpoint given a failure rate; FP8 or INT8, LoRA or full), else one question asking for the model."""
    if ctx.slots.model or ctx.slots.params_b:
        return None
    if ctx.understanding.ask == "checkpoint" or len(_options_named(ctx.text)) >= 2:
        draft = faq(ctx)
        draft.follow_ups = [say("workload.follow_with_model", ctx.lang), *draft.follow_ups][:3]
        return draft
    if ctx.understanding.ask in (None, "memory", "inference"):
        capacity = card_capacity.answer(ctx)  # "4090 能微调多大的模型": what fits on the card named
        if capacity is not None:
            return capacity
    return clarify_model(ctx)


def _options_named(text: str) -> set[str]:
    """The distinct options (precisions, fine-tuning methods, sharding) a question names."""
    return {m.group(0).lower().replace("-", "") for m in cues.patterns("consult_cues.yaml")["option_terms"].finditer(text)}



def _memory(ctx: Context) -> Draft:
    if ctx.slots.task == "inference" or KV_QUESTION.search(ctx.text):
        return _inference(ctx)  # "KV cache of a 70B at 32k, batch 16": a serving-memory question, not a training one
    if ctx.slots.budget and TOKENS_QUESTION.search(ctx.text):
        return _tokens_budget(ctx)  # "$30k of credits: how many tokens can we afford": tokens in the GPU-hours the money buys
    missing = _need_model(ctx)
    if missing:
        return missing
    s = ctx.slots
    task, note = task_of(ctx)
    gpus = s.gpus or 1
    payload = {**model_ref(ctx), "task": task, "method": s.method or "full", "gpu": s.gpu, "gpus": gpus, "seq_len": s.seq_len, "precision": s.precision,
               **({"optimizer": s.optimizer} if s.optimizer else {})}
    notes = [note] if note and not s.method else []
    if gpus > 1:
        payload["sharding"] = "zero3"
        notes.append(say("workload.sharded", ctx.lang, gpus=gpus))
    result = ctx.run("training-memory", payload)
    if s.optimizer:
        notes.append(say(f"workload.optimizer.{s.optimizer}", ctx.lang, gib=num(result.per_gpu.optimizer_gib)))
    draft = _finish(ctx, result, notes=notes, topics=["memory", "peft", "parallelism"])
    if result.fit is not None:
        # Where the memory goes (total in GB too) and, when it does not fit, what to do about it.
        draft.blocks[2:2] = [fit.breakdown(ctx, result), *fit.remedies(ctx, result, "training-memory", {k: v for k, v in payload.items() if k != "gpu"})]
        # A multi-GPU plan that does not fit, or training after a serving plan: the model states in all lead (they decide it)
        states = expert_sizing.states_on_their_gpus(ctx, plan_follows=False) \
            if gpus > 1 and ("training_after_serving" in ctx.understanding.evidence or result.fit == "does_not_fit") else None
        if states and draft.blocks[0].type == "lead":
            # "full fine-tuning on that 8-GPU node?": the whole model's states in GB, then each GPU's share, lead
            draft.blocks[0:1] = [states[0], ParagraphBlock(text=draft.blocks[0].text)]
    return draft


def _time(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    s = ctx.slots
    if CHECKPOINT.search(ctx.text) and not (s.tokens or s.samples):
        return _checkpoint(ctx)  # "how long does saving the checkpoint take": the checkpoint tool, not a training run
    if FLOPS_QUESTION.search(ctx.text) and (s.tokens or s.samples):
        return _compute(ctx)  # "how many FLOPs in all, and GPU-hours on H100": the compute, then the time on the GPU named
    notes: list[str | NoticeBlock] = []
    tokens = s.tokens
    if tokens is None and s.samples is None:
        model = ctx.catalog.models.get(s.model or "")
        if model is not None and model.pretraining_tokens and (s.task in (None, "pretrain")):
            tokens = model.pretraining_tokens
            notes.append(say("workload.published_tokens", ctx.lang, model=model.name))
        else:
            question = say("workload.clarify_data", ctx.lang)
            suggestions = ["1T tokens", say("workload.suggest_data_samples", ctx.lang)]  # "1T tokens" reads the same in both languages
            return Draft(blocks=[LeadBlock(text=question)], clarification=Clarification(question=question, suggestions=suggestions), show_sources=False)
    if s.gpus is None and s.deadline_hours:
        return _deadline(ctx)
    gpu = s.gpu or DEFAULT_GPU
    gpus = s.gpus or 8
    if not s.gpu:
        notes.append(say("workload.assumed_gpu", ctx.lang))
    if not s.gpus:
        notes.append(say("workload.assumed_node", ctx.lang))
    payload = {**model_ref(ctx), "tokens": tokens, "samples": s.samples if tokens is None else None, "seq_len": s.seq_len, "epochs": s.epochs or 1.0,
               "gpu": gpu, "gpus": gpus, "precision": s.precision, "method": s.method or "full"}
    result = ctx.run("training-time", payload)
    fit = _fits(ctx, gpu, gpus, s.task or "fine-tune", s.method or "full")
    if fit is not None:
        notes.append(fit)
    return _finish(ctx, result, notes=notes, topics=["utilization", "parallelism"], follow=[
        say("workload.follow_week", ctx.lang), say("workload.follow_cost", ctx.lang)])


def _fits(ctx: Context, gpu: str, gpus: int, task: str, method: str) -> NoticeBlock | None:
    """A warning when the workload does not fit in memory on the GPUs named (time alone would mislead)."""
    memory, error = ctx.try_run("training-memory", {**model_ref(ctx), "task": task if task != "inference" else "fine-tune", "method": method, "gpu": gpu,
                                                    "gpus": gpus, "sharding": "zero3" if gpus > 1 else "none", "recompute": "full"})
    if memory is None or memory.fit != "does_not_fit":
        return None
    name = ctx.catalog.gpus[gpu].name
    return NoticeBlock(kind="error", text=say("workload.does_not_fit", ctx.lang, need=num(memory.per_gpu.total_gib), gpu=name, have=num(memory.gpu_memory_gib)))


def _deadline(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    s = ctx.slots
    notes = [] if s.gpu else [say("workload.assumed_gpu", ctx.lang)]
    result = ctx.run("gpus-for-deadline", {**model_ref(ctx), "tokens": s.tokens, "samples": s.samples, "seq_len": s.seq_len, "epochs": s.epochs or 1.0,
                                           "gpu": s.gpu or DEFAULT_GPU, "deadline_hours": s.deadline_hours, "precision": s.precision, "method": s.method or "full"})
    draft = _finish(ctx, result, notes=notes, topics=["utilization", "parallelism"])
    floor = _memory_floor(ctx, result)
    if floor is not None and draft.blocks and draft.blocks[0].type == "lead":
        # the count that holds the training state leads; the compute-only count follows as the reason it is not enough
        draft.blocks[0:1] = [LeadBlock(text=floor.text), ParagraphBlock(text=draft.blocks[0].text)]
    return draft


MEMORY_FLOOR_SIZES = (2, 4, 8, 16, 32, 64, 128)


def _memory_floor(ctx: Context, deadline) -> ParagraphBlock | None:
    """A deadline met by fewer GPUs than the training state needs ("full fine-tune 14B in a week": 0.6 H100 of compute,
    about 230 GiB of state): the smallest sharded count that holds it, and the run's time on it."""
    s = ctx.slots
    method = s.method or "full"
    task = "pretrain" if s.task == "pretrain" else "fine-tune"
    if method != "full":
        return None
    base = {**model_ref(ctx), "task": task, "method": method, "gpu": deadline.gpu}
    one, _ = ctx.try_run("training-memory", {**base, "gpus": 1})
    if one is None or one.fit in ("fits", "tight"):
        return None
    for gpus in MEMORY_FLOOR_SIZES:
        if gpus <= deadline.gpus_rounded:
            continue
        memory, _ = ctx.try_run("training-memory", {**base, "gpus": gpus, "sharding": "zero3"})
        if memory is not None and memory.fit in ("fits", "tight"):
            timing, _ = ctx.try_run("training-time", {**model_ref(ctx), "tokens": deadline.tokens, "gpu": deadline.gpu, "gpus": gpus,
                                                      "precision": deadline.precision})
            if timing is None:
                return None
            return ParagraphBlock(text=say("workload.deadline_memory_floor", ctx.lang, method=say(f"consult.method.{method}", ctx.lang),
                                           model=model_label(ctx.catalog, s.model, s.params_b), states=num(one.model_states_total_gib),
                                           gpus=gpus, gpu=ctx.catalog.gpus[deadline.gpu].name, per_gpu=num(memory.per_gpu.weights_gib + memory.per_gpu.gradients_gib
                                                                                                          + memory.per_gpu.optimizer_gib),
                                           compute=num(deadline.gpus.typical), time=duration(timing.hours.typical, ctx.lang),
                                           low=duration(timing.hours.low, ctx.lang), high=duration(timing.hours.high, ctx.lang)))
    return None


def _tokens_budget(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    s = ctx.slots
    gpu, gpus, hours, notes = s.gpu or DEFAULT_GPU, s.gpus or 8, s.deadline_hours or 24.0, []
    if s.budget and not s.deadline_hours:
        # A money budget: the hours it buys on the cheapest listed instance of that GPU, then the tokens in those hours.
        price = ctx.run("cost", {"gpu_hours": gpus, "gpu": gpu, "gpus": gpus, "currency": _currency(ctx)})
        if price.cheapest:
            per_hour = price.cheapest.price.price_per_gpu_hour
            hours = s.budget / (per_hour * gpus)
            ctx.record("budget-to-hours", {"budget": s.budget, "price_per_gpu_hour": per_hour, "gpus": gpus},
                       {"gpu_hours": s.budget / per_hour, "hours": hours})
            notes.append(say("sizing_expert.budget_hours", ctx.lang, budget=money(s.budget, _currency(ctx)), price=money(per_hour, _currency(ctx)),
                             instance=price.cheapest.price.name, gpu_hours=num(s.budget / per_hour), gpus=gpus, hours=num(hours)))
    result = ctx.run("tokens-in-budget", {**model_ref(ctx), "gpu": gpu, "gpus": gpus, "hours": hours, "seq_len": s.seq_len, "precision": s.precision})
    return _finish(ctx, result, notes=notes, topics=["utilization", "cost"])


def _inference(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    s = ctx.slots
    concurrency = s.concurrency or serving_load.batch_in(ctx.text) or 1
    kv = followup.kv_format(ctx.text)  # "and with an fp8 KV cache?": the same plan, its KV cache in that format
    payload = {**model_ref(ctx), "gpu": s.gpu, "gpus": s.gpus or 1, "concurrency": concurrency, "context_len": s.context_len or s.seq_len,
               "weights": s.weights or (s.precision if s.precision in ("fp16", "bf16", "fp8") else None)}
    result = ctx.run("inference", {**payload, "kv_cache": kv})
    if kv:
        return serving_load.kv_changed(ctx, result, ctx.run("inference", payload), _finish(ctx, result, topics=["inference"]))
    if (s.task == "inference" and s.gpus is None and (s.gpu is None or result.fit == "does_not_fit") and not KV_QUESTION.search(ctx.text)
            and not _memory_asked(ctx)):
        plan = serving_load.serving_plan(ctx, result, recommend)
        if plan is not None:
            return plan
    draft = _finish(ctx, result, topics=["inference"])
    extra = [block for block in [fit.kv_formula(ctx, result)] if block is not None]
    if KV_QUESTION.search(ctx.text):
        extra.append(fit.kv_total(ctx, result))  # the total for the context (and batch) asked about, in GB
    if extra and KV_QUESTION.search(ctx.text) and draft.blocks and draft.blocks[0].type == "lead":
        # "KV cache per token?": the formula with the model's own shape is the answer; the serving total follows.
        draft.blocks[0], extra[0] = LeadBlock(text=extra[0].text), ParagraphBlock(text=draft.blocks[0].text)
    if not KV_QUESTION.search(ctx.text) or s.task == "inference":
        extra += serving_load.serving_options(ctx, result)  # engine and quantisation for a serving plan
    if result.fit is not None:
        extra += fit.remedies(ctx, result, "inference", {**model_ref(ctx), "gpus": s.gpus or 1, "concurrency": s.concurrency or 1,
                                                        "context_len": s.context_len or s.seq_len, "weights": result.weights_format})
    draft.blocks[2:2] = extra
    estimate = concurrency_lead(ctx, result) or latency_estimate(ctx, result)
    if estimate and draft.blocks and draft.blocks[0].type == "lead":
        # "what latency should I expect?": the time per token and per answer lead; whether it fits follows.
        draft.blocks[0:1] = [LeadBlock(text=estimate[0].text), *estimate[1:], ParagraphBlock(text=draft.blocks[0].text)]
    return draft


def _memory_asked(ctx: Context) -> bool:
    """"How much memory does a 34B need for inference?": the memory is the answer, not a configuration to buy."""
    case = getattr(ctx.understanding, "case", None)
    # A load ("150 concurrent users") is served by a configuration: the plan names the cards and their count.
    return (case is not None and case.act == "quantity" and ctx.slots.gpu is None and ctx.slots.concurrency is None
            and "memory" in case.mentions("topic"))


FLOPS_QUESTION = re.compile(r"flops|算力需求|计算量|多少次(?:浮点)?运算", re.I)
TOKENS_QUESTION = re.compile(r"how many tokens|多少\s*(?:个)?\s*token|tokens? (?:can|could) we", re.I)
CHECKPOINT = re.compile(r"checkpoint|ckpt|检查点|存档", re.I)
KV_QUESTION = re.compile(r"kv[ _-]?cache|\bkv\b|键值缓存", re.I)


SPOT_WORDS = re.compile(r"spot|竞价|抢占|preempt", re.I)


def _cost(ctx: Context) -> Draft:
    s = ctx.slots
    if s.budget and (s.model or s.params_b) and not s.tokens and TOKENS_QUESTION.search(ctx.text):
        return _tokens_budget(ctx)  # the money is given; the question is what it buys
    if s.gpu_hours:
        result = _priced(ctx, {"gpu_hours": s.gpu_hours, "gpu": s.gpu, "gpus": 8, "currency": _currency(ctx), **quoted_price(ctx, _currency(ctx))})
        draft = _finish(ctx, result, topics=["cost", "spot"], notes=listed_price_note(ctx, result))
        if SPOT_WORDS.search(ctx.text):
            spot = ctx.run("cost", {"gpu_hours": s.gpu_hours, "gpu": s.gpu, "gpus": 8, "currency": _currency(ctx), "pricing": "spot"})
            if spot.cheapest:
                draft.blocks.append(ParagraphBlock(text=say("workload.spot", ctx.lang, cost=money(spot.cheapest.total_cost, spot.currency),
                                                            instance=spot.cheapest.price.name)))
                draft.works.append(("cost (spot)", spot.work))
        return draft
    if (s.model or s.params_b) and (s.tokens or s.samples):
        if s.samples and not s.tokens:
            return recommend(ctx)
        result = _priced(ctx, {**model_ref(ctx), "tokens": s.tokens, "gpu": s.gpu, "gpus": s.gpus or 8, "currency": _currency(ctx),
                               **quoted_price(ctx, _currency(ctx))})
        return _finish(ctx, result, topics=["cost"], notes=listed_price_note(ctx, result))
    if s.model or s.params_b:
        return recommend(ctx)
    return cloud_vs_onprem(ctx)


def _priced(ctx: Context, payload: dict):
    """The cost tool on the cloud the question names ("on AWS"), or on every listed cloud when it names none or that
    cloud lists no instance for the GPU."""
    provider = (platform_in(ctx.text) or (None, None))[1]
    if provider:
        result, _ = ctx.try_run("cost", {**payload, "provider": provider})
        if result is not None and result.cheapest is not None:
            return result
    return ctx.run("cost", payload)



def _checkpoint(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    result = ctx.run("checkpoint", {**model_ref(ctx), "gpus": ctx.slots.gpus or 8, "write_gbps": ctx.slots.storage_write_gbps})
    draft = _finish(ctx, result, topics=["reliability", "storage"])
    draft.blocks[1:1] = expert_sizing.checkpoint_storage(ctx, result)  # the storage to provision for the checkpoints kept
    return draft


def _allreduce(ctx: Context) -> Draft:
    s = ctx.slots
    result = ctx.run("allreduce", {**model_ref(ctx), "gpu": s.gpu or DEFAULT_GPU, "gpus": max(s.gpus or 8, 2)}) if (s.model or s.params_b) \
        else ctx.run("allreduce", {"gpu": s.gpu or DEFAULT_GPU, "gpus": max(s.gpus or 8, 2), "size_mb": 25})
    return _finish(ctx, result, topics=["networking"])


def _nccl(ctx: Context) -> Draft:
    s = ctx.slots
    gpus = max(s.gpus or 8, 2)
    result = ctx.run("nccl-expected", {"gpu": s.gpu or DEFAULT_GPU, "gpus": gpus, "gpus_per_node": min(gpus, 8), "measured_busbw_gbps": s.measured_busbw_gbps,
                                       **stated_network(s, min(gpus, 8))})
    return _finish(ctx, result, notes=[] if s.gpu else [say("workload.assumed_gpu", ctx.lang)], topics=["networking", "preflight"],
                   follow=[say("workload.follow_nccl_nodes", ctx.lang)])


def _data_loader(ctx: Context) -> Draft:
    s = ctx.slots
    if s.samples_per_second and s.bytes_per_sample:
        result = ctx.run("data-loader", {"samples_per_second": s.samples_per_second, "bytes_per_sample": s.bytes_per_sample})
        return _finish(ctx, result, topics=["storage"])
    if not (s.model or s.params_b):
        return _finish(ctx, ctx.run("data-loader", {"tokens_per_second": 1e6}), notes=[say("workload.assumed_throughput", ctx.lang)], topics=["storage"])
    timing = ctx.run("training-time", {**model_ref(ctx), "tokens": s.tokens or 1e12, "gpu": s.gpu or DEFAULT_GPU, "gpus": s.gpus or 8, "seq_len": s.seq_len})
    result = ctx.run("data-loader", {"tokens_per_second": timing.tokens_per_second})
    return _finish(ctx, result, topics=["storage"])


def _compute(ctx: Context) -> Draft:
    missing = _need_model(ctx)
    if missing:
        return missing
    if not (ctx.slots.tokens or ctx.slots.samples):
        return _time(ctx)
    s = ctx.slots
    result = ctx.run("training-compute", {**model_ref(ctx), "tokens": s.tokens, "samples": s.samples, "seq_len": s.seq_len})
    draft = _finish(ctx, result, topics=["utilization"])
    if s.gpu:
        # "...折合成 H100 大概多少 GPU-hours": the same compute on the GPU named.
        timing = ctx.run("training-time", {**model_ref(ctx), "tokens": s.tokens, "samples": s.samples, "seq_len": s.seq_len, "gpu": s.gpu, "gpus": s.gpus or 8})
        draft.blocks += sizing.blocks(timing, ctx.lang, ctx.catalog, lead=False)
        draft.works.append((timing.tool, timing.work))
    return draft
