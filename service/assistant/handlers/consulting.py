"""Sizing that consults: what happens before and around the literal calculation.

`consulted(handler)` wraps the sizing and recommendation handlers:
- a fit question ("can a 4090 fine-tune Llama 3 8B", "70B 推理一张 H100 放得下吗") evaluates
  every method (full, LoRA, QLoRA) or weight format (16-bit, FP8, INT8, INT4) and leads with
  the one that fits (fit_questions.py);
- pre-training with no token count assumes compute-optimal data (Chinchilla) and, with no
  deadline and no cluster size, shows cluster sizes against time;
- budget words steer to PEFT on one card; a user count becomes a concurrency assumption and
  the answer names the serving engines;
- a question with no model is answered for the asker's typical workload (handlers/archetypes.py:
  hobbyist, LLM feature in a product, vision training, domestic hardware, small-LLM pre-training);
each assumption is stated in a notice after the lead.
"""

from __future__ import annotations

from collections.abc import Callable

from service.assistant import consult
from service.assistant.compose.fmt import big, duration, model_label, num, pct
from service.assistant.handlers.fit_questions import fit_question
from service.assistant.handlers.rl_post_training import rl_setup
from service.assistant.handlers.base import Context, Draft, model_params, model_ref
from service.assistant import claim_checks, followup
from service.assistant.handlers import archetypes, expert_sizing, measured_speed, serving_count, serving_load, slow_card, tier_ladder, training_speed
from service.assistant.handlers.compute_optimal import compute_optimal_answer, compute_optimal_data, compute_optimal_run
from service.assistant.handlers.purchase import purchase_answer
from service.assistant.handlers.rental import rental_answer
from service.assistant.handlers.serving_notes import gqa_notes, weights_size_note
from service.assistant.handlers.serve_after_tuning import serve_after_tuning
from service.assistant.handlers.claims import claim_check
from service.assistant.handlers.recommendation import recommend
from service.assistant.handlers.workload import sizing_answer
from service.assistant.messages import say
from service.errors import InputError
from service.contract import LeadBlock, NoticeBlock, ParagraphBlock, TableBlock, TableCell, TableColumn
from service.sizing.defaults import DEFAULT_GPU

STEP_DOWN = {"full": "lora", "lora": "qlora"}  # the cheaper method, one step at a time
ASK_NEEDS = {"deadline": "deadline_hours"}  # sizing asks that cannot be answered without this slot


