"""Buying GPUs with a budget: "student, about $3,000, which card for 7B LoRA?", "lab budget ¥300k for a 14B fine-tune".

A purchase is not a rental: the recommender prices cloud instances, so a buyer would be told to rent an L4.
Here every card with a rough street price is counted against the budget (a power-of-two count, at most 8,
one server), the training-memory tool checks which method fits on that many cards, and the option with the
most capable method, then the most dense compute, is recommended. Consumer cards are offered to students and
home users; a lab or company server gets data-centre cards.
"""

from __future__ import annotations

import re

from service.assistant import consult, cues
from service.assistant.compose.fmt import gib, model_label, money, num
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.errors import InputError
from service.sizing import get_tool
from service.sizing.cost import CAPEX_PER_GPU_USD, DEFAULT_FX_CNY_PER_USD

METHODS = ("full", "lora", "qlora")
COUNTS = (8, 4, 2, 1)
BUDGET_SLACK = 1.1  # street prices are rough: a card within 10% of the budget is still offered
MAX_ROWS = 4
ASSUMED_PARAMS_B = {"personal": 7.0, "server": 13.0}  # fine-tuning sizes assumed when no model is named (stated in the answer)
# "自己买卡在家", "for myself at home": a person buying for their own desk, beside market_cues.yaml's `personal`
# "个人" is "personal" but "10个人" is ten people.
SAME_SIZE = 0.1  # a size within 10% of the named model's parameter count is that model's own size in its name
HOME = re.compile(r"在家|家里|家用|at home|for myself|hobby", re.I)  # a company that buys "自己买" is still a company
AT_HOME = re.compile(r"在家|家里|家用|自己买|自己(?:装|配|攒)|(?<![\d几多两一二三四五六七八九十百千\s])个人|at home|for myself|my own|personal|hobby", re.I)
WANT_CARD = re.compile(r"(?:want|need|looking for)\s+(?:a|an|one)\s+(?:new\s+)?(?:gpu|graphics card|card)|which one\b|想要?(?:一张|块)?(?:显)?卡", re.I)
# A budget that buys one or two cards is a desktop build: 24 GB consumer cards beat a 16 GB data-centre card at that price.
DESKTOP_BUDGET_USD = 5_000
SHARED_BY_A_TEAM = re.compile(r"(?<![a-z])(?:team|lab|group|researchers|students|engineers|shared)(?![a-z])|团队|组里|实验室|课题组|研究组|"
                              r"\d+\s*(?:个|位|名)?\s*(?:人|同学|研究员|工程师)|\d+\s*(?:people|users|devs|developers)", re.I)
RUN_WORDS = re.compile(r"\brun(?:ning)?\b|inference|chat with|推理|跑模型|跑大模型|本地跑|部署", re.I)
SERVE_WORDS = re.compile(r"\bserv(?:e|ing)\b|inference|推理|部署|上线", re.I)
SIZES = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*b(?![a-z])", re.I)  # "7B到13B", "7B-13B": every model size the buyer named
PCIE_SCALING = 0.7  # share of summed compute a PCIe-only multi-GPU box keeps in data-parallel training (an assumption for ranking only)


def wants_to_buy(text: str) -> bool:
    if cues.matches("market_cues.yaml", "no_buy", text):
        return False
    # "hobbyist, $2,000 cap, which GPU should I get?": a person choosing a card for themselves is buying one.
    personal = cues.matches("market_cues.yaml", "personal", text) or bool(AT_HOME.search(text))
    return cues.matches("market_cues.yaml", "buy", text) or (personal and (cues.matches("market_cues.yaml", "choose_card", text)
                                                                          or bool(WANT_CARD.search(text))))


