"""User-facing sentences, one keyed catalog per language (messages/en.yaml, messages/zh.yaml).

`say(key, lang, **values)` formats one entry. Both catalogs have the same keys and the same
placeholders (tests/assistant/test_messages.py), so a Chinese answer never falls back to English.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from service import yaml_files


DIRECTORY = Path(__file__).parent
LANGUAGES = ("en", "zh")


@cache
def catalog(lang: str) -> dict[str, str]:
    data = yaml_files.safe_load((DIRECTORY / f"{lang}.yaml").read_text(encoding="utf-8"))
    return _flatten(data)


def _flatten(tree: dict, prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = str(value)
    return flat


def say(key: str, lang: str, **values: object) -> str:
    return catalog("zh" if lang == "zh" else "en")[key].format(**values)
