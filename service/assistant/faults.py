"""A broken part in words, once for /readyz and for the 503 a chat gets: both name the same repair (issue 28).

The sentences are data (service/assistant/messages/fault.{en,zh}.yaml), in the request's language.
"""

from __future__ import annotations

from typing import Any

from service.assistant.messages import say
from service.errors import StoreDamagedError


def store_problem(error: StoreDamagedError, lang: str) -> dict[str, Any]:
    """The readiness problem for a damaged store: part, message, repair, permanent."""
    values = {"path": error.path, "detail": error.detail}
    return {
        "part": "conversation_store",
        "message": say(f"fault.store.{error.kind}", lang, **values),
        "repair": say(f"fault.store.{error.kind}_repair", lang, **values),
        "permanent": True,
    }


def store_chat_body(error: StoreDamagedError, lang: str) -> dict[str, Any]:
    """The 503 body of a request the damaged store refused: the readiness problem, said as a sentence."""
    problem = store_problem(error, lang)
    message = say("fault.store.chat", lang, problem=problem["message"], repair=problem["repair"])
    return {"error": "store_damaged", "message": message, "part": problem["part"], "repair": problem["repair"]}


def index_message(lang: str, *, permanent: bool, repair: str) -> str:
    return say("fault.index.permanent", lang, repair=repair) if permanent else say("fault.index.transient", lang)
