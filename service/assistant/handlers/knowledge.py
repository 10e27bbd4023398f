"""Knowledge answers: FAQ from cited chunks, the pre-flight checklist, small talk and the scope notice."""

from __future__ import annotations

import re

from service.assistant.compose import extract
from service.assistant.compose.faq_answer import compose_faq
from service.assistant.compose.fmt import num
from service.assistant.compose.work import assumptions
from service.assistant import followup
from service.assistant.network import stated_network
from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers import card_capacity
from service.assistant.compose.relevance import about_the_question, only_cards, without_spec_cards
from service.assistant.messages import say
from service.contract import BulletsBlock, ChecklistBlock, ChecklistStep, LeadBlock, ParagraphBlock
from service.sizing.defaults import DEFAULT_GPU

# Topics with their own pair of follow-up questions: knowledge.topic_follow_ups.<topic>.first/second in the catalogs.
FOLLOW_UP_TOPICS = ("reliability", "utilization", "memory", "networking", "cost")


def follow_ups_for(ctx: Context, hits: list) -> list[str]:
    for hit in hits:
        for topic in hit.topics:
            if topic in FOLLOW_UP_TOPICS:
                return [say(f"knowledge.topic_follow_ups.{topic}.first", ctx.lang), say(f"knowledge.topic_follow_ups.{topic}.second", ctx.lang)]
    return [say("knowledge.follow_workload_config", ctx.lang), say("knowledge.follow_preflight", ctx.lang)]


# Evidence rules whose subject the question's other words drown out in retrieval ("mac studio 192g: llama 3 70b?" finds
# the Llama documents): the search reads the question together with the subject (messages queries.evidence.<rule>).
SUBJECT_RULES = ("apple_silicon", "named_formula", "storage_bandwidth_need")


def passages(ctx: Context, question: str, hits: list, *, limit: int | None = None, skip=None, max_points: int | None = None,
             asked: str | None = None) -> tuple[list, list]:
    """The knowledge's answer to `question` from `hits` as blocks to put inside another answer (a direct sentence, then up to
    `limit` points), with the hits it cites; nothing when no sentence answers it. asked: the words split into parts to
    answer one by one (compose_faq), "" for none."""
    kwargs = {"skip": skip} if skip else {}
    if max_points is not None:
        kwargs["max_points"] = max_points
    answer = compose_faq(question, ctx.lang, hits, getattr(ctx.index, "embed", None), asked=asked, **kwargs)
    if not answer.lead:
        return [], []
    points = answer.points[:limit] if limit else answer.points
    return [ParagraphBlock(text=answer.lead), *([BulletsBlock(items=points)] if points else [])], answer.cited_hits


def faq(ctx: Context) -> Draft:
    subject = next((r for r in SUBJECT_RULES if r in ctx.understanding.evidence), None)
    hits = ctx.retrieve(f"{say(f'queries.evidence.{subject}', ctx.lang)} {ctx.text}", k=5) if subject else ctx.retrieve(k=5)
    if not hits:
        return Draft(blocks=[LeadBlock(text=say("knowledge.not_found", ctx.lang))], show_sources=False)
    # The sentences that answer the question, across the top sections (compose/faq_answer.py); a follow-up
    # ("Slurm 上呢？") is read together with the question it follows, as retrieval read it.
    own = ctx.asked()
    if only_cards(hits) and not ctx.understanding.spec_words and (capacity := card_capacity.answer(ctx)) is not None:
        # "Does it run on a single A4000?" with no model: nothing written answers it, the card's figures do not either;
        # what the card can take on (the sizing tools over a ladder of model sizes) does.
        return capacity
    hits = about_the_question(own, without_spec_cards(hits, ctx.understanding.spec_words))  # compose/relevance.py
    question = f"{ctx.understanding.context} {own}" if ctx.understanding.context else own
    asked = own if ctx.understanding.context else None
    answer = compose_faq(question, ctx.lang, hits, getattr(ctx.index, "embed", None), skip=extract.INJECTION.search, asked=asked)
    if answer.lead:
        blocks: list = [LeadBlock(text=answer.lead)]
        if answer.points:
            blocks.append(BulletsBlock(items=answer.points))
        return Draft(blocks=blocks, hits=answer.cited_hits, follow_ups=follow_ups_for(ctx, answer.cited_hits))
    passages = extract.select(ctx.text, [h.text for h in hits], max_points=6, headings=[h.heading for h in hits])
    lead = say("knowledge.lead_from_kb", ctx.lang, heading=hits[0].heading or hits[0].title)
    points, cited = extract.cite(passages, hits)
    return Draft(blocks=[LeadBlock(text=lead), *points], hits=cited, follow_ups=follow_ups_for(ctx, cited))


