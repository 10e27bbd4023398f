"""Recommendations for questions that name no model: infer the typical workload from who is asking.

"Kaggle, CV plus a small LLM, which GPU?", "customer-service bot for 20k daily users", "BEV perception training in
production", "国产化要求", "$2M to pre-train a small LLM": a consultant does not answer these with "which model?".
The asker's archetype (service/assistant/workload_archetypes.yaml, checked in file order) maps to a workload that
is stated to the user as an assumption and then sized with the same tools as any other question:

- personal: one 24 GB consumer card (training-memory for LoRA and QLoRA of an assumed 8B model on it);
- llm_product: an assumed 8B instruct model served (the consulted recommendation: users -> concurrency,
  serving engines, quantisation);
- vision: an 8-GPU A100/H100 80 GB node, an entry of one or two 48 GB/24 GB cards, storage and data loading first;
- domestic: Ascend 910B from the catalog, with the CANN / torch_npu / MindSpore notes from the knowledge base;
- pretrain_small: compute-optimal tokens for the model (or an assumed 7B), GPUs a budget buys or rents, and time.
The clarifying question stays for questions that give nothing to go on ("how many GPUs do I need?").
"""

from __future__ import annotations

from collections.abc import Callable


from service import yaml_files
from service.assistant import consult, cues
from service.assistant.compose import extract
from service.assistant.compose.fmt import big, duration, gib, model_label, money, num, pct
from service.assistant.handlers.teaching import teaching_answer
from service.assistant.handlers import cluster_build, embedding_jobs, media_archetypes
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.purchase import purchase_answer, serving_purchase, wants_to_buy
from service.assistant.messages import say
from service.contract import BulletsBlock, LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.sizing.cost import CAPEX_PER_GPU_USD, DEFAULT_FX_CNY_PER_USD

FILE = "workload_archetypes.yaml"
ORDER = tuple(yaml_files.safe_load((cues.DIRECTORY / FILE).read_text(encoding="utf-8")))  # the file's order is the priority
PERSONAL_CARDS = ("rtx-4090", "rtx-3090")  # 24 GB consumer cards sold retail
PERSONAL_PARAMS_B = 8.0  # a small LLM a hobbyist fine-tunes: the 7-8B class (Llama 3.1 8B, Qwen2.5 7B)
PERSONAL_MAX_PARAMS = 15e9  # LoRA/QLoRA of up to the 13-14B class fits one 24 GB card
PRODUCT_MODEL = "llama-3.1-8b"  # an 8B instruct model, the usual first choice for a product feature
PRODUCT_CARDS = ("l4", "a10", "rtx-4090", "l40s", "h100-sxm")
VISION_NODE = ("a100-80gb-sxm", "h100-sxm")
VISION_ENTRY = ("l40s", "rtx-4090")
NODE_GPUS = 8
PRETRAIN_GPU = "h100-sxm"
PRETRAIN_ASSUMED_B = 7.0  # "a small LLM from scratch": the smallest size teams usually mean


def archetype_of(text: str) -> str | None:
    return next((name for name in ORDER if cues.matches(FILE, name, text)), None)


# Askers whose tier ladder with no model named is a fine-tuning ladder of the usual 8B model; the other archetypes have
# answers of their own (a vision node, the Ascend card, a class's shared cards, a pre-training budget, media services).
LADDER_KINDS = (None, "personal", "llm_product", "small_models_team")


def ladder_model(ctx: Context) -> str | None:
    """The model an "entry / mid / production" question with no model named is built for (handlers/tier_ladder.py), or
    None when the asker's archetype answers it instead. A product feature that is served, not tuned, is the product's
    serving answer; anything else is fine-tuning the 8B instruct model a product or a hobbyist usually starts from."""
    kind = archetype_of(ctx.text)
    if kind not in LADDER_KINDS or ctx.slots.task in ("pretrain", "inference") or PRODUCT_MODEL not in ctx.catalog.models:
        return None
    if kind == "llm_product" and not consult.cue("fine_tune", ctx.text):
        return None
    return PRODUCT_MODEL


