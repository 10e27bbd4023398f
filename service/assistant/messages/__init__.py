"""User-facing sentences, one keyed catalog per language (messages/en.yaml, messages/zh.yaml, and one file per
part of the answer beside them: messages/<part>.en.yaml, messages/<part>.zh.yaml).

`say(key, lang, **values)` formats one entry. Both catalogs have the same keys and the same
placeholders (tests/assistant/test_messages.py), so a Chinese answer never falls back to English.
"""

from __future__ import annotations

from pathlib import Path

from service import budget, yaml_files

DIRECTORY = Path(__file__).parent
LANGUAGES = ("en", "zh")


@budget.loader
def catalog(lang: str) -> dict[str, str]:
    flat = _flatten(yaml_files.safe_load((DIRECTORY / f"{lang}.yaml").read_text(encoding="utf-8")))
    for part in sorted(DIRECTORY.glob(f"*.{lang}.yaml")):
        extra = _flatten(yaml_files.safe_load(part.read_text(encoding="utf-8")))
        clash = sorted(set(extra) & set(flat))
        if clash:
            raise ValueError(f"{part.name} repeats message keys: {clash[:5]}")
        flat.update(extra)
    return flat


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