def preflight(ctx: Context) -> Draft:
    s = ctx.slots
    gpu_id = s.gpu or DEFAULT_GPU
    gpus = s.gpus or 8
    per_node = min(gpus, 8)
    assumed = []
    if not s.gpu:
        assumed.append(say("knowledge.preflight_assumed_gpu", ctx.lang))
    if not s.gpus:
        assumed.append(say("knowledge.preflight_assumed_node", ctx.lang))
    nccl = ctx.run("nccl-expected", {"gpu": gpu_id, "gpus": max(gpus, 2), "gpus_per_node": per_node, **stated_network(ctx.slots, per_node)})
    ckpt = ctx.run("checkpoint", {"model": s.model, "params_b": s.params_b, "gpus": gpus}) if (s.model or s.params_b) else None
    hits = ctx.retrieve(say("queries.preflight", ctx.lang), k=3)
    band = nccl.expected_busbw_gbps
    gpu_name = ctx.catalog.gpus[nccl.gpu].name
    steps = [
        ChecklistStep(
            text=say("knowledge.preflight_versions", ctx.lang),
            commands=[
                "nvidia-smi",
                "nvcc --version",
                "pip show torch",
                'python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"',
            ],
        ),
        ChecklistStep(
            text=say("knowledge.preflight_bandwidth", ctx.lang, gpu=gpu_name, fabric=nccl.fabric, typical=num(band.typical), low=num(band.low)),
            commands=["nvidia-smi topo -m", f"./build/all_reduce_perf -b 8 -e 8G -f 2 -g {per_node}"],
        ),
        ChecklistStep(
            text=say("knowledge.preflight_iops", ctx.lang),
            commands=[
                "fio --name=randread --directory=/data --rw=randread --bs=4k --size=1G --numjobs=16 --iodepth=32 --ioengine=libaio --direct=1 --group_reporting"
            ],
        ),
        ChecklistStep(text=say("knowledge.preflight_monitoring", ctx.lang), commands=["nvidia-smi dmon -s pucvmet", "dcgmi diag -r 3"]),
    ]
    if ckpt is not None:
        steps.append(
            ChecklistStep(text=say("knowledge.preflight_checkpoint_sized", ctx.lang, size_gb=num(ckpt.size_gb), minutes=num(ckpt.optimal_interval_minutes)))
        )
    else:
        steps.append(ChecklistStep(text=say("knowledge.preflight_checkpoint", ctx.lang)))
    blocks = [LeadBlock(text=say("knowledge.preflight_lead", ctx.lang)), *assumptions(["; ".join(assumed)] if assumed else []), ChecklistBlock(steps=steps)]
    draft = Draft(
        blocks=blocks,
        hits=hits,
        works=[("nccl-expected", nccl.work)],
        follow_ups=[
            say("knowledge.follow_low_busbw", ctx.lang),
            say("knowledge.follow_checkpoint_often", ctx.lang),
        ],
    )
    if ckpt is not None:
        draft.works.append(("checkpoint", ckpt.work))
    if {"acceptance_test", "link_health_check"} & set(ctx.understanding.evidence) or SPECIFIC_CHECK.search(ctx.text):
        _answer_the_test_asked(ctx, draft)  # "how do I verify GPUDirect RDMA": that check first, then the checklist
    return draft


def _answer_the_test_asked(ctx: Context, draft: Draft) -> None:
    """A question about one acceptance test (gpu-burn for how long, ib_write_bw per NIC) gets the knowledge about it
    right after the lead, before the general checklist; its passages are cited first."""
    # Checks run by a scheduler (Slurm prolog, NHC, Kubernetes) live with the scheduling knowledge, not under pre-flight.
    topics = None if SCHEDULER.search(ctx.text) else ["preflight", "gpu-health", "networking"]
    hits = ctx.retrieve(k=4, topics=topics) or ctx.retrieve(k=4)
    if not hits:
        return
    blocks, cited = passages(ctx, ctx.text, hits, skip=extract.INJECTION.search, max_points=3)
    if not blocks:
        return
    draft.blocks[1:1] = blocks
    draft.hits = [*cited, *(h for h in draft.hits if h not in cited)]


