"""Buying GPUs with a budget: "student, about $3,000, which card for 7B LoRA?", "lab budget ¥300k for a 14B fine-tune".

A purchase is not a rental: the recommender prices cloud instances, so a buyer would be told to rent an L4.
Here every card with a rough street price is counted against the budget (a power-of-two count, at most 8,
one server), the training-memory tool checks which method fits on that many cards, and the option with the
most capable method, then the most dense compute, is recommended. Consumer cards are offered to students and
home users; a lab or company server gets data-centre cards.
"""

from __future__ import annotations


from service.assistant import cues
from service.assistant.compose.fmt import gib, money, num
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.sizing.cost import CAPEX_PER_GPU_USD, DEFAULT_FX_CNY_PER_USD

METHODS = ("full", "lora", "qlora")
COUNTS = (8, 4, 2, 1)
BUDGET_SLACK = 1.1  # street prices are rough: a card within 10% of the budget is still offered
MAX_ROWS = 4
ASSUMED_PARAMS_B = {"personal": 7.0, "server": 13.0}  # fine-tuning sizes assumed when no model is named (stated in the answer)
PCIE_SCALING = 0.7  # share of summed compute a PCIe-only multi-GPU box keeps in data-parallel training (an assumption for ranking only)


def wants_to_buy(text: str) -> bool:
    if cues.matches("market_cues.yaml", "no_buy", text):
        return False
    # "hobbyist, $2,000 cap, which GPU should I get?": a person choosing a card for themselves is buying one.
    return cues.matches("market_cues.yaml", "buy", text) or (cues.matches("market_cues.yaml", "personal", text)
                                                           and cues.matches("market_cues.yaml", "choose_card", text))


