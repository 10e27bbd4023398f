"""One handler per intent; each returns a Draft for the pipeline to compose."""

from collections.abc import Callable

from service.assistant.handlers.base import Context, Draft
from service.assistant.handlers.claims import claim_check
from service.assistant.handlers.compare import compare
from service.assistant.handlers.consulting import consulted
from service.assistant.handlers.diagnostics import diagnostics
from service.assistant.handlers.knowledge import faq, out_of_scope, preflight, smalltalk
from service.assistant.handlers.learner import for_learners
from service.assistant.handlers.spec import spec
from service.assistant.handlers.rent_or_buy import cloud_vs_onprem
from service.assistant.handlers.recommendation import recommend
from service.assistant.handlers.workload import sizing_answer
from service.assistant.handlers import observed_speed, slow_network

HANDLERS: dict[str, Callable[[Context], Draft]] = {
    "faq": faq,
    "spec": spec,
    # Sizing and recommendations consult before they compute: fit questions weigh every method,
    # budget words steer to PEFT, pre-training without data assumes compute-optimal tokens.
    "sizing": consulted(sizing_answer),
    # A student with no budget and no workload gets the entry-tier rental advice (handlers/learner.py).
    "recommend": for_learners(consulted(recommend)),
    "compare": compare,
    "cloud_vs_onprem": cloud_vs_onprem,
    "claim_check": claim_check,
    "diagnostics": diagnostics,
    "preflight": preflight,
    "smalltalk": smalltalk,
    "out_of_scope": out_of_scope,
}


# Findings that answer a case whatever intent it was routed to (two GPUs measured as equally fast; a slow link between
# training machines): tried in order after the capabilities and before the intent's handler; each returns None when
# it does not apply. A new one is one entry here.
FINDINGS: tuple[Callable[[Context], Draft | None], ...] = (observed_speed.answer, slow_network.answer)
NO_FINDINGS = ("out_of_scope", "smalltalk")


def answer_finding(ctx: Context) -> Draft | None:
    if ctx.understanding.intent in NO_FINDINGS:
        return None
    return next((draft for finding in FINDINGS if (draft := finding(ctx)) is not None), None)
