"""The tier recommendation for a workload (the recommend tool's input from the slots, its answer, or one question for
the model), kept apart from workload.py, whose single sizing questions fall back to it."""

from __future__ import annotations

from service.assistant import consult
from service.assistant.compose import sizing
from service.assistant.compose.work import assumptions, warnings
from service.assistant.handlers import card_capacity
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.knowledge import faq
from service.assistant.messages import say
from service.contract import Clarification, LeadBlock



def _currency(ctx: Context) -> str:
    return ctx.slots.currency or ("CNY" if ctx.lang == "zh" else "USD")


def task_of(ctx: Context) -> tuple[str, str | None]:
    """(task, a note when it was assumed)."""
    s = ctx.slots
    if s.task:
        return s.task, None
    if s.tokens and s.tokens >= 1e11:
        return "pretrain", say("workload.assumed_pretrain", ctx.lang)
    return "fine-tune", say("workload.assumed_fine_tune", ctx.lang)


def recommend_payload(ctx: Context, task: str) -> dict:
    """The recommend tool's input from the slots."""
    s = ctx.slots
    payload = {
        "model": s.model, "params_b": None if s.model else s.params_b, "task": task, "method": s.method or "full",
        "tokens": s.tokens, "samples": s.samples, "seq_len": s.seq_len if task != "inference" else None, "epochs": s.epochs,
        "deadline_hours": s.deadline_hours, "budget": s.budget, "currency": _currency(ctx), "precision": s.precision,
        "data_sensitivity": s.data_sensitivity or "internal", "yearly_utilization": s.yearly_utilization, "gpu": s.gpu,
        "gpus": s.gpus, "concurrency": s.concurrency or 1, "context_len": s.context_len if task == "inference" else None,
    }
    if task == "pretrain" or task == "inference":
        payload["method"] = "full"
    return payload


def clarify_model(ctx: Context) -> Draft:
    question = say("workload.clarify_model", ctx.lang)
    suggestions = [say("workload.suggest_qlora", ctx.lang), say("workload.suggest_full", ctx.lang), say("workload.suggest_pretrain", ctx.lang)]
    return Draft(blocks=[LeadBlock(text=question)], clarification=Clarification(question=question, suggestions=suggestions), show_sources=False,
                 follow_ups=suggestions)


def recommend(ctx: Context) -> Draft:
    s = ctx.slots
    if not (s.model or s.params_b):
        # "3060 12G 能跑啥模型": a card and no model asks what the card can take on, answered from the sizing tools.
        capacity = card_capacity.answer(ctx) if card_capacity.asks_capacity(ctx.text) else None
        if capacity is not None:
            return capacity
        # A configuration depends on the model; questions about clusters, storage or networks do not.
        if s.gpus or s.nodes or consult.cue("no_model_needed", ctx.text):
            return faq(ctx)
        return card_capacity.answer(ctx) or clarify_model(ctx)
    task, note = task_of(ctx)
    payload = recommend_payload(ctx, task)
    result, error = ctx.try_run("recommend", payload)
    if result is None and payload["method"] != "qlora" and task == "fine-tune" and (s.gpu or s.gpus):
        # The pinned GPUs cannot hold this method: say so and size the method that fits.
        fallback = "qlora" if payload["method"] == "lora" or (s.gpus or 1) == 1 else "lora"
        result, second = ctx.try_run("recommend", {**payload, "method": fallback})
        if result is None and fallback == "lora":
            result, second = ctx.try_run("recommend", {**payload, "method": "qlora"})
            fallback = "qlora"
        if result is not None:
            method = say("workload.method_full", ctx.lang) if payload["method"] == "full" else payload["method"].upper()
            note = say("workload.method_fallback", ctx.lang, method=method, error=error.message(ctx.lang), fallback=fallback.upper())
            payload["method"] = fallback
    if result is None:
        raise error
    blocks = [*sizing.blocks(result, ctx.lang, ctx.catalog), *assumptions([note] if note else []), *warnings(result.work, ctx.lang)]
    works = [("recommend", result.work)]
    for nested in (result.memory, result.timing, result.inference, result.break_even):
        if nested is not None:
            works.append((nested.tool, nested.work))
    topics = ["tiers", "memory", "parallelism", "peft"] if task != "inference" else ["inference"]
    hits = ctx.retrieve(context_query(ctx, topics), k=2, topics=topics)
    rec_gpu = result.recommended.configuration.gpu
    follow = [say("workload.follow_half_budget", ctx.lang)]
    if rec_gpu != "h100-sxm":
        follow.insert(0, say("workload.follow_h100", ctx.lang))
    if payload["method"] == "full" and task == "fine-tune":
        follow.append(say("workload.follow_lora", ctx.lang))
    return Draft(blocks=blocks, hits=hits, works=works, recommendation=result.model_dump(mode="json"), follow_ups=follow[:3])


def context_query(ctx: Context, topics: list[str] | None) -> str | None:
    """The search for a plan's background: a serving plan's question read with the serving words, so the model and GPU
    names it shares with an unrelated document (an RL set-up that also runs Qwen on A100s) do not decide the citations."""
    if topics != ["inference"]:
        return None
    asked = f"{ctx.understanding.context} {ctx.text}" if ctx.understanding.context else ctx.text
    return f"{say('queries.serving_plan', ctx.lang)} {asked}"
