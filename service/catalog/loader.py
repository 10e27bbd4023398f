"""Load and cross-check the catalogs in knowledge/hardware/.

A bad entry stops start-up with a message naming the file, the entry and the field.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

import ahocorasick
import yaml
from pydantic import BaseModel, ValidationError

from service import yaml_files
from service.catalog.models import GpuSpec, InstanceType, ModelArch, TierProfile
from service.errors import CatalogError, Problem, UnknownNameError

T = TypeVar("T", bound=BaseModel)

FILES = {"gpus": "gpus.yaml", "models": "models.yaml", "instances": "instances.yaml", "tiers": "tiers.yaml"}


NAME_SEPARATORS = re.compile(r"[\s\-_/·]+")
PATH_SEPARATOR = re.compile(r"[\\/]")
SIZE_IN_NAME = re.compile(r"(\d+(?:\.\d+)?)\s*b(?![a-z0-9])")


def normalize(name: str) -> str:
    """Fold case, spaces, dashes and underscores so 'Llama-3-70B' == 'llama3 70b'."""
    text = name.strip().lower().replace("nvidia", "").replace("英伟达", "")
    return NAME_SEPARATORS.sub("", text)


_FAMILY_GOES_ON = frozenset("0123456789.")  # right after a family: a version goes on ("falcon3", "llama3.1")


@dataclass(frozen=True)
class Catalog:
    gpus: dict[str, GpuSpec]
    models: dict[str, ModelArch]
    instances: dict[str, InstanceType]
    tiers: dict[str, TierProfile]
    _gpu_names: dict[str, str] = field(default_factory=dict, repr=False)
    _model_names: dict[str, str] = field(default_factory=dict, repr=False)
    _instance_names: dict[str, str] = field(default_factory=dict, repr=False)
    _families: dict = field(default_factory=dict, repr=False, compare=False)  # size token -> automaton of model families

    # -- lookups --------------------------------------------------------------
    def gpu(self, name: str, *, field_name: str = "gpu") -> GpuSpec:
        return self.gpus[self._resolve(name, self._gpu_names, "GPU", field_name)]

    def model(self, name: str, *, field_name: str = "model") -> ModelArch:
        key = self._model_key(name)
        if key is None:
            self._unknown(name, self._model_names, "model", field_name)
        return self.models[key]

    def instance(self, name: str, *, field_name: str = "instance") -> InstanceType:
        return self.instances[self._resolve(name, self._instance_names, "instance type", field_name)]

    def find_gpu(self, name: str) -> GpuSpec | None:
        key = self._gpu_names.get(normalize(name))
        return self.gpus[key] if key else None

    def find_model(self, name: str) -> ModelArch | None:
        key = self._model_key(name)
        return self.models[key] if key else None

    def instances_for(self, gpu_id: str) -> list[InstanceType]:
        return [i for i in self.instances.values() if i.gpu == gpu_id]

    def gpu_names(self) -> dict[str, str]:
        """Every accepted spelling (normalized) -> GPU id; used by free-text understanding."""
        return dict(self._gpu_names)

    def model_names(self) -> dict[str, str]:
        return dict(self._model_names)

    # -- internals ------------------------------------------------------------
    def _resolve(self, name: str, names: dict[str, str], kind: str, field_name: str) -> str:
        key = names.get(normalize(name))
        if key is None:
            self._unknown(name, names, kind, field_name)
        return key  # type: ignore[return-value]

    def _model_key(self, name: str) -> str | None:
        """A spelling, else the last part of a repo id or local path ("Qwen/Qwen1.5-14B-Chat", "/models/chatglm3-6b"), else fuzzy."""
        base = PATH_SEPARATOR.split(name.strip().rstrip("/\\"))[-1]
        for candidate in dict.fromkeys((name, base)):
            key = self._model_names.get(normalize(candidate))
            if key:
                return key
        # The base first: in "Qwen/Qwen1.5-14B-Chat" the organisation's "Qwen" would otherwise read as Qwen (v1).
        return self._fuzzy_model(base) or (self._fuzzy_model(name) if base != name else None)

    def _fuzzy_model(self, name: str) -> str | None:
        """'70B 的 Llama 3' -> llama-3-70b: a family spelling plus a size token."""
        text = normalize(name)
        # No \b after the size: CJK characters count as word characters ("70B的Llama 3").
        size = SIZE_IN_NAME.search(name.lower())
        if not size:
            return None
        size_token = size.group(1) + "b"
        families = self._families_of(size_token)
        if families is None:
            return None
        # One pass over the text for every family of that size (not one search per spelling); the longest wins,
        # the catalog's first spelling among equals. The family must start a word ("tinyllama 7b" is not "llama 7b")
        # and end one: "falcon3 7b" is not "falcon 7b", "llama3.1 8b" is not "llama3 8b".
        haystack = text.replace(size_token, " ")
        best: tuple[int, int, str] | None = None
        for end, (order, family, model_id) in families.iter(haystack):
            start = end - len(family) + 1
            if (start == 0 or not ("a" <= haystack[start - 1] <= "z")) and haystack[end + 1 : end + 2] not in _FAMILY_GOES_ON:
                candidate = (len(family), -order, model_id)
                best = candidate if best is None or candidate[:2] > best[:2] else best
        return best[2] if best else None

    def _families_of(self, size_token: str):
        """An automaton of the model spellings that end in `size_token`, without it (built once per size)."""
        if size_token not in self._families:
            automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY, ahocorasick.KEY_STRING)
            for order, (spelling, model_id) in enumerate(self._model_names.items()):
                if spelling.endswith(size_token) and len(spelling) > len(size_token):
                    family = spelling[: -len(size_token)]
                    if not automaton.exists(family):  # the first spelling of a family wins ties, as in catalog order
                        automaton.add_word(family, (order, family, model_id))
            if len(automaton):
                automaton.make_automaton()
            self._families[size_token] = automaton if len(automaton) else None
        return self._families[size_token]

    @staticmethod
    def _unknown(name: str, names: dict[str, str], kind: str, field_name: str) -> None:
        close = difflib.get_close_matches(normalize(name), list(names), n=6, cutoff=0.5)
        suggestions = tuple(dict.fromkeys(names[c] for c in close))[:3]
        hint_en = f" Closest known: {', '.join(suggestions)}." if suggestions else ""
        hint_zh = f"最接近的有：{'、'.join(suggestions)}。" if suggestions else ""
        raise UnknownNameError(
            [
                Problem(
                    field=field_name,
                    en=f"unknown {kind} '{name}'.{hint_en} See GET /v1/hardware/gpus or /v1/models for the full list.",
                    zh=f"未知的{_KIND_ZH.get(kind, kind)}“{name}”。{hint_zh}完整列表见 GET /v1/hardware/gpus 或 /v1/models。",
                    suggestions=suggestions,
                )
            ]
        )


_KIND_ZH = {"GPU": "GPU 型号", "model": "模型", "instance type": "云实例类型"}


def _read_yaml(path: Path) -> list[dict]:
    try:
        data = yaml_files.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogError(str(path), None, None, "file is missing") from None
    except yaml.YAMLError as exc:
        raise CatalogError(str(path), None, None, f"not valid YAML: {exc}") from None
    if not isinstance(data, list):
        raise CatalogError(str(path), None, None, "expected a list of entries at the top level")
    return data


def _parse(path: Path, model: type[T], key: str = "id") -> list[T]:
    entries: list[T] = []
    for index, raw in enumerate(_read_yaml(path)):
        label = str(raw.get(key, f"#{index + 1}")) if isinstance(raw, dict) else f"#{index + 1}"
        try:
            entries.append(model.model_validate(raw))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"]) or None
            raise CatalogError(str(path), label, loc, err["msg"]) from None
    seen: set[str] = set()
    for entry in entries:
        ident = getattr(entry, key)
        if ident in seen:
            raise CatalogError(str(path), ident, key, "duplicate id")
        seen.add(ident)
    return entries


def _name_index(path: Path, entries: Iterable[GpuSpec | ModelArch | InstanceType]) -> dict[str, str]:
    index: dict[str, str] = {}
    for entry in entries:
        spellings = [entry.id, getattr(entry, "name", ""), *entry.aliases]
        for spelling in filter(None, spellings):
            norm = normalize(spelling)
            owner = index.get(norm)
            if owner is not None and owner != entry.id:
                raise CatalogError(str(path), entry.id, "aliases", f"'{spelling}' already names '{owner}'")
            index[norm] = entry.id
    return index


def load_catalog(directory: Path) -> Catalog:
    gpus = _parse(directory / FILES["gpus"], GpuSpec)
    models = _parse(directory / FILES["models"], ModelArch)
    instances = _parse(directory / FILES["instances"], InstanceType)
    tiers = _parse(directory / FILES["tiers"], TierProfile)
    gpu_ids = {g.id for g in gpus}
    for inst in instances:
        if inst.gpu not in gpu_ids:
            raise CatalogError(str(directory / FILES["instances"]), inst.id, "gpu", f"unknown GPU id '{inst.gpu}'")
    for tier in tiers:
        for gpu_id in tier.gpu_options:
            if gpu_id not in gpu_ids:
                raise CatalogError(str(directory / FILES["tiers"]), tier.id, "gpu_options", f"unknown GPU id '{gpu_id}'")
    return Catalog(
        gpus={g.id: g for g in gpus},
        models={m.id: m for m in models},
        instances={i.id: i for i in instances},
        tiers={t.id: t for t in tiers},
        _gpu_names=_name_index(directory / FILES["gpus"], gpus),
        _model_names=_name_index(directory / FILES["models"], models),
        _instance_names=_name_index(directory / FILES["instances"], instances),
    )


@lru_cache(maxsize=4)
def _cached(directory: str) -> Catalog:
    return load_catalog(Path(directory))


def default_catalog(knowledge_dir: Path | None = None) -> Catalog:
    """The catalog shipped in knowledge/hardware (or under a configured knowledge dir), loaded once."""
    if knowledge_dir is None:
        from importlib.resources import files

        knowledge_dir = Path(str(files("knowledge")))
    return _cached(str(Path(knowledge_dir) / "hardware"))
