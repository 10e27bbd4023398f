"""Configs: DeepSpeed JSON, accelerate / FSDP / LlamaFactory / axolotl YAML, Trainer and engine arguments, and the
`key=value` or `key: value` settings users write in their prose ("per_device_train_batch_size=4, grad accum 8").

JSON is read with json (then, for a Python dict printed by a script, ast.literal_eval); YAML with yaml.safe_load.
Every key goes through the one settings vocabulary; a key nobody knows is skipped.
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache

import yaml

from service import yaml_files
from service.understanding.case.model import Artefact, Fact
from service.understanding.case.readers import line_of, reader
from service.understanding.case.settings import normalise_key, read_setting, vocabulary, walk

MAX_CONFIG_CHARS = 20_000
TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _parse_json(text: str):
    text = text[:MAX_CONFIG_CHARS]
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    relaxed = TRAILING_COMMA.sub(r"\1", text)
    try:
        return json.loads(relaxed)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(relaxed.replace("true", "True").replace("false", "False").replace("null", "None"))
    except (ValueError, SyntaxError, MemoryError):
        return None


def _facts_from(data, artefact: Artefact, parser: str, quoted: bool) -> list[Fact]:
    facts: list[Fact] = []
    for written, key, value in walk(data):
        line, quote = line_of(artefact, f'"{written}"' if quoted else f"{written}")
        fact = read_setting(key, value, line=line, quote=quote, parser=parser)
        if fact is not None:
            facts.append(fact)
    return facts


KEY_THEN_VALUE = re.compile(r"^[-\w]+\s{0,3}[=:]")


@reader("config_json", kinds=("json",))
def read_json(artefact: Artefact) -> list[Fact]:
    data = _parse_json(artefact.text)
    if not isinstance(data, (dict, list)):
        return []
    return _facts_from(data, artefact, "config_json", quoted=True)


@reader("config_yaml", kinds=("yaml", "code"))
def read_yaml(artefact: Artefact) -> list[Fact]:
    try:
        data = yaml_files.safe_load(artefact.text[:MAX_CONFIG_CHARS])
    except yaml.YAMLError:
        return []
    argv = _argv(data)
    if argv:
        from service.understanding.case.read_commands import facts_from_tokens

        return facts_from_tokens(argv, artefact)
    if not isinstance(data, dict):
        return []
    return _facts_from(data, artefact, "config_yaml", quoted=False)


def _argv(data) -> list[str]:
    """A manifest's command line: a YAML list of strings (`- --max-model-len` / `- "30000"`), or the `command` and `args` of a
    container spec, joined into one argv."""
    if isinstance(data, list) and data and all(isinstance(x, (str, int, float)) for x in data):
        return [str(x) for x in data][:2000]
    if isinstance(data, dict):
        parts = [data.get(key) for key in ("command", "args")]
        if any(isinstance(p, list) for p in parts):
            return [str(x) for p in parts if isinstance(p, list) for x in p if isinstance(x, (str, int, float))][:2000]
    return []


@cache
def _key_value_pattern() -> re.Pattern[str]:
    """`key=value` / `key: value` / `--key value` for every spelling the vocabulary knows, as one alternation (one pass)."""
    spellings = sorted({s for s in vocabulary()}, key=len, reverse=True)
    words = "|".join(re.escape(s).replace("_", "[_-]") for s in spellings if len(s) >= 3)
    return re.compile(rf"(?<![\w.-])-{{0,2}}({words})(?:\s{{0,3}}[=:]\s{{0,3}}|\s{{1,3}})(\"?[\w./-]{{1,80}}\"?)", re.IGNORECASE)


@reader("key_value", kinds=("env", "log", "code"))
def read_key_values(artefact: Artefact) -> list[Fact]:
    return key_value_facts(artefact.text, artefact.first_line, parser="key_value")


def key_value_facts(text: str, first_line: int, *, parser: str) -> list[Fact]:
    """Settings written as `key=value`, `key: value` or `--key value`. In prose a bare word is not a setting ("LoRA on
    Llama 3" says nothing of a `lora` flag): there the key must be a flag or be followed by `=` or `:`."""
    facts: list[Fact] = []
    pattern = _key_value_pattern()
    strict = parser == "prose"
    for offset, line in enumerate(text.splitlines()):
        for match in pattern.finditer(line[:2000]):
            written = match.group(0)
            if strict and not (written.lstrip().startswith("-") or KEY_THEN_VALUE.search(written.strip())):
                continue
            fact = read_setting(normalise_key(match.group(1)), match.group(2).strip('"'), line=first_line + offset, quote=line.strip(), parser=parser)
            if fact is not None:
                facts.append(fact)
    return facts


# Settings said in words ("batch 4", "micro-batch size of 2", "seq len 8192", "序列长度 4096"): the commonest two, read from prose.
NUMBER = r"(\d{1,3}(?:,\d{3})+|\d{1,7})"
PROSE_SETTINGS = (
    ("tp", re.compile(r"(?<![\w-])(?:TP|tensor[- ]parallel(?:ism)?(?:[ _-]size)?|张量并行(?:度)?)\s{0,3}(?:of|=|:|为|是)?\s{0,3}(\d{1,3})(?![\d.])", re.I)),
    ("pp", re.compile(r"(?<![\w-])(?:PP|pipeline[- ]parallel(?:ism)?(?:[ _-]size)?|流水线并行(?:度)?)\s{0,3}(?:of|=|:|为|是)?\s{0,3}(\d{1,3})(?![\d.])", re.I)),
    ("global_batch", re.compile(r"(?<![\w-])(?:global[ _-]?batch(?:[ _-]?size)?|全局\s?batch)\s{0,3}(?:of|=|:|为|是)?\s{0,3}" + NUMBER + r"(?![\d.])", re.I)),
    ("micro_batch", re.compile(r"(?<![\w-])(?:micro[- _]?batch(?:[ _-]?size)?|batch[ _-]?size|batch|bs)\s{0,3}(?:of|=|:|为|是|设为|设成)?\s{0,3}(\d{1,4})(?![\d.kK])", re.I)),
    ("seq_len", re.compile(r"(?<![\w-])(?:seq(?:uence)?(?:[ _-]?len(?:gth)?)?|max[ _-]?len(?:gth)?|cutoff[ _-]?len|序列长度|最大长度)\s{0,3}(?:of|=|:|为|是|设为|设成)?\s{0,3}"
                          + NUMBER + r"(?![\d.kK])", re.I)),
)


def prose_setting_facts(line: str, line_no: int) -> list[Fact]:
    facts = []
    for name, pattern in PROSE_SETTINGS:
        match = pattern.search(line[:2000])
        if match:
            value = int(match.group(1).replace(",", ""))
            if name != "seq_len" or value >= 128:
                facts.append(Fact(name=name, value=value, line=line_no, quote=match.group(0).strip()[:80], parser="prose"))
    return facts