def purchase_answer(ctx: Context, *, for_person: bool = False) -> Draft | None:
    """`for_person`: the asker is known to be buying for themselves (handlers/archetypes.py: a hobbyist or competitor)."""
    s, lang, text = ctx.slots, ctx.lang, ctx.text
    # "预算涨到80万呢" after "买什么卡": the purchase the follow-up changes the budget of.
    earlier = ctx.understanding.context or ""
    # "what GPU should I get?" then "LoRA of 7-13B, budget $3k": a card to get, with the budget for it
    chose = bool(earlier) and (wants_to_buy(earlier) or cues.matches("market_cues.yaml", "choose_card", earlier))
    buying = for_person or wants_to_buy(text) or (chose and not cues.matches("market_cues.yaml", "rent", text))
    if not (s.budget and buying) or s.task in ("inference", "pretrain") or s.gpu:
        return None
    currency = s.currency or ("CNY" if lang == "zh" else "USD")
    budget_usd = s.budget / DEFAULT_FX_CNY_PER_USD if currency == "CNY" else s.budget
    said = f"{earlier} {text}"  # who is buying may have been said in the question this one follows
    personal = for_person or cues.matches("market_cues.yaml", "personal", said) or bool(AT_HOME.search(said)) or budget_usd * BUDGET_SLACK < _cheapest_server_card(ctx) \
        or budget_usd <= DESKTOP_BUDGET_USD
    # A budget with no model named ("lab, $150k, what should we buy?") is still answerable: size for the workload such
    # buyers typically run, say so, and invite the model for a precise plan, rather than asking first.
    assumed = None if (s.model or s.params_b) else ASSUMED_PARAMS_B["personal" if personal else "server"]
    team = personal and cues.matches("market_cues.yaml", "organisation", said) and not HOME.search(said)
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
        # The most cards within the slack, and the most within the budget itself (one 3090 under it beats two just over it).
        fitting = {next((n for n in counts if n * price <= budget_usd * slack), None) for slack in (BUDGET_SLACK, 1.0)} - {None}
        for count in sorted(fitting, reverse=True):
            _option(ctx, options, model_ref, gpu, gpu_id, count, price, budget_usd, methods)
    if not options and s.method:
        return purchase_answer(_without_method(ctx), for_person=for_person)  # LoRA of 13B on a 24 GB card: the method that fits
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
    model = model_label(ctx.catalog, s.model, s.params_b or assumed or 0)
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
              ParagraphBlock(text=say(("purchase.team_consumer" if team else "purchase.personal") if personal else "purchase.server", lang))]
    if not personal and SHARED_BY_A_TEAM.search(said):
        # GPUs bought for a group sit idle or fought over without a scheduler, quotas and shared storage.
        blocks.append(ParagraphBlock(text=say("purchase_team.shared", lang)))
    if personal:
        blocks[1:1] = _memory_first(ctx, gpu, count, model_ref, currency, team=team)
        if RUN_WORDS.search(text):
            blocks[1:1] = _running_locally(ctx, gpu, count, model_ref)
    blocks[1:1] = _other_sizes(ctx, gpu, count, model_ref)
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["peft", "memory"]), works=[(result.tool, result.work)],
                 follow_ups=[say("consulting.follow_fine_tune_time", lang), say("cloud.follow_up_break_even", lang)])


def _without_method(ctx: Context) -> Context:
    from dataclasses import replace

    und = ctx.understanding
    return replace(ctx, understanding=und.model_copy(update={"slots": und.slots.model_copy(update={"method": None})}))


def _option(ctx: Context, options: list, model_ref: dict, gpu, gpu_id: str, count: int, price: float, budget_usd: float, methods) -> None:
    """The most capable method that fits `count` cards, appended to `options` with its ranking key."""
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
            return


def _memory_first(ctx: Context, gpu, count: int, model_ref: dict, currency: str, *, team: bool = False) -> list:
    """A personal fine-tuning box: memory (24 GB on the consumer cards) decides what fits; the 24 GB cards side by side,
    and every other model size the buyer named, on the card recommended."""
    lang = ctx.lang
    fx = DEFAULT_FX_CNY_PER_USD if currency == "CNY" else 1
    cards = [ctx.catalog.gpus[g] for g in CAPEX_PER_GPU_USD if g in ctx.catalog.gpus and "GeForce" in ctx.catalog.gpus[g].name
             and ctx.catalog.gpus[g].memory_gb == gpu.memory_gb]
    if "GeForce" not in gpu.name or len(cards) < 2:
        return []
    ctx.record("consumer-cards", {"memory_gb": gpu.memory_gb, "currency": currency, "fx_cny_per_usd": DEFAULT_FX_CNY_PER_USD},
               {c.id: {"price_usd": CAPEX_PER_GPU_USD[c.id], "price": CAPEX_PER_GPU_USD[c.id] * fx, "bf16_dense_tflops": c.dense_tflops("bf16"),
                       "memory_gb": c.memory_gb} for c in cards})
    sep = "；" if lang == "zh" else "; "
    rows = sep.join(say("s2.purchase_card", lang, gpu=c.name, price=money(CAPEX_PER_GPU_USD[c.id] * fx, currency),
                        tflops=num(c.dense_tflops("bf16"))) for c in cards)
    key = "s2.purchase_memory_first_team" if team else "s2.purchase_memory_first"  # a company's server is not "at home"
    return [ParagraphBlock(text=say(key, lang, memory=num(gpu.memory_gb), cards=rows))]


def _running_locally(ctx: Context, gpu, count: int, model_ref: dict) -> list:
    """A personal card also runs models, not only fine-tunes them: the weights at 16 bits, 8 bits and 4 bits on it."""
    sizes = []
    for fmt in ("bf16", "int8", "int4"):
        served, _ = ctx.try_run("inference", {**model_ref, "gpu": gpu.id, "gpus": count, "weights": fmt})
        if served is not None:
            sizes.append(f"{fmt.upper()} {num(served.per_gpu_total_gib)} GiB")
    if not sizes:
        return []
    return [ParagraphBlock(text=say("purchase.running_locally", ctx.lang, sizes=", ".join(sizes), gpu=gpu.name))]


