"""The rule cascade's cue vocabulary is data (service/understanding/data/<lang>/rule_cues.yaml) and reads exactly as before.

rule_cascade_golden.json was recorded from the cascade while its regexes were still written in
understand.py: for every exemplar, every evaluation-set message and a set of probe strings (one
drawn from each alternative of each old cue, alone and inside a real question), which cues matched
and what classify_with_rule decided. The cascade read from data must give the same answers.

Regenerate after an intended change of a cue: .venv/bin/python -m tests.understanding.test_rule_cues
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import yaml

from service.assistant import understand
from service.assistant.slots import Slots, extract_slots
from service.assistant.understand import classify_with_rule, is_fit_question
from service.understanding import rule_cues
from service.understanding.rule_cues import ASK_ORDER_KEY, CUE_KEYS, build_rule_cues, load_rule_cues

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "data" / "rule_cascade_golden.json"
# Texts of the data files and evaluation sets are referred to by hash; when they are edited the
# golden rows for the edited texts go unchecked, so the test insists that most rows are still found.
MIN_FOUND = 0.9


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)
    elif isinstance(node, dict):
        for item in node.values():
            yield from _strings(item)


def source_texts() -> dict[str, str]:
    """Every exemplar and every user message of the evaluation sets, by hash."""
    texts: list[str] = []
    for lang in ("en", "zh"):
        texts += _strings(yaml.safe_load((ROOT / "service" / "understanding" / "data" / lang / "exemplars.yaml").read_text(encoding="utf-8")))
    for path in sorted((ROOT / "evaluators" / "datasets").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                texts += [turn["message"] for turn in row.get("turns", [])]
                texts += [row[k] for k in ("query", "question") if k in row]
    return {text_key(t): t for t in texts}


def cue_patterns() -> dict[str, re.Pattern[str]]:
    """Every cue the cascade reads, by its data key (asks.<name> for the sizing asks)."""
    cues = load_rule_cues()
    return {**cues.patterns, **{f"{ASK_ORDER_KEY}.{name}": p for name, p in cues.asks}}


def build_golden(patterns: dict[str, re.Pattern[str]], sources: dict[str, str], samples: list[str], embeds: list[list]) -> dict:
    """The cascade's reading of every text; `embeds` are [sample index, source key, cut]: a sample put inside a real question."""
    from service.catalog import default_catalog

    catalog = default_catalog()
    keys = list(patterns)
    outcomes: list[list] = []
    rows = []
    items = [(k, t) for k, t in sources.items()] + [(i, s) for i, s in enumerate(samples)] + [(e, _embedded(e, samples, sources)) for e in embeds]
    for ref, text in items:
        slots = extract_slots(text, catalog)
        outcome = list(classify_with_rule(text, slots))
        if outcome not in outcomes:
            outcomes.append(outcome)
        bits = sum(1 << i for i, k in enumerate(keys) if patterns[k].search(text))
        rows.append([ref, slots.model_dump(exclude_none=True), is_fit_question(text), outcomes.index(outcome), format(bits, "x")])
    return {"cues": keys, "samples": samples, "outcomes": outcomes, "rows": rows}


def _embedded(embed: list, samples: list[str], sources: dict[str, str]) -> str | None:
    sample, host, cut = embed
    text = sources.get(host)
    return None if text is None else f"{text[:cut]} {samples[sample]} {text[cut:]}"


def write_golden(golden: dict, path: Path = GOLDEN) -> None:
    """One row a line, so a diff shows which texts changed."""
    head = {k: golden[k] for k in ("cues", "samples", "outcomes")}
    rows = ",\n".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in golden["rows"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(head, ensure_ascii=False)[:-1] + ',\n"rows":[\n' + rows + "\n]}\n", encoding="utf-8")


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def _golden_texts(golden: dict) -> list[tuple[list, str]]:
    sources = source_texts()
    found = []
    for row in golden["rows"]:
        ref = row[0]
        text = sources.get(ref) if isinstance(ref, str) else golden["samples"][ref] if isinstance(ref, int) else _embedded(ref, golden["samples"], sources)
        if text is not None:
            found.append((row, text))
    return found


def test_most_golden_texts_are_still_there(golden):
    found = _golden_texts(golden)
    assert len(found) >= MIN_FOUND * len(golden["rows"]), "the data files or evaluation sets changed a lot: regenerate the golden file"
    assert len(golden["rows"]) > 3000