def purchase_answer(ctx: Context, *, for_person: bool = False) -> Draft | None:
    """`for_person`: the asker is known to be buying for themselves (handlers/archetypes.py: a hobbyist or competitor)."""
    s, lang, text = ctx.slots, ctx.lang, ctx.text
    if not (s.budget and (for_person or wants_to_buy(text))) or s.task in ("inference", "pretrain") or s.gpu:
        return None
    currency = s.currency or ("CNY" if lang == "zh" else "USD")
    budget_usd = s.budget / DEFAULT_FX_CNY_PER_USD if currency == "CNY" else s.budget
    personal = for_person or cues.matches("market_cues.yaml", "personal", text)
    # A budget with no model named ("lab, $150k, what should we buy?") is still answerable: size for the workload such
    # buyers typically run, say so, and invite the model for a precise plan, rather than asking first.
    assumed = None if (s.model or s.params_b) else ASSUMED_PARAMS_B["personal" if personal else "server"]
    model_ref = {"model": s.model, "params_b": None if s.model else (s.params_b or assumed)}
    methods = (s.method,) if s.method else METHODS
    options = []
    for gpu_id, price in CAPEX_PER_GPU_USD.items():
        gpu = ctx.catalog.gpus.get(gpu_id)
        if gpu is None or gpu.vendor != "nvidia" or ("GeForce" in gpu.name and not personal):
            # A GeForce card is no lab or company server (its licence excludes data centres); other vendors' software
            # stacks are a separate decision (knowledge: non-NVIDIA accelerators), not a budget default.
            continue
        # SXM/OAM/mezzanine modules are sold on 8-GPU baseboards (HGX, OAM platforms): only a whole board is a purchase.
        counts = COUNTS if gpu.form_factor in ("pcie", "nvl") else (8,)
        count = next((n for n in counts if n * price <= budget_usd * BUDGET_SLACK), None)
        if count is None:
            continue
        for rank, method in enumerate(methods):
            payload = {**model_ref, "task": "fine-tune", "method": method, "gpu": gpu_id, "gpus": count, "recompute": "full",
                       **({"sharding": "zero3"} if count > 1 else {})}
            result, _ = ctx.try_run("training-memory", payload)
            if result is not None and result.fit != "does_not_fit":
                tflops = gpu.dense_tflops("bf16" if gpu.supports_bf16 else "fp16") or 0
                # Cards without NVLink lose part of their compute to gradient traffic over PCIe.
                scaling = 1.0 if count == 1 or gpu.scale_up is not None else PCIE_SCALING
                # Within the budget first: the slack only keeps a card priced just above it on the table.
                over = count * price > budget_usd
                options.append((over, rank, -count * tflops * scaling, count * price, gpu, count, price, method, result))
                break
    if not options:
        return None
    options.sort(key=lambda o: o[:4])
    options = [o[1:3] + o[4:] for o in options]
    rank, _, gpu, count, price, method, result = options[0]
    cost_usd = count * price
    cost = cost_usd * DEFAULT_FX_CNY_PER_USD if currency == "CNY" else cost_usd
    ctx.record("purchase-options", {"budget": s.budget, "currency": currency, "fx_cny_per_usd": DEFAULT_FX_CNY_PER_USD, "budget_usd": budget_usd},
               {"options": [{"gpu": o[2].id, "gpus": o[3], "price_per_gpu_usd": o[4], "total_usd": o[3] * o[4],
                             "total": o[3] * o[4] * (DEFAULT_FX_CNY_PER_USD if currency == "CNY" else 1), "method": o[5],
                             "dense_tflops_total": -o[1], "per_gpu_gib": o[6].per_gpu.total_gib} for o in options[:MAX_ROWS]]})
    label = {m: say(f"consult.method.{m}", lang) for m in METHODS}
    model = ctx.catalog.models[s.model].name if s.model in ctx.catalog.models else f"{num(s.params_b or assumed or 0)}B"
    lead = say("purchase.lead", lang, gpus=count, gpu=gpu.name, memory=num(gpu.memory_gb), cost=money(cost, currency),
               budget=money(s.budget, currency), method=label[method], model=model, need=num(result.per_gpu.total_gib))
    columns = [TableColumn(key="option", label=say("purchase.col_option", lang)),
               TableColumn(key="cost", label=say("purchase.col_cost", lang), align="right"),
               TableColumn(key="method", label=say("purchase.col_method", lang)),
               TableColumn(key="memory", label=say("consult.fit_table_memory", lang), unit="GiB", align="right")]
    rows = []
    for o in options[:MAX_ROWS]:
        total = o[3] * o[4] * (DEFAULT_FX_CNY_PER_USD if currency == "CNY" else 1)
        rows.append([TableCell(text=f"{o[3]} × {o[2].name}"), TableCell(text=money(total, currency), value=total),
                     TableCell(text=label[o[5]]), TableCell(text=gib(o[6].per_gpu.total_gib), value=o[6].per_gpu.total_gib)])
    blocks = [LeadBlock(text=lead), *_why_not_full(ctx, model_ref, method, gpu, count, model, methods), TableBlock(columns=columns, rows=rows),
              NoticeBlock(kind="assumption", text=say("purchase.prices", lang)),
              *([NoticeBlock(kind="assumption", text=say("purchase.assumed_workload", lang, params=num(assumed)))] if assumed else []),
              ParagraphBlock(text=say("purchase.personal" if personal else "purchase.server", lang))]
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["peft", "memory"]), works=[(result.tool, result.work)],
                 follow_ups=[say("consulting.follow_fine_tune_time", lang), say("cloud.follow_up_break_even", lang)])


def _why_not_full(ctx: Context, model_ref: dict, method: str, gpu, count: int, model: str, methods: tuple) -> list:
    """A fine-tuning budget that only buys LoRA/QLoRA: say so, with what full fine-tuning would need on the same cards."""
    if method == "full" or "full" not in methods:
        return []
    payload = {**model_ref, "task": "fine-tune", "method": "full", "gpu": gpu.id, "gpus": count, "recompute": "full",
               **({"sharding": "zero3"} if count > 1 else {})}
    full, _ = ctx.try_run("training-memory", payload)
    if full is None:
        return []
    return [ParagraphBlock(text=say("purchase.method_why", ctx.lang, model=model, need=num(full.per_gpu.total_gib), gpus=count, gpu=gpu.name,
                                    have=num(full.gpu_memory_gib), method=say(f"consult.method.{method}", ctx.lang)))]