# A pre-flight question about one named check or one scheduler's way of running checks: that answer leads the checklist.
SCHEDULER = re.compile(r"slurm|sbatch|srun|prolog|epilog|\bnhc\b|kubernetes|\bk8s\b|kubelet|operator", re.I)
SPECIFIC_CHECK = re.compile(SCHEDULER.pattern + r"|dcgmi?\b|gpu[-_ ]?burn|ib_write_bw|perftest|xid", re.I)


THANKS = re.compile(r"thank|thx|谢谢|多谢|感谢|帮大忙", re.I)


def smalltalk(ctx: Context) -> Draft:
    if THANKS.search(ctx.text):
        return Draft(blocks=[LeadBlock(text=say("knowledge.thanks", ctx.lang))], show_sources=False, follow_ups=[say("knowledge.follow_preflight", ctx.lang)])
    return Draft(
        blocks=[LeadBlock(text=say("knowledge.hello", ctx.lang))],
        show_sources=False,
        follow_ups=[say("knowledge.follow_preflight", ctx.lang), say("knowledge.follow_rent_or_buy", ctx.lang)],
    )


def out_of_scope(ctx: Context) -> Draft:
    return Draft(
        blocks=[LeadBlock(text=say("knowledge.out_of_scope", ctx.lang))], show_sources=False, follow_ups=[say("knowledge.follow_fine_tune_7b", ctx.lang)]
    )


# "How does activation memory scale with sequence length?", "how do people estimate a pre-training run?", "what is FP8
# training and which GPUs support it?": a question about how things work, asked with no model, depends on no model.
GENERAL_QUESTION = re.compile(
    r"\bhow (?:does|do|is|are)\b|\bwhat (?:is|are)\b|\bwhat's\b|\bwhy\b|\bexplain\b|\bscales? with\b|"
    r"\bhow (?:do|to|would|should) (?:people|ppl|you|we|i|one)? ?(?:estimate|calculate|compute|figure out|work out|size)\b|"
    r"\bwhich gpus? (?:support|have|can)\b|怎么估算|如何估算|怎么算|如何计算|是什么|是啥|原理|为什么|随.{0,12}(?:增长|变化|增加)|哪些(?:卡|gpu)支持",
    re.I,
)


STATED_CASE_CHARS = 160


def knowledge_instead_of_asking(ctx: Context, draft: Draft) -> Draft:
    """A handler that would ask which model, for a general question with no model named: the knowledge answers it
    instead, and the answer says it was read as a knowledge question (the trace records why)."""
    if draft.clarification is None:
        return draft
    case = getattr(ctx.understanding, "case", None)
    # A message that states its case (a paste, a long description, a why / how / what-happens question) is answered, not asked back.
    stated = case is not None and (bool(case.artefacts) or len(case.prose) >= STATED_CASE_CHARS or case.act in ("cause", "procedure", "explain", "consequence"))
    if not stated and (ctx.slots.model or ctx.slots.params_b or not GENERAL_QUESTION.search(ctx.text)):
        return draft
    trace = ctx.understanding.trace
    if trace is not None:
        trace = trace.model_copy(update={"rules": [*trace.rules, "a general question with no model: answered from the knowledge, not asked which model"]})
    ctx.understanding = ctx.understanding.model_copy(update={"intent": "faq", "ask": None, "trace": trace})
    answer = faq(ctx)
    return answer if answer.show_sources else draft  # nothing found: the clarifying question after all


def lead_of(draft: Draft) -> str | None:
    first = draft.blocks[0] if draft.blocks else None
    return getattr(first, "text", None)


def knowledge_instead_of_repeating(ctx: Context, draft: Draft, previous: dict | None) -> Draft:
    """A follow-up whose answer would open with the previous answer's very lead asked something the case's tools do not
    answer ("do I need to edit ds_config too?", "can checkpointing cut it further?"): the knowledge answers its own words
    instead of the same card again. When the knowledge has nothing new either, the draft stands."""
    stated = ctx.slots.stated()
    if followup.changes_relatively(ctx.asked()) or not followup.repeats(lead_of(draft), previous, stated):
        # "如果预算只有一半呢?" with no budget set: the same plan again, with the notice that says why, is the answer.
        return draft
    answer = faq(ctx)
    if not answer.show_sources or followup.repeats(lead_of(answer), previous, stated):
        return draft
    trace = ctx.understanding.trace
    if trace is not None:
        trace = trace.model_copy(update={"rules": [*trace.rules, "the follow-up's answer would repeat the previous lead: answered from the knowledge"]})
        ctx.understanding = ctx.understanding.model_copy(update={"trace": trace})
    return answer