def archetype_answer(ctx: Context, serve: Callable[[Context], Draft]) -> Draft | None:
    """A draft for a question with no model named whose asker fits an archetype; None otherwise.

    `serve` is the consulted recommendation, used once an assumed model is in the slots."""
    s = ctx.slots
    media = media_archetypes.answer(ctx) or embedding_jobs.answer(ctx)
    if media is not None:
        return media  # "SDXL service, 20k images a day" / "Whisper, 500 h of audio a day": published speeds, not "which model?"
    kind = archetype_of(ctx.text)
    if kind in (None, "pretrain_small"):
        cluster = cluster_build.answer(ctx)
        if cluster is not None:
            return cluster  # "a 16-GPU research cluster for multi-node experiments": the build and what it trains, not "which model?"
    if kind == "teaching" and not (s.model or s.params_b or s.budget):
        return teaching_answer(ctx)  # "a class of 40 doing small fine-tunes": shared small cards, not a training cluster
    if kind == "small_models_team" and not (s.gpu or s.gpus or s.nodes or s.budget) and s.task != "inference" and \
            (_params_of(ctx) or 0) <= ITERATION_MAX_PARAMS:
        return _iteration_node(ctx)  # "quant team, models up to 1B on tick data, fast iteration": one dense node, data local
    if (kind == "pretrain_small" or s.task == "pretrain") and ctx.understanding.ask is None and not consult.cue("fine_tune", ctx.text):
        # A configuration to choose; a sizing ask ("how many tokens does $50k buy?") is the calculator's, and a mix of
        # mostly fine-tuning with some pre-training is a fine-tuning purchase (handlers/purchase.py).
        if kind == "domestic" and not s.gpu:
            _set_slots(ctx, gpu="ascend-910b")  # the requirement decides the card the budget is spent on
        return pretrain_budget(ctx)
    if _buys_for_serving(ctx):
        bought = serving_purchase(ctx, for_person=kind == "personal")  # "an inference service, budget ¥50k, what to buy": cards and the models they serve
        if bought is not None:
            return bought
    if kind == "shared_cluster" and (s.budget or consult.cue("build_cluster", ctx.text) or consult.cue("which_cards", ctx.text)) and not s.model:
        return _shared_cluster(ctx)  # "HPC admin, $2M, a cluster for 40 groups": the platform, not one group's model
    if kind == "vision" and (s.model or s.params_b) and not (s.gpu or s.gpus or s.nodes) and consult.cue("build_cluster", ctx.text):
        return _vision(ctx)  # "VLA on a 7B backbone, hundreds of TB of video, a small cluster?": the node, storage first
    if kind == "personal" and not s.budget and not s.gpu and s.task in (None, "fine-tune") and _small_named(ctx) and \
            cues.matches("market_cues.yaml", "buy", ctx.text) | cues.matches("market_cues.yaml", "choose_card", ctx.text) | \
            consult.cue("card_choice", ctx.text):
        return _personal(ctx)  # "a student building a box for 7B LoRA, which card?": the 24 GB card, checked for that model
    if kind == "domestic" and (s.model or s.params_b) and not s.gpu and "ascend-910b" in ctx.catalog.gpus:
        _set_slots(ctx, gpu="ascend-910b")  # a named model under a domestic-hardware rule: sized on the Ascend card
        return None
    if kind is None or s.model or s.params_b:
        return None
    if kind != "llm_product" and ((s.gpus or 1) > 1 or s.nodes):  # "一张卡" (one card) is what a personal buyer asks for
        return None  # "we have 4 × 4090 for detection training": a question about hardware they own, not what to get
    if kind == "personal":
        # With a budget the purchase plan answers (handlers/purchase.py), which already sizes a typical personal workload.
        return (purchase_answer(ctx, for_person=True) if s.budget else None) or _personal(ctx)
    if kind == "llm_product":
        if consult.cue("fine_tune", ctx.text) and consult.users_in(ctx.text) is None and not s.concurrency:
            # "fine-tune our support bot": what is tuned decides the hardware (8B LoRA on one card, 70B on a node), and
            # nothing says how big it must be; serving a feature to N users starts from the usual 8B instead.
            return None
        return _product(ctx, serve)
    if kind == "vision":
        return _vision(ctx)
    if kind == "domestic":
        return _domestic(ctx)
    return None


