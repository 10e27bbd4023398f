"""Settings read from commands, configs and `key=value` text, through one vocabulary (data/settings.yaml)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from service import yaml_files
from service.understanding.case.model import Fact, Scalar

DATA = Path(__file__).parent / "data"
TRUE = {"true", "1", "yes", "on", "y"}
FALSE = {"false", "0", "no", "off", "n", "none"}
NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$", re.I)


def normalise_key(key: str) -> str:
    return key.strip().lstrip("-").replace("-", "_").lower()


@dataclass(frozen=True)
class Setting:
    fact: str
    type: Any  # "int" | "float" | "bool" | "str" | {written: value}

    def convert(self, raw: Any) -> Scalar | None:
        """The value as this setting's type, or None when `raw` is not one (so another reading of the key may take it)."""
        if raw is None:
            return None
        text = str(raw).strip().strip("'\"")
        if text.lower() == "auto" and self.type != "str" and not isinstance(self.type, dict):
            return None  # HF's "auto" in a DeepSpeed config: the Trainer's own argument decides
        if isinstance(self.type, dict):
            return self.type.get(text.lower())
        if self.type == "bool":
            if isinstance(raw, bool):
                return raw
            lowered = text.lower()
            return True if lowered in TRUE else False if lowered in FALSE else None
        if self.type in ("int", "float"):
            if isinstance(raw, bool) or not NUMBER.match(text):
                return None
            value = float(text)
            if self.type == "int":
                return int(value) if value == int(value) and abs(value) < 1e12 else None
            return value
        return text[:200] if text else None


@cache
def vocabulary() -> dict[str, tuple[Setting, ...]]:
    """Normalised spelling -> the settings it may mean, in file order (a `stage` of 3 is ZeRO; of `sft`, the task)."""
    data = yaml_files.safe_load((DATA / "settings.yaml").read_text(encoding="utf-8"))["settings"]
    table: dict[str, list[Setting]] = {}
    for fact, entry in data.items():
        setting = Setting(fact=fact, type=entry["type"])
        for spelling in entry["spellings"]:
            table.setdefault(normalise_key(spelling), []).append(setting)
    return {key: tuple(settings) for key, settings in table.items()}


def read_setting(key: str, raw: Any, *, line: int, quote: str, parser: str) -> Fact | None:
    """The fact one `key = raw` gives, or None for a key the vocabulary does not know or a value of no known type."""
    for setting in vocabulary().get(normalise_key(key), ()):
        value = setting.convert(raw)
        if value is not None:
            return Fact(name=setting.fact, value=value, line=line, quote=quote[:200], parser=parser)
    return None


def walk(data: Any, path: tuple[str, ...] = (), *, limit: int = 2000) -> list[tuple[str, str, Any]]:
    """(path, key, value) for every scalar in a parsed config, with DeepSpeed's nested forms read flat:
    {"bf16": {"enabled": true}} is bf16 = true, {"offload_optimizer": {"device": "cpu"}} is offload_optimizer = cpu,
    {"zero_optimization": {"stage": 3}} is zero_stage = 3. Each entry: (the key as written, the key read, the value).
    At most `limit` entries (an alias bomb in YAML is not walked)."""
    out: list[tuple[str, str, Any]] = []
    stack: list[tuple[tuple[str, ...], Any]] = [(path, data)]
    while stack and len(out) < limit:
        where, node = stack.pop()
        if isinstance(node, dict):
            for key, value in list(node.items())[:500]:
                key = str(key)
                if isinstance(value, dict) and "enabled" in value and not isinstance(value["enabled"], dict):
                    out.append((key, key, value["enabled"]))
                if isinstance(value, dict) and "device" in value and key.startswith("offload"):
                    out.append((key, key, value["device"]))
                    continue
                if key == "stage" and where and where[-1] == "zero_optimization":
                    out.append((key, "zero_stage", value))
                    continue
                if isinstance(value, (dict, list)):
                    stack.append(((*where, key), value))
                else:
                    out.append((key, key, value))
        elif isinstance(node, list):
            stack.extend((where, item) for item in node[:200])
    return out
