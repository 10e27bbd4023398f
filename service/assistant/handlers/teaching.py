"""A course or class where many students each run small jobs ("40 students doing small fine-tunes, what GPUs?"): per
student the work is a QLoRA/LoRA of a small model, so the question is how to share a few mid-size cards, not which
training cluster to build. The per-student memory comes from the training-memory tool."""

from __future__ import annotations

import re

from service.assistant.compose.extract import cite, select
from service.assistant.compose.fmt import num
from service.assistant.handlers.base import Context, Draft
from service.assistant.messages import say
from service.contract import BulletsBlock, LeadBlock, NoticeBlock

STUDENTS = re.compile(r"(\d{1,4})\s*(?:个|名|位)?\s*(?:students|learners|学生|同学)", re.I)
STUDENT_MODEL = "llama-3.1-8b"  # the usual course fine-tune: an 8B-class model with QLoRA or LoRA
CARDS = ("l4", "l40s", "a100-80gb-sxm")  # 24 GB per student; 48 GB for two; MIG slices of an 80 GB card


def teaching_answer(ctx: Context) -> Draft | None:
    lang = ctx.lang
    gpus = {g: ctx.catalog.gpus[g] for g in CARDS if g in ctx.catalog.gpus}
    if len(gpus) < len(CARDS) or STUDENT_MODEL not in ctx.catalog.models:
        return None
    l4, l40s, a100 = (gpus[g] for g in CARDS)
    qlora, _ = ctx.try_run("training-memory", {"model": STUDENT_MODEL, "task": "fine-tune", "method": "qlora", "gpu": l4.id, "gpus": 1})
    lora, _ = ctx.try_run("training-memory", {"model": STUDENT_MODEL, "task": "fine-tune", "method": "lora", "gpu": l40s.id, "gpus": 1})
    if qlora is None or lora is None:
        return None
    ctx.record("catalog-lookup", {"gpus": list(gpus)}, {g: {"memory_gb": x.memory_gb} for g, x in gpus.items()})
    found = STUDENTS.search(ctx.text)
    students = int(found.group(1)) if found else None
    model = ctx.catalog.models[STUDENT_MODEL].name
    lead = say("teaching.lead", lang, model=model, qlora=num(qlora.per_gpu.total_gib), l4=l4.name, l4_mem=num(l4.memory_gb),
               lora=num(lora.per_gpu.total_gib), l40s=l40s.name, l40s_mem=num(l40s.memory_gb))
    items = [say("teaching.cloud", lang), say("teaching.servers", lang, l4=l4.name, l40s=l40s.name, a100=a100.name),
             say("teaching.mig", lang, a100=a100.name), say("teaching.scheduler", lang)]
    if students:
        ctx.record("class-size", {"text": found.group(0)}, {"students": students})
        items.insert(0, say("teaching.count", lang, students=students))
    query = say("teaching.query", lang)
    hits = ctx.retrieve(query, k=3, topics=["multi-tenancy"]) or ctx.retrieve(query, k=3)
    quoted, hits = cite(select(query, [h.text for h in hits], max_points=2, headings=[h.heading for h in hits]), hits,
                        title=say("archetype.read_more", lang))
    blocks = [LeadBlock(text=lead), NoticeBlock(kind="assumption", text=say("teaching.assumed", lang, model=model)), BulletsBlock(items=items), *quoted]
    return Draft(blocks=blocks, hits=hits, works=[("training-memory", qlora.work), ("training-memory", lora.work)],
                 follow_ups=[say("teaching.follow_budget", lang), say("teaching.follow_bigger", lang)])