def _buys_for_serving(ctx: Context) -> bool:
    """A budget to spend on cards that will serve models, no model named; a follow-up ("and with ¥500k?") keeps the
    question it follows, so both are read."""
    s = ctx.slots
    if not s.budget or s.model or s.params_b or s.gpu or s.task in ("fine-tune", "pretrain"):
        return False
    text = f"{ctx.understanding.context or ''} {ctx.text}"
    serving = s.task == "inference" or consult.cue("serving", text)
    # Renting words make it a rental question; otherwise a budget for serving hardware is spent on cards, also in a
    # follow-up that only changes the budget ("预算提到50万呢").
    renting = cues.matches("market_cues.yaml", "rent", ctx.text) and not wants_to_buy(ctx.text)
    return serving and not consult.cue("fine_tune", text) and not renting and not cues.matches("market_cues.yaml", "no_buy", text)


def _set_slots(ctx: Context, **values) -> None:
    ctx.understanding = ctx.understanding.model_copy(update={"slots": ctx.slots.model_copy(update=values)})


def _cited(ctx: Context, query: str, topics: list[str], title_key: str, k: int = 3) -> tuple[list, list]:
    """Knowledge passages for the archetype, quoted with their citations."""
    hits = ctx.retrieve(query, k=k, topics=topics)
    passages = extract.select(query, [h.text for h in hits], max_points=3, headings=[h.heading for h in hits])
    return extract.cite(passages, hits, title=say(title_key, ctx.lang))


def _gpu_facts(ctx: Context, ids: tuple[str, ...]) -> dict:
    gpus = {g: ctx.catalog.gpus[g] for g in ids if g in ctx.catalog.gpus}
    ctx.record("catalog-lookup", {"gpus": list(gpus)}, {g: {"memory_gb": x.memory_gb, "price_per_gpu_usd": CAPEX_PER_GPU_USD.get(g)}
                                                       for g, x in gpus.items()})
    return gpus


# -- personal: one 24 GB consumer card ------------------------------------------------------
def _small_named(ctx: Context) -> bool:
    """A named model small enough for LoRA on one 24 GB card (up to the 13-14B class)."""
    s = ctx.slots
    params = ctx.catalog.models[s.model].params if s.model in ctx.catalog.models else (s.params_b or 0) * 1e9
    return 0 < params <= PERSONAL_MAX_PARAMS


def _personal(ctx: Context) -> Draft:
    lang, s = ctx.lang, ctx.slots
    cards = _gpu_facts(ctx, PERSONAL_CARDS)
    first = cards[PERSONAL_CARDS[0]]
    named = s.model or s.params_b
    ref = {"model": s.model, "params_b": None if s.model else s.params_b} if named else {"params_b": PERSONAL_PARAMS_B}
    rows, focus = [], None
    for method in ("lora", "qlora"):
        result, _ = ctx.try_run("training-memory", {**ref, "task": "fine-tune", "method": method, "gpu": first.id, "gpus": 1, "recompute": "full"})
        if result is None:
            continue
        focus = focus or result
        fits = say(f"archetype.fit.{result.fit or 'fits'}", lang)
        rows.append([TableCell(text=say(f"consult.method.{method}", lang)), TableCell(text=gib(result.per_gpu.total_gib), value=result.per_gpu.total_gib),
                     TableCell(text=fits)])
    blocks = [LeadBlock(text=say("archetype.personal_lead", lang, gpu=first.name, memory=num(first.memory_gb),
                                 alt=cards[PERSONAL_CARDS[1]].name if len(cards) > 1 else first.name)),
              *([] if named else [NoticeBlock(kind="assumption", text=say("archetype.personal_assumed", lang, params=num(PERSONAL_PARAMS_B)))])]
    if rows:
        blocks.append(TableBlock(columns=[TableColumn(key="method", label=say("consult.fit_table_option", lang)),
                                          TableColumn(key="memory", label=say("consult.fit_table_memory", lang), unit="GiB", align="right"),
                                          TableColumn(key="fit", label=say("consult.fit_table_fit", lang))], rows=rows))
    prices = [say("archetype.personal_price", lang, gpu=g.name, price=money(CAPEX_PER_GPU_USD[g.id], "USD")) for g in cards.values()
              if g.id in CAPEX_PER_GPU_USD]
    model = model_label(ctx.catalog, s.model, s.params_b or PERSONAL_PARAMS_B)
    blocks += [ParagraphBlock(text=say("archetype.personal_why", lang, memory=num(first.memory_gb), model=model)),
               BulletsBlock(items=prices), ParagraphBlock(text=say("purchase.personal", lang))]
    quoted, hits = _cited(ctx, say("archetype.personal_query", lang), ["peft", "memory"], "archetype.read_more", k=2)
    return Draft(blocks=blocks + quoted, hits=hits, works=[(focus.tool, focus.work)] if focus else [],
                 follow_ups=[say("archetype.follow_budget", lang), say("workload.follow_with_model", lang)])