def consulted(handler: Callable[[Context], Draft]) -> Callable[[Context], Draft]:
    def consult_then(ctx: Context) -> Draft:
        s = ctx.slots
        serving_weights = s.weights and s.task in (None, "inference") and (s.task == "inference" or s.method is None or _is("serving", ctx.text))
        if serving_weights and (handler is not sizing_answer or ctx.understanding.ask in (None, "memory", "inference")):
            # "那换成INT4呢": a quantised serving plan is the inference calculation with those weights.
            ctx.understanding = ctx.understanding.model_copy(update={"ask": "inference"})
            _set_slots(ctx, task="inference")
            notes = _concurrency_from_users(ctx)
            draft = sizing_answer(ctx)
            if notes and draft.clarification is None:
                at = 1 if draft.blocks and draft.blocks[0].type == "lead" else 0
                draft.blocks[at:at] = notes
            return draft
        slow = slow_card.answer(ctx)
        if slow is not None:
            return slow  # "my 4090 only reaches 40 TFLOPS", and its follow-up with the settings: a diagnosis, not a sizing
        if claim_checks.classify(ctx.text, s, ctx.catalog) in ("network", "compute"):
            # "100G 以太网够不够跑 70B", "GPT-3 用了 3e23 FLOPs 对吗": a check of the claim, whatever the wording
            return claim_check(ctx)
        optimal = compute_optimal_answer(ctx)
        if optimal is not None:
            return optimal  # "512 H100s for a month: how big a model?": the budget's compute-optimal model
        optimal_run = compute_optimal_data(ctx) or compute_optimal_run(ctx)
        if optimal_run is not None:
            # "how many tokens for an 8B?": the model's compute-optimal data; "13B by Chinchilla, how long on 256 A100s?": timed
            return optimal_run
        if ctx.understanding.ask == "model_size":  # "两张4090能跑多大的模型": no compute budget, a question of what fits
            ctx.understanding = ctx.understanding.model_copy(update={"ask": "memory"})
        answer_with = handler
        if handler is sizing_answer and ctx.understanding.ask == "gpu_count":
            answer_with = recommend  # "最少要几张 H100": the count is the recommendation's sizing, with its tiers
        if handler is sizing_answer and ctx.understanding.ask in ASK_NEEDS and getattr(s, ASK_NEEDS[ctx.understanding.ask]) is None:
            answer_with = recommend  # the quantity asked for needs an input the user did not give: advise instead
        if handler is sizing_answer and "own_fit_question" in ctx.understanding.evidence and (s.gpus or 1) > 1 \
                and ctx.understanding.ask in (None, "memory", "inference"):  # "how many tokens can we push through": not a fit question
            # "can 2x 4090 LoRA Qwen 14B?", "8 卡 H200 能部署 DeepSeek-V3 吗": when the fit table below cannot decide
            # (a method was named, or nothing fits), a multi-GPU fit question is sized as a configuration on those GPUs.
            answer_with = recommend
        ladder = tier_ladder.answer(ctx)
        if ladder is not None:
            return ladder  # "entry / mid / production for fine-tuning X": the three tiers side by side
        inferred = archetypes.archetype_answer(ctx, consulted(recommend))
        if inferred is not None:
            return inferred  # no model named: the asker's typical workload, stated as an assumption, then sized
        bought = purchase_answer(ctx)
        if bought is not None:
            # "student, $3,000, which card to buy": the purchase within the budget leads; renting follows as the alternative.
            return _with_rental_alternative(ctx, bought)
        rent = rental_answer(ctx)
        if rent is not None:
            return rent  # "rent that on AutoDL for a month, 10 h a day": the bill for that period
        ttft = serving_load.ttft_answer(ctx)
        if ttft is not None:
            return ttft  # "TTFT under 2 s for a 32k prompt": a prefill-time question, whatever else the wording asks
        expert = measured_speed.answer(ctx) or training_speed.answer(ctx) or serving_count.answer(ctx) or expert_sizing.decode_speed(ctx) or expert_sizing.pretrain_on_gpus(ctx) or expert_sizing.china_serving(ctx)
        if expert is not None:
            return expert  # one user's tokens/s (bandwidth-bound), or a small pre-training run on the GPUs named
        fit = fit_question(ctx)
        if fit is not None:
            return fit
        cluster = pretrain_cluster_table(ctx)
        if cluster is not None:
            return cluster
        notes = _steer(ctx)
        try:
            draft = answer_with(ctx)
        except InputError:
            replicas = replica_plan(ctx, notes)
            if replicas is None:
                raise
            return replicas
        if notes and draft.clarification is None:
            at = 1 if draft.blocks and draft.blocks[0].type == "lead" else 0
            draft.blocks[at:at] = notes
        if answer_with is recommend and handler is sizing_answer and "own_fit_question" in ctx.understanding.evidence \
                and draft.recommendation and (states := expert_sizing.states_on_their_gpus(ctx)) is not None:
            # "can 4x A100 40GB fully fine-tune a 13B?": yes or no on their GPUs leads, with where the memory goes;
            # the plan (for the method that fits, when theirs does not) follows.
            lead = draft.blocks[0]
            rest = [ParagraphBlock(text=lead.text), *draft.blocks[1:]] if lead.type == "lead" else draft.blocks
            draft.blocks = [*states, *rest]
        serving_load.finish_plan(ctx, draft)  # a request rate: copies of the plan; a serving plan: quantisation on its card
        serve_after_tuning(ctx, draft)  # "fine-tune and serve an 8B": the serving half follows the training plan
        rl_setup(ctx, draft)  # GRPO, PPO, DPO: the reference, rollout engine and critic beside the policy's plan
        return draft

    consult_then.__name__ = getattr(handler, "__name__", "consulted")
    return consult_then


def _with_rental_alternative(ctx: Context, bought: Draft) -> Draft:
    if not (ctx.slots.model or ctx.slots.params_b):
        return bought  # sized for an assumed workload: a rental plan for no model would be generic
    try:
        rented = recommend(ctx)
    except InputError:
        return bought
    if rented.clarification is not None or not rented.blocks:
        return bought
    head, *rest = rented.blocks
    bought.blocks += [ParagraphBlock(text=say("purchase.rent_instead", ctx.lang)), ParagraphBlock(text=head.text), *rest]
    bought.works += rented.works
    bought.recommendation = rented.recommendation
    return bought


def _is(name: str, text: str) -> bool:
    return consult.cue(name, text)




def _model_name(ctx: Context) -> str:
    s = ctx.slots
    return model_label(ctx.catalog, s.model, s.params_b or 0)


def _set_slots(ctx: Context, **values) -> None:
    slots = ctx.slots.model_copy(update=values)
    ctx.understanding = ctx.understanding.model_copy(update={"slots": slots})


