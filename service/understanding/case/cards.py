"""The card variant a message names by family and memory ("A100 GPUs (40GB)", "40G 的 A100", "V100 16G"): the catalog
entry of that family with that memory, which a name alone ("A100") would default away from."""

from __future__ import annotations

import re
from functools import cache

from service.catalog import Catalog
from service.understanding.case.model import Fact

MEMORY = r"(?P<mem>\d{2,3})\s*(?:G|GB|GiB|g)(?![A-Za-z0-9])"
WINDOW = r"[^\n。；;，,]{0,18}?"


@cache
def _families(catalog_id: int, names: tuple[tuple[str, str, float], ...]) -> tuple[re.Pattern[str], dict[tuple[str, int], str]]:
    """One pattern over every family that has several memory sizes, and (family, memory) -> catalog id."""
    variants: dict[tuple[str, int], str] = {}
    # The SXM part is the default spelling of a family ("A100 40GB" is the SXM4 card); a PCIe one is named as such.
    for gpu_id, family, memory in sorted(names, key=lambda n: "pcie" in n[0]):
        variants.setdefault((family, int(memory)), gpu_id)
    multi = sorted({f for f, _ in variants if sum(1 for g, _ in variants if g == f) > 1}, key=len, reverse=True)
    families = "|".join(re.escape(f) for f in multi) or "(?!x)x"
    pattern = re.compile(rf"(?<![A-Za-z0-9])(?P<family>{families})(?![0-9]){WINDOW}{MEMORY}|{MEMORY.replace('mem', 'mem2')}\s*(?:的|显存的|版)?\s*(?P<family2>{families})(?![0-9])",
                         re.IGNORECASE)
    return pattern, variants


MULTI_MEMORY_FAMILY = re.compile(r"(A100|A800|V100|H100|4060 Ti|A10G?|L40S?|A6000)", re.IGNORECASE)


def _family_of(name: str) -> str | None:
    match = MULTI_MEMORY_FAMILY.search(name)
    return match.group(1).upper() if match else None


def card_variant_facts(prose_lines: list[tuple[int, str]], catalog: Catalog) -> list[Fact]:
    names = tuple((g.id, fam, g.memory_gb) for g in catalog.gpus.values() if (fam := _family_of(g.name)) is not None)
    pattern, variants = _families(id(catalog), names)
    facts: list[Fact] = []
    for line_no, line in prose_lines:
        for match in pattern.finditer(line[:2000]):
            family = (match.group("family") or match.group("family2") or "").upper()
            memory = int(match.group("mem") or match.group("mem2"))
            gpu_id = variants.get((family, memory))
            if gpu_id:
                facts.append(Fact(name="gpu_variant", value=gpu_id, line=line_no, quote=match.group(0).strip()[:80], parser="prose"))
    return facts