# -- an LLM feature in a product: an assumed 8B instruct model, served -------------------------
def _product(ctx: Context, serve: Callable[[Context], Draft]) -> Draft | None:
    if PRODUCT_MODEL not in ctx.catalog.models:
        return None
    model = ctx.catalog.models[PRODUCT_MODEL]
    _gpu_facts(ctx, PRODUCT_CARDS)  # the cards the serving-stack paragraph names, with their memory
    _set_slots(ctx, model=PRODUCT_MODEL, task="inference")
    draft = serve(ctx)
    if draft.clarification is not None:
        return draft
    note = NoticeBlock(kind="assumption", text=say("archetype.product_assumed", ctx.lang, model=model.name))
    at = 1 if draft.blocks and draft.blocks[0].type == "lead" else 0
    draft.blocks[at:at] = [note]
    draft.blocks.append(ParagraphBlock(text=say("archetype.product_stack", ctx.lang)))
    draft.follow_ups = [say("archetype.follow_70b", ctx.lang), *draft.follow_ups][:3]
    return draft


# -- vision / perception training: an 8-GPU node, storage first --------------------------------
def _vision(ctx: Context) -> Draft:
    lang = ctx.lang
    node = _gpu_facts(ctx, VISION_NODE)
    entry = _gpu_facts(ctx, VISION_ENTRY)
    ctx.record("vision-node", {"gpus_per_node": NODE_GPUS, "entry_gpus": [1, 2]}, {"node_gpus": NODE_GPUS})
    a, h = (node[g] for g in VISION_NODE)
    e1, e2 = (entry[g] for g in VISION_ENTRY)
    backbone = _backbone_on_node(ctx, a)
    blocks = [LeadBlock(text=say("archetype.vision_lead", lang, n=NODE_GPUS, a=a.name, h=h.name, memory=num(h.memory_gb))),
              backbone or NoticeBlock(kind="assumption", text=say("archetype.vision_assumed", lang)),
              BulletsBlock(items=[say("archetype.vision_entry", lang, e1=e1.name, m1=num(e1.memory_gb), e2=e2.name, m2=num(e2.memory_gb)),
                                  say("archetype.vision_production", lang, n=NODE_GPUS, a=a.name, h=h.name),
                                  say("archetype.vision_storage", lang), say("archetype.vision_loading", lang)])]
    quoted, hits = _cited(ctx, say("archetype.vision_query", lang), ["storage", "utilization"], "archetype.read_more")
    return Draft(blocks=blocks + quoted, hits=hits,
                 follow_ups=[say("archetype.follow_dataset", lang), say("workload.follow_with_model", lang)])