def _concurrency_from_users(ctx: Context) -> list:
    """A serving plan for N users sizes for the sequences in flight at peak (stated as an assumption); a follow-up
    ("换成 INT4 呢") keeps the users its conversation stated."""
    s, text, lang = ctx.slots, ctx.text, ctx.lang
    users = consult.users_in(text) or s.users
    if not users or s.concurrency:
        return []
    concurrent = consult.users_are_concurrent(text)
    share = consult.peak_share(text)
    concurrency = users if concurrent else consult.concurrency_for_users(users, share)
    _set_slots(ctx, concurrency=concurrency, task="inference")
    ctx.record("concurrency-from-users", {"users": users, "peak_active_share": share}, {"concurrency": concurrency})
    return [NoticeBlock(kind="assumption", text=say("consult.users_concurrent", lang, concurrency=f"{concurrency:,}") if concurrent else
                        say("consult.users", lang, concurrency=concurrency, share=pct(share), users=f"{users:,}"))]



# -- serving more users than one node holds ------------------------------------------------
REPLICA_GPUS = 8
REPLICA_FORMATS = ("bf16", "fp8", "int4")


def replica_plan(ctx: Context, notes: list) -> Draft | None:
    """Many concurrent users: one 8-GPU replica holds so many sequences, so the plan is N replicas behind a load balancer.

    Used when no single replica fits the requested concurrency (the recommender stops at one node)."""
    s, lang = ctx.slots, ctx.lang
    if s.task != "inference" or not (s.model or s.params_b) or not s.concurrency or s.concurrency < 2:
        return None
    gpu_id = s.gpu or DEFAULT_GPU
    for fmt in ([s.weights] if s.weights else REPLICA_FORMATS):
        result, _ = ctx.try_run("inference", {**model_ref(ctx), "gpu": gpu_id, "gpus": REPLICA_GPUS, "weights": fmt, "concurrency": 1,
                                              "context_len": s.context_len})
        if result is not None and result.max_concurrency:
            break
    else:
        return None
    per_replica = result.max_concurrency
    replicas = -(-s.concurrency // per_replica)
    gpus = replicas * REPLICA_GPUS
    ctx.record("serving-replicas", {"concurrency": s.concurrency, "sequences_per_replica": per_replica, "gpus_per_replica": REPLICA_GPUS},
               {"replicas": replicas, "gpus": gpus})
    gpu = ctx.catalog.gpus[gpu_id].name
    blocks = [LeadBlock(text=say("consult.replicas_lead", lang, replicas=replicas, gpus_per=REPLICA_GPUS, gpu=gpu, total=f"{gpus:,}",
                                 concurrency=f"{s.concurrency:,}", fmt=say(f"consult.method.{result.weights_format}", lang))),
              *notes,
              ParagraphBlock(text=say("consult.replicas_why", lang, per=f"{per_replica:,}", context=f"{result.context_len:,}",
                                      kv=num(result.kv_per_sequence_gib), weights=num(result.weights_gib))),
              ParagraphBlock(text=say("consult.replicas_ops", lang))]
    if not any(isinstance(b, ParagraphBlock) and "vLLM" in b.text for b in notes):
        blocks.append(ParagraphBlock(text=say("consult.serving_stack", lang)))
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["inference"]), works=[(result.tool, result.work)],
                 follow_ups=[say("consulting.follow_monthly_cost", ctx.lang), say("consulting.follow_int4", ctx.lang)])