def test_every_cue_matches_the_same_texts_as_before(golden):
    patterns = cue_patterns()
    assert set(patterns) == set(golden["cues"])
    differ = []
    for row, text in _golden_texts(golden):
        bits = int(row[4], 16)
        for i, key in enumerate(golden["cues"]):
            if bool(patterns[key].search(text)) != bool(bits >> i & 1):
                differ.append((key, text[:80], bool(bits >> i & 1)))
    assert not differ, differ[:20]


def test_the_cascade_decides_as_before(golden):
    differ = []
    checked = 0
    for row, text in _golden_texts(golden):
        _, slots, fit, outcome, _ = row
        if is_fit_question(text) != fit:
            continue  # the fit words (cues.yaml, not these cues) changed for this text: not this vocabulary's doing
        checked += 1
        # The recorded slots, not today's extraction: a change in slot extraction is not a change of cues.
        got = list(classify_with_rule(text, Slots.model_validate(slots)))
        if got != golden["outcomes"][outcome]:
            differ.append((text[:80], golden["outcomes"][outcome], got))
    assert checked >= MIN_FOUND * len(golden["rows"])
    assert not differ, differ[:20]


def test_every_cue_key_is_in_the_data_and_every_alternative_compiles():
    data = rule_cues.read_alternatives(rule_cues.DATA_DIR)
    for key in CUE_KEYS:
        assert any(data[lang].get(key) for lang in data), key
    asks = [list(data[lang].get(ASK_ORDER_KEY, {})) for lang in data]
    assert asks[0] == asks[1] and set(asks[0]) == set(understand.SIZING_ASKS)
    for lang, cues in data.items():
        assert set(cues) <= set(CUE_KEYS) | {ASK_ORDER_KEY}, lang
        alternatives = [a for k, v in cues.items() for a in (v if k != ASK_ORDER_KEY else [x for alts in v.values() for x in alts])]
        for alternative in alternatives:
            assert isinstance(alternative, str) and alternative.strip(), (lang, alternative)
            re.compile(alternative)


def test_the_module_level_names_are_the_data_cues():
    cues = load_rule_cues()
    for name, key in understand.CUE_NAMES.items():
        assert getattr(understand, name) is cues.patterns[key], name  # none is left behind as an inline regex
    assert set(understand.CUE_NAMES.values()) == set(CUE_KEYS)
    assert [name for name, _ in understand.ASKS] == [name for name, _ in cues.asks]
    assert understand.DEFINITION.flags & re.IGNORECASE
    with pytest.raises(AttributeError):
        understand.NOT_A_CUE  # noqa: B018


def _copy_data(tmp_path: Path) -> Path:
    for lang in ("en", "zh"):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "rule_cues.yaml").write_text((rule_cues.DATA_DIR / lang / "rule_cues.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


def test_an_alternative_added_to_the_data_is_picked_up(tmp_path):
    data_dir = _copy_data(tmp_path)
    assert not build_rule_cues(data_dir).patterns["smalltalk"].search("howdy partner")
    zh = data_dir / "zh" / "rule_cues.yaml"
    zh.write_text(zh.read_text(encoding="utf-8").replace("smalltalk:\n", "smalltalk:\n  - 'howdy\\b'\n", 1), encoding="utf-8")
    assert build_rule_cues(data_dir).patterns["smalltalk"].search("Howdy partner")
    assert load_rule_cues().patterns["smalltalk"].search("howdy partner") is None


def test_an_unknown_cue_or_a_bad_pattern_is_refused(tmp_path):
    data_dir = _copy_data(tmp_path)
    en = data_dir / "en" / "rule_cues.yaml"
    text = en.read_text(encoding="utf-8")
    en.write_text(text + "\nsmal_talk:\n  - hiya\n", encoding="utf-8")
    with pytest.raises(ValueError, match="smal_talk"):
        build_rule_cues(data_dir)
    en.write_text(text.replace("domain:\n", "domain:\n  - 'gpu(('\n", 1), encoding="utf-8")
    with pytest.raises(ValueError, match="domain"):
        build_rule_cues(data_dir)


if __name__ == "__main__":
    # Keeps the recorded probe samples and embeds; re-reads every source text.
    old = json.loads(GOLDEN.read_text(encoding="utf-8"))
    embeds = [row[0] for row in old["rows"] if isinstance(row[0], list)]
    write_golden(build_golden(cue_patterns(), source_texts(), old["samples"], embeds))