def _backbone_on_node(ctx: Context, gpu) -> ParagraphBlock | None:
    """A named backbone (a VLA's 7B language model): full fine-tuning of it on one node, checked by the memory tool."""
    s = ctx.slots
    if not (s.model or s.params_b):
        return None
    ref = {"model": s.model, "params_b": None if s.model else s.params_b}
    result, _ = ctx.try_run("training-memory", {**ref, "task": "fine-tune", "method": "full", "gpu": gpu.id, "gpus": NODE_GPUS,
                                                "sharding": "zero3", "recompute": "full"})
    if result is None:
        return None
    model = model_label(ctx.catalog, s.model, s.params_b)
    return ParagraphBlock(text=say("recommend_plans.vision_backbone", ctx.lang, model=model, n=NODE_GPUS, gpu=gpu.name,
                                   need=num(result.per_gpu.total_gib), have=num(result.gpu_memory_gib),
                                   fit=say(f"archetype.fit.{result.fit or 'fits'}", ctx.lang)))


# -- a cluster many groups share: GPUs from the budget, then fabric, storage and the scheduler -------------
SHARED_GPU, SHARED_INTERACTIVE = "h100-sxm", "l40s"
SHARED_GPU_SHARE = 0.7  # of the budget on GPU servers; the rest buys fabric, storage, power and racks (an assumption, stated)