def _other_sizes(ctx: Context, gpu, count: int, model_ref: dict) -> list:
    """"7B to 14B", "8B-70B": every other model size the buyer named, on the cards recommended: the most capable fine-tuning
    method that fits, and, when serving is part of the plan, the best weight format that serves it."""
    lang, blocks = ctx.lang, []
    own = model_ref.get("params_b")
    if model_ref.get("model") in ctx.catalog.models:
        own = ctx.catalog.models[model_ref["model"]].params_b
    # "Qwen2.5-32B" names its own size: 32 is the model's 32.76B, not another model to size
    named = {p for p in (float(m.group(1)) for m in SIZES.finditer(ctx.text)) if own is None or abs(p - own) / own > SAME_SIZE}
    serving = consult.cue("serving", ctx.text) or bool(SERVE_WORDS.search(ctx.text))
    for params in sorted(p for p in named if 1 <= p <= 700):
        for method in METHODS:
            result, _ = ctx.try_run("training-memory", {"params_b": params, "task": "fine-tune", "method": method, "gpu": gpu.id, "gpus": count,
                                                        "recompute": "full", **({"sharding": "zero3"} if count > 1 else {})})
            if result is not None and result.fit != "does_not_fit":
                blocks.append(ParagraphBlock(text=say("s2.purchase_other_size", lang, params=num(params), method=say(f"consult.method.{method}", lang),
                                                      need=num(result.per_gpu.total_gib), gpus=count, gpu=gpu.name)))
                break
        for fmt in SERVE_FORMATS if serving else ():
            served, _ = ctx.try_run("inference", {"params_b": params, "gpu": gpu.id, "gpus": count, "weights": fmt})
            if served is not None and served.fit != "does_not_fit":
                blocks.append(ParagraphBlock(text=say("purchase.serve_other_size", lang, params=num(params), fmt=fmt.upper(),
                                                      need=num(served.per_gpu_total_gib), gpus=count, gpu=gpu.name)))
                break
    return blocks


def _cheapest_server_card(ctx: Context) -> float:
    """A budget below the cheapest data-centre card ("and with $2,000 to buy something?") can only be a desktop card."""
    return min((p for g, p in CAPEX_PER_GPU_USD.items() if g in ctx.catalog.gpus and "GeForce" not in ctx.catalog.gpus[g].name), default=0.0)


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


# -- buying cards to SERVE models, with a budget and no model named ------------------------------
SERVE_TIERS = ("qwen2.5-32b", "qwen2.5-14b", "qwen2.5-7b")  # small and medium models, largest first (70B-class is another plan)
SERVE_FORMATS = ("bf16", "fp8", "int4")  # best quality first
SERVE_CONCURRENCY = 16  # sequences in flight for a small internal service (stated to the user)
PERSONAL_CONCURRENCY = 1  # a local LLM at home answers one person at a time
GEFORCE_BELOW_USD = 20_000  # under this a low-budget server is usually built from 24 GB consumer cards
SERVE_SKIP = ("rtx-3090", "t4")  # out of production or a generation behind: a service is built from cards sold new


