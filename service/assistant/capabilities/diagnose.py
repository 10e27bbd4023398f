"""Diagnose: one diagnosis from the error signatures in the case, the most specific leading.

The lead names what the pasted error is and why (data/explanations.yaml, written from each tool's documentation and
cited); a yes/no question about a suspected cause ("is this an OOM?") is answered yes or no first, and never
relabels one kind of error as another. A second, different signature is given only as "if not that".
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path
from typing import Any

from service import yaml_files
from service.assistant.capabilities.base import Finding, capability
from service.assistant.capabilities.job import case_of, engine_of
from service.assistant.handlers.base import Context
from service.assistant.messages import say
from service.contract import ChecklistBlock, ChecklistStep
from service.retrieval.models import Hit
from service.understanding.case import family

DATA = Path(__file__).parent / "data" / "explanations.yaml"
REPORTS = ("serving_report", "network_report")
# What the user may suspect, by the signature families that confirm it (mentions.yaml: family:*).
SUSPECTED = {"memory": ("memory", "serving_memory", "host_memory"), "network": ("network", "shm"), "driver": ("driver",),
             "hardware": ("hardware",), "software": ("software", "precision", "launch")}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
MAX_COMMANDS = 4


EMPTY_BRACKETS = re.compile(r"\s*[（(]\s*[)）]")
SPACE_RUN = re.compile(r" {2,}")


@cache
def explanations() -> dict[str, dict[str, Any]]:
    return yaml_files.safe_load(DATA.read_text(encoding="utf-8"))


OPTIONAL = re.compile(r"\[\[(.*?)\]\]")


def fill(template: str, values: dict[str, Any]) -> str:
    """The template with the case's values. `[[ (status {ib_wc_status})]]` is kept only when the case has every value it
    names; any other placeholder the case has no value for is left out with its brackets."""
    template = OPTIONAL.sub(lambda m: m.group(1) if all(values.get(n) not in (None, "") for n in PLACEHOLDER.findall(m.group(1))) else "", template)
    text = PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), "")), template)
    text = EMPTY_BRACKETS.sub("", text)  # "(status )" with no status
    return SPACE_RUN.sub(" ", text).replace(" :", ":").replace(" .", ".")


def source_hit(key: str, lang: str, source: dict[str, str], text: str) -> Hit:
    """A citation of a curated table's source (a signature's explanation, an engine's documented defaults) as a retrieval hit."""
    return Hit(id=source_id(key, lang), doc_id=key, language=lang, title=source["title"], heading="", topics=["diagnostics"],
               source=source["title"], url=source["url"], sources=[source], score=1.0, snippet=text[:240], text=text)


def source_id(key: str, lang: str) -> str:
    return "src-" + hashlib.sha1(f"{key}:{lang}".encode()).hexdigest()[:10]


def curated_source_ids() -> set[str]:
    """Every citation id a curated table can give (signature explanations, engine settings), in both languages: a citation
    is valid when it is a chunk of the index or one of these."""
    from service.assistant.capabilities.serving_memory import engines

    keys = [f"signature-{s}" for s in explanations()] + [f"engine-{e}" for e in engines()]
    return {source_id(k, lang) for k in keys for lang in ("en", "zh")}


def card_hit(signature: str, lang: str, text: str) -> Hit:
    return source_hit(f"signature-{signature}", lang, explanations()[signature]["source"], text)


@capability("diagnose")
def diagnose(ctx: Context) -> Finding | None:
    lang = ctx.lang
    case = case_of(ctx)
    found = [s for s in case.signatures if family(s) not in REPORTS and s in explanations()]
    if not found and case.subject in ("training_oom", "serving_memory"):
        found = ["cuda_oom"]  # an OOM reported in words: no error line, the same diagnosis
    if not found:
        return None
    top = found[0]
    if top == "cuda_oom" and (case.subject == "serving_memory" or engine_of(ctx)):
        top = "cuda_oom_serving"  # a serving engine's OOM is not a training job's: its own settings explain it
    values: dict[str, Any] = {f.name: f.value for f in reversed(case.facts)}
    values["gpu_sm_text"] = f" (sm_{values['gpu_sm']})" if values.get("gpu_sm") else ""
    card = explanations()[top][lang]
    lead = fill(card["lead"], values)
    suspected = [f for f in case.mentions("family") if f in SUSPECTED]
    code = values.get("xid_code")
    meaning = (explanations()[top].get("codes") or {}).get(int(code) if str(code).isdigit() else code, {}).get(lang) if code else None
    if meaning:
        lead = say("case.diagnose.xid_code", lang, code=code, meaning=meaning)
    if case.act == "yes_no" and suspected and family(top) not in SUSPECTED[suspected[0]]:
        lead = say(f"case.diagnose.not_{suspected[0]}", lang) + " " + lead  # "is this an OOM?" about an ECC error: no, first
    points = [fill(p, values) for p in card["points"]]
    second = next((s for s in found[1:] if family(s) != family(top)), None)
    if second is not None:
        points.append(say("case.diagnose.if_not", lang, other=fill(explanations()[second][lang]["lead"], values)))
    hit = card_hit(top, lang, " ".join([lead, *points]))
    ctx.record("diagnose", {"signatures": found[:3], "line": case.fact("signature").quote if case.fact("signature") else ""},
               {"diagnosis": top, "family": family(top), "explanation": " ".join([lead, *points])})
    marked = [f"{p} [1]" if i == 0 else p for i, p in enumerate(points)]
    commands = list(dict.fromkeys(card.get("commands") or []))[:MAX_COMMANDS]
    blocks = [ChecklistBlock(title=say("diagnostics.next_steps_title", lang), steps=[ChecklistStep(text=say("diagnose.next_steps", lang), commands=commands)])] if commands else []
    return Finding("diagnose", lead=lead, points=marked, blocks=blocks, hits=[hit], verdict=top,
                   basis={"signature": top}, follow_ups=[say("diagnose.follow_up_logs", lang)] if family(top) == "network" else [])