# -- pre-training with no data size -------------------------------------------------
def pretrain_cluster_table(ctx: Context) -> Draft | None:
    s, lang = ctx.slots, ctx.lang
    pretraining = s.task == "pretrain" or (s.task is None and _is("from_scratch", ctx.text))
    params = model_params(ctx)
    if not pretraining or params is None or s.tokens or s.samples or s.deadline_hours or s.gpus or s.nodes or s.budget:
        return None
    if ctx.understanding.ask in expert_sizing.OTHER_QUANTITIES:
        return None
    tokens = consult.compute_optimal_tokens(params)
    gpu = s.gpu or DEFAULT_GPU
    rows_data = consult.cluster_table(ctx, model_ref(ctx), tokens=tokens, gpu=gpu)
    if not rows_data:
        return None
    model, gpu_name = _model_name(ctx), ctx.catalog.gpus[gpu].name
    first_gpus, first = rows_data[0]
    columns = [TableColumn(key="gpus", label=say("consult.cluster_gpus", lang), align="right"),
               TableColumn(key="time", label=say("consult.cluster_time", lang), unit="hours", align="right"),
               TableColumn(key="gpu_hours", label=say("consult.cluster_gpu_hours", lang), align="right")]
    rows = [[TableCell(text=f"{n:,}", value=n), TableCell(text=duration(r.hours.typical, lang), value=r.hours.typical),
             TableCell(text=big(r.gpu_hours.typical, lang), value=r.gpu_hours.typical)] for n, r in rows_data]
    blocks = [
        LeadBlock(text=say("consult.cluster_lead", lang, model=model, tokens=big(tokens, lang), time=duration(first.hours.typical, lang),
                           gpus=first_gpus, gpu=gpu_name)),
        NoticeBlock(kind="assumption", text=say("consult.chinchilla", lang, tokens=big(tokens, lang), model=model)),
        TableBlock(columns=columns, rows=rows),
        ParagraphBlock(text=say("consult.cluster_advice", lang)),
    ]
    ctx.record("compute-optimal-data", {"params": params, "tokens_per_param": consult.TOKENS_PER_PARAM}, {"tokens": tokens})
    _set_slots(ctx, tokens=tokens, task="pretrain")
    last = rows_data[-1][1]
    return Draft(blocks=blocks, hits=ctx.retrieve(k=2, topics=["parallelism", "reliability"]), works=[(last.tool, last.work)],
                 follow_ups=[say("consulting.follow_30_days", ctx.lang), say("consulting.follow_cost", ctx.lang)])


# -- steering: budget words, users, serving engines ---------------------------------------
def _steer(ctx: Context) -> list:
    s, lang, text = ctx.slots, ctx.lang, ctx.text
    notes: list = []
    for key, pattern, _ in followup.RELATIVE:
        if pattern.search(text) and getattr(s, key) is None and not (key == "context_len" and s.seq_len):
            # "如果预算只有一半呢" with no budget on record: nothing to halve; say so instead of repeating silently.
            notes.append(NoticeBlock(kind="info", text=say(f"consult.relative_unset.{key}", lang)))
    stage = consult.stage(text)
    params = model_params(ctx)
    if s.task in (None, "inference") and not s.weights and _is("serving", text) and _is("fine_tune", text):
        # "fine-tune an 8B, then serve it to customers": the training plan first; the serving half is appended after it.
        _set_slots(ctx, task="fine-tune")
        s = ctx.slots
    serving = s.task == "inference" or (s.task is None and (_is("serving", text) or bool(s.weights)))  # INT4/FP8 weights: serving
    # "will Qwen 72B in bf16 fit on one H100?": with no training word, fitting the weights means running the model.
    serving = serving or (s.task is None and not s.method and _is("loads_model", text) and not _is("training_words", text))
    if serving and s.task is None:
        # "H20 部署 DeepSeek 67B 要几张卡": a serving plan, not a training cluster.
        _set_slots(ctx, task="inference", weights=s.weights or (s.precision if s.precision in ("bf16", "fp16", "fp8") else None))
        s = ctx.slots
    if stage == "budget" and not serving and s.task in (None, "fine-tune") and not s.method and params:
        method = "qlora" if params >= 12e9 and not _is("poc", text) else "lora"  # a company POC rents a bigger card for 16-bit LoRA
        _set_slots(ctx, method=method, task="fine-tune")
        notes.append(NoticeBlock(kind="assumption", text=say("consult.budget", lang, method=say(f"consult.method.{method}", lang))))
    elif stage == "budget" and not serving and s.method in STEP_DOWN and followup.CHEAPER.search(text) and params:
        # "cheaper option?" after a plan: one step down the method ladder (full -> LoRA -> QLoRA), said as such
        _set_slots(ctx, method=STEP_DOWN[s.method])
        notes.append(NoticeBlock(kind="assumption", text=say("consult_cheaper.step_down", lang, was=say(f"consult.method.{s.method}", lang),
                                                             method=say(f"consult.method.{STEP_DOWN[s.method]}", lang))))
    if serving:
        notes += serving_load.throughput_notes(ctx)  # "20 requests/s": tokens/s to sustain, requests in flight
        s = ctx.slots
    if serving:
        notes += _concurrency_from_users(ctx)
    if stage == "budget" and serving and params and not s.weights:
        # A hobby or POC deployment: 4-bit weights are what makes a 7B–13B model fit a cheap card.
        notes.append(NoticeBlock(kind="info", text=say("consult.budget_serving", lang)))
    if serving and params:
        notes.append(weights_size_note(ctx, params))
    if serving and (s.model or s.params_b):
        notes += gqa_notes(ctx)
        notes.append(ParagraphBlock(text=say("consult.serving_stack", lang)))
    return notes