def _shared_cluster(ctx: Context) -> Draft:
    s, lang = ctx.slots, ctx.lang
    cards = _gpu_facts(ctx, (SHARED_GPU, SHARED_INTERACTIVE))
    big_gpu, small_gpu = cards[SHARED_GPU], cards[SHARED_INTERACTIVE]
    lead = say("recommend_plans.shared_lead", lang, n=NODE_GPUS, gpu=big_gpu.name, memory=num(big_gpu.memory_gb))
    notes = []
    if s.budget:
        currency = s.currency or ("CNY" if lang == "zh" else "USD")
        budget_usd = s.budget / DEFAULT_FX_CNY_PER_USD if currency == "CNY" else s.budget
        price = CAPEX_PER_GPU_USD[SHARED_GPU]
        gpus = int(budget_usd * SHARED_GPU_SHARE // price) // NODE_GPUS * NODE_GPUS
        ctx.record("gpus-in-budget", {"budget": s.budget, "currency": currency, "fx_cny_per_usd": DEFAULT_FX_CNY_PER_USD, "price_per_gpu_usd": price,
                                      "gpu_share": SHARED_GPU_SHARE, "gpus_per_node": NODE_GPUS},
                   {"budget_usd": budget_usd, "gpu_budget_usd": budget_usd * SHARED_GPU_SHARE, "gpus": gpus, "nodes": gpus // NODE_GPUS})
        if gpus >= NODE_GPUS:
            lead = say("recommend_plans.shared_lead_budget", lang, budget=money(s.budget, currency), share=pct(SHARED_GPU_SHARE), gpus=gpus,
                       nodes=gpus // NODE_GPUS, gpu=big_gpu.name, memory=num(big_gpu.memory_gb))
            notes.append(NoticeBlock(kind="assumption", text=say("archetype.pretrain_price", lang, price=money(price, "USD"), gpu=big_gpu.name)))
    blocks = [LeadBlock(text=lead), *notes, NoticeBlock(kind="assumption", text=say("recommend_plans.shared_assumed", lang)),
              BulletsBlock(items=[say("recommend_plans.shared_gpus", lang, gpu=big_gpu.name, small=small_gpu.name, small_memory=num(small_gpu.memory_gb)),
                                  say("recommend_plans.shared_network", lang), say("recommend_plans.shared_storage", lang),
                                  say("recommend_plans.shared_scheduler", lang), say("recommend_plans.shared_ops", lang)])]
    quoted, hits = _cited(ctx, say("recommend_plans.shared_query", lang), ["multi-tenancy", "storage"], "archetype.read_more")
    return Draft(blocks=blocks + quoted, hits=hits, follow_ups=[say("recommend_plans.shared_follow", lang), say("archetype.follow_cloud_budget", lang)])


# -- a domain team iterating on small models: one node, one experiment per GPU, the data local ----------------
ITERATION_MAX_PARAMS = 3e9  # models that train on one GPU each; larger ones are a cluster question
ITERATION_CARDS = ("h100-sxm", "l40s")
ITERATION_ASSUMED_B = 1.0  # a small transformer for such data when no size is named


def _params_of(ctx: Context) -> float | None:
    s = ctx.slots
    return ctx.catalog.models[s.model].params if s.model in ctx.catalog.models else (s.params_b * 1e9 if s.params_b else None)


def _iteration_node(ctx: Context) -> Draft:
    s, lang = ctx.slots, ctx.lang
    cards = _gpu_facts(ctx, ITERATION_CARDS)
    ref = {"model": s.model, "params_b": None if s.model else (s.params_b or ITERATION_ASSUMED_B)}
    model = model_label(ctx.catalog, s.model, ref['params_b'])
    rows, works = [], []
    for gpu in cards.values():
        result, _ = ctx.try_run("training-memory", {**ref, "task": "pretrain", "gpu": gpu.id, "gpus": 1})
        if result is None:
            continue
        works.append((result.tool, result.work))
        rows.append([TableCell(text=f"1 × {gpu.name}"), TableCell(text=gib(result.per_gpu.total_gib), value=result.per_gpu.total_gib),
                     TableCell(text=say(f"archetype.fit.{result.fit or 'fits'}", lang))])
    big_gpu, small_gpu = (cards[g] for g in ITERATION_CARDS)
    ctx.record("iteration-node", {"gpus_per_node": NODE_GPUS}, {"node_gpus": NODE_GPUS, "experiments_in_parallel": NODE_GPUS})
    blocks = [LeadBlock(text=say("recommend_plans.iterate_lead", lang, n=NODE_GPUS, gpu=big_gpu.name, small=small_gpu.name, model=model))]
    if not (s.model or s.params_b):
        blocks.append(NoticeBlock(kind="assumption", text=say("recommend_plans.iterate_assumed", lang, model=model)))
    if rows:
        blocks.append(TableBlock(columns=[TableColumn(key="gpu", label=say("purchase.col_option", lang)),
                                          TableColumn(key="memory", label=say("consult.fit_table_memory", lang), unit="GiB", align="right"),
                                          TableColumn(key="fit", label=say("consult.fit_table_fit", lang))], rows=rows))
    blocks.append(BulletsBlock(items=[say("recommend_plans.iterate_parallel", lang, n=NODE_GPUS), say("recommend_plans.iterate_data", lang),
                                      say("recommend_plans.iterate_scale", lang)]))
    quoted, hits = _cited(ctx, say("archetype.vision_query", lang), ["storage", "utilization"], "archetype.read_more", k=2)
    return Draft(blocks=blocks + quoted, hits=hits, works=works[:1],
                 follow_ups=[say("archetype.follow_dataset", lang), say("workload.follow_with_model", lang)])


# -- domestic hardware requirement: Ascend 910B ------------------------------------------------
def _domestic(ctx: Context) -> Draft:
    lang = ctx.lang
    cards = _gpu_facts(ctx, ("ascend-910b", "h100-sxm"))
    ascend = cards["ascend-910b"]
    blocks = [LeadBlock(text=say("archetype.domestic_lead", lang, gpu=ascend.name, memory=num(ascend.memory_gb), n=NODE_GPUS)),
              NoticeBlock(kind="assumption", text=say("archetype.domestic_assumed", lang)),
              ParagraphBlock(text=say("archetype.domestic_nvidia", lang, gpu=cards["h100-sxm"].name))]
    ctx.record("domestic-node", {"gpus_per_node": NODE_GPUS}, {"node_gpus": NODE_GPUS})
    quoted, hits = _cited(ctx, say("archetype.domestic_query", lang), ["hardware", "environment"], "archetype.read_more")
    return Draft(blocks=blocks + quoted, hits=hits, follow_ups=[say("archetype.follow_domestic_model", lang), say("workload.follow_with_model", lang)])


# -- pre-training a small LLM: compute-optimal tokens, what the budget buys or rents -------------
def pretrain_budget(ctx: Context) -> Draft | None:
    s, lang = ctx.slots, ctx.lang
    if s.tokens or s.gpus or s.nodes or not s.budget:
        return None  # with a token count, a cluster or no budget, the other pre-training paths answer
    gpu_id = s.gpu if s.gpu in CAPEX_PER_GPU_USD else PRETRAIN_GPU
    gpu = ctx.catalog.gpus[gpu_id]
    model_ref = {"model": s.model, "params_b": None if s.model else (s.params_b or PRETRAIN_ASSUMED_B)}
    params = ctx.catalog.models[s.model].params if s.model in ctx.catalog.models else model_ref["params_b"] * 1e9
    name = model_label(ctx.catalog, s.model, params / 1e9)
    tokens = consult.compute_optimal_tokens(params)
    ctx.record("compute-optimal-data", {"params": params, "tokens_per_param": consult.TOKENS_PER_PARAM}, {"tokens": tokens})
    currency = s.currency or ("CNY" if lang == "zh" else "USD")
    budget_usd = s.budget / DEFAULT_FX_CNY_PER_USD if currency == "CNY" else s.budget
    price = CAPEX_PER_GPU_USD[gpu_id]
    bought = int(budget_usd // price) // NODE_GPUS * NODE_GPUS
    ctx.record("gpus-in-budget", {"budget": s.budget, "currency": currency, "fx_cny_per_usd": DEFAULT_FX_CNY_PER_USD, "price_per_gpu_usd": price,
                "gpus_per_node": NODE_GPUS},
               {"budget_usd": budget_usd, "gpus": bought, "nodes": bought // NODE_GPUS})
    rented, _ = ctx.try_run("cost", {"gpu_hours": 1.0, "gpu": gpu_id, "gpus": NODE_GPUS, "currency": currency})
    per_hour = rented.cheapest.price.price_per_gpu_hour if rented is not None and rented.cheapest else None
    if bought < NODE_GPUS and per_hour is None:
        return None
    blocks: list = []
    timing = None
    if bought >= NODE_GPUS:
        timing, _ = ctx.try_run("training-time", {**model_ref, "tokens": tokens, "gpu": gpu_id, "gpus": bought})
    if timing is not None:
        blocks.append(LeadBlock(text=say("archetype.pretrain_lead", lang, budget=money(s.budget, currency), gpus=f"{bought:,}", nodes=bought // NODE_GPUS,
                                         gpu=gpu.name, model=name, tokens=big(tokens, lang), time=duration(timing.hours.typical, lang))))
    else:
        blocks.append(LeadBlock(text=say("archetype.pretrain_lead_small", lang, budget=money(s.budget, currency), gpu=gpu.name, model=name)))
    notes = [say("consult.chinchilla", lang, tokens=big(tokens, lang), model=name)]
    if not (s.model or s.params_b):
        notes.insert(0, say("archetype.pretrain_assumed", lang, params=num(PRETRAIN_ASSUMED_B)))
    blocks += [NoticeBlock(kind="assumption", text=n) for n in notes]
    blocks.append(NoticeBlock(kind="assumption", text=say("archetype.pretrain_price", lang, price=money(price, "USD"), gpu=gpu.name)))
    works = [(timing.tool, timing.work)] if timing is not None else []
    if per_hour:
        hours = s.budget / per_hour
        ctx.record("gpu-hours-in-budget", {"budget": s.budget, "price_per_gpu_hour": per_hour}, {"gpu_hours": hours})
        c = rented.cheapest.price
        needed = f" {say('archetype.pretrain_need', lang, need=big(timing.gpu_hours.typical, lang))}" if timing is not None else ""
        blocks.append(ParagraphBlock(text=say("archetype.pretrain_rent", lang, budget=money(s.budget, currency), hours=big(hours, lang), gpu=gpu.name,
                                              price=money(per_hour, rented.currency), instance=c.name, provider=c.provider) + needed))
        works.append((rented.tool, rented.work))
    blocks.append(ParagraphBlock(text=say("archetype.pretrain_advice", lang)))
    _set_slots(ctx, tokens=tokens, task="pretrain", gpu=gpu_id, **({"gpus": bought} if bought >= NODE_GPUS else {}))
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["parallelism", "reliability"]), works=works,
                 follow_ups=[say("consulting.follow_30_days", lang), say("archetype.follow_cloud_budget", lang)])