def serving_purchase(ctx: Context, *, for_person: bool = False) -> Draft | None:
    """"A small-model inference service, budget ¥50k, which cards?": what the budget buys, and the largest typical
    model each option serves at which precision; the model is assumed and said to be."""
    s, lang = ctx.slots, ctx.lang
    if not s.budget or s.model or s.params_b or s.gpu:
        return None
    currency = s.currency or ("CNY" if lang == "zh" else "USD")
    budget_usd = s.budget / DEFAULT_FX_CNY_PER_USD if currency == "CNY" else s.budget
    personal = for_person or cues.matches("market_cues.yaml", "personal", ctx.text)
    skip = () if personal else SERVE_SKIP  # a hobbyist's local-LLM box is often a used 24 GB card
    users = PERSONAL_CONCURRENCY if personal else SERVE_CONCURRENCY
    tiers = [m for m in SERVE_TIERS if m in ctx.catalog.models]
    options = []
    for gpu_id, price in CAPEX_PER_GPU_USD.items():
        gpu = ctx.catalog.gpus.get(gpu_id)
        if gpu is None or gpu.vendor != "nvidia" or gpu_id in skip or ("GeForce" in gpu.name and budget_usd >= GEFORCE_BELOW_USD):
            continue  # a larger serving budget buys data-centre cards (ECC, rack cooling, a licence for shared use)
        counts = COUNTS if gpu.form_factor in ("pcie", "nvl") else (8,)
        count = next((n for n in counts if n * price <= budget_usd * BUDGET_SLACK), None)
        served = _largest_served(ctx, tiers, gpu, count, users) if count else None
        if served is None:
            continue
        tier, fmt = served
        # Rank: the largest model served, the better precision, fewer cards (less tensor-parallel traffic over PCIe),
        # then total memory bandwidth (decode speed).
        options.append((count * price > budget_usd, tiers.index(tier), SERVE_FORMATS.index(fmt), count,
                        -count * gpu.memory_bandwidth_gbps, count * price, gpu, count, price, tier, fmt))
    if not options and s.method:
        return purchase_answer(_without_method(ctx), for_person=for_person)  # LoRA of 13B on a 24 GB card: the method that fits
    if not options:
        return None
    options.sort(key=lambda o: o[:6])
    fx = DEFAULT_FX_CNY_PER_USD if currency == "CNY" else 1
    rows, shown = [], []
    for *_, gpu, count, price, tier, fmt in options[:MAX_ROWS]:
        result = ctx.run("inference", {"model": tier, "gpu": gpu.id, "gpus": count, "weights": fmt, "concurrency": users})
        shown.append((gpu, count, price, tier, fmt, result))
        rows.append([TableCell(text=f"{count} × {gpu.name}"), TableCell(text=money(count * price * fx, currency), value=count * price * fx),
                     TableCell(text=f"{ctx.catalog.models[tier].name} · {say(f'consult.method.{fmt}', lang)}"),
                     TableCell(text=gib(result.per_gpu_total_gib), value=result.per_gpu_total_gib)])
    ctx.record("purchase-options", {"budget": s.budget, "currency": currency, "fx_cny_per_usd": DEFAULT_FX_CNY_PER_USD, "budget_usd": budget_usd},
               {"concurrency": users, "options": [{"gpu": g.id, "gpus": n, "memory_gb": g.memory_gb, "price_per_gpu_usd": p, "total_usd": n * p, "total": n * p * fx,
                             "model": t, "weights": f} for g, n, p, t, f, _ in shown]})
    gpu, count, price, tier, fmt, result = shown[0]
    small = ctx.catalog.models[tiers[-1]].name
    lead = say("recommend_plans.serve_lead_personal" if personal else "recommend_plans.serve_lead", lang, gpus=count, gpu=gpu.name, memory=num(gpu.memory_gb), cost=money(count * price * fx, currency),
               budget=money(s.budget, currency), model=ctx.catalog.models[tier].name, fmt=say(f"consult.method.{fmt}", lang),
               concurrency=users, need=num(result.per_gpu_total_gib))
    columns = [TableColumn(key="option", label=say("purchase.col_option", lang)),
               TableColumn(key="cost", label=say("purchase.col_cost", lang), align="right"),
               TableColumn(key="model", label=say("recommend_plans.serve_col_model", lang)),
               TableColumn(key="memory", label=say("consult.fit_table_memory", lang), unit="GiB", align="right")]
    blocks = [LeadBlock(text=lead), NoticeBlock(kind="assumption", text=say("recommend_plans.serve_assumed_personal" if personal else "recommend_plans.serve_assumed", lang, concurrency=users,
                                                                          small=small)),
              TableBlock(columns=columns, rows=rows), NoticeBlock(kind="assumption", text=say("recommend_plans.serve_prices", lang)),
              ParagraphBlock(text=say("recommend_plans.serve_small_model", lang, small=small)),
              ParagraphBlock(text=say("purchase.personal" if personal else "recommend_plans.serve_geforce" if "GeForce" in gpu.name else "purchase.server", lang)),
              ParagraphBlock(text=say("recommend_plans.serve_stack", lang))]
    _set(ctx, task="inference")
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["inference"]), works=[(result.tool, result.work)],
                 follow_ups=[say("recommend_plans.serve_follow_budget", lang), say("consulting.follow_users", lang)])


def _largest_served(ctx: Context, tiers: list, gpu, count: int, users: int) -> tuple[str, str] | None:
    """The largest tier model, and its best format, that fits `count` cards with `users` sequences in flight.

    Explored without recording: only the options shown are run through ctx.run (and so cited)."""
    tool = get_tool("inference")
    for tier in tiers:
        for fmt in SERVE_FORMATS:
            if fmt == "fp8" and not gpu.supports_fp8:
                continue
            try:
                result = tool({"model": tier, "gpu": gpu.id, "gpus": count, "weights": fmt, "concurrency": users}, ctx.catalog)
            except InputError:
                continue
            if result.fit != "does_not_fit":
                return tier, fmt
    return None


def _set(ctx: Context, **values) -> None:
    ctx.understanding = ctx.understanding.model_copy(update={"slots": ctx.slots.model_copy(update=values)})
