"""The case reader: a message read once into the user's prose, the artefacts they pasted, typed facts with the
line each came from, the error signatures found (most specific first), and the question act of each part.

    case = read_case(text, catalog)
    case.get("sharding"), case.fact("oom_total_gib").quote, case.act, case.signatures

Nothing after understanding re-reads the raw message: capabilities consume the Case.
"""

from __future__ import annotations

from service.catalog import Catalog
from service.understanding.case.act import act_of, main_act, read_parts
from service.understanding.case.cards import card_variant_facts
from service.understanding.case.derive import derive, nominal_memory_gib, resolve_model
from service.understanding.case.mentions import mention_facts
from service.understanding.case.model import Act, Artefact, Case, Fact, Part
from service.understanding.case.read_configs import key_value_facts, prose_setting_facts
from service.understanding.case.read_errors import family, rank_signatures, signature_facts
from service.understanding.case.read_tools import version_facts
from service.understanding.case.readers import read_artefacts
from service.understanding.case.split import CJK, split_message
from service.understanding.case.subject import subject_of

MAX_CASE_CHARS = 100_000
ERROR_LINE_SPECIFICITY = 40  # a prose line carrying a signature at least this specific is a pasted error, not the user's words

__all__ = ["Act", "Artefact", "Case", "Fact", "Part", "family", "nominal_memory_gib", "read_case", "resolve_model"]


def read_case(text: str, catalog: Catalog) -> Case:
    prose_lines, artefacts = split_message(text[:MAX_CASE_CHARS])
    prose_lines, artefacts = _error_lines_out_of_prose(prose_lines, artefacts)
    facts = read_artefacts(artefacts)
    for line_no, line in prose_lines:
        facts += key_value_facts(line, line_no, parser="prose")
        facts += prose_setting_facts(line, line_no)
        facts += signature_facts(line, line_no, parser="prose")
        facts += version_facts(line, line_no, parser="prose")
        facts += mention_facts(line, line_no)
    facts += card_variant_facts(prose_lines, catalog)
    facts += derive(facts, catalog)
    prose = "\n".join(line for _, line in prose_lines).strip()
    parts = read_parts(prose)
    found = [str(f.value) for f in facts if f.name == "signature"]
    case = Case(prose=prose, artefacts=artefacts, facts=facts, act=main_act(parts), parts=parts, signatures=rank_signatures(found))
    return case.model_copy(update={"subject": subject_of(case)})


def _error_lines_out_of_prose(prose_lines: list[tuple[int, str]], artefacts: list[Artefact]) -> tuple[list[tuple[int, str]], list[Artefact]]:
    """A pasted error line that reads like a sentence ("The model's max seq len (8192) is larger than ...") is an artefact:
    a line with no Chinese whose words carry a specific error signature."""
    from service.understanding.case.read_errors import signatures

    table = signatures()
    kept: list[tuple[int, str]] = []
    moved: list[Artefact] = []
    for line_no, line in prose_lines:
        found = [f for f in signature_facts(line, line_no, parser="prose") if f.name == "signature"]
        asks = act_of(line) not in ("none",)  # "what does an Xid 79 mean?" asks about an error; it does not paste one
        if found and not asks and not CJK.search(line) and any(table[str(f.value)].specificity >= ERROR_LINE_SPECIFICITY for f in found):
            moved.append(Artefact(kind="log", text=line, first_line=line_no))
        else:
            kept.append((line_no, line))
    return kept, sorted([*artefacts, *moved], key=lambda a: a.first_line)
