"""Understanding: language, intent, sizing ask and slots of a message, read by a semantic router over
data-file exemplars combined with structured evidence (see understander.py), and the case the message
states (service/understanding/case: prose, pasted artefacts, facts with their lines, the question act).

The names below load on first use (PEP 562), so importing a sub-package (the case reader) does not load the router.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_NAMES = {
    "Exemplar": "service.understanding.registry", "IntentSpec": "service.understanding.registry", "Registry": "service.understanding.registry",
    "load_registry": "service.understanding.registry", "RoutedUnderstander": "service.understanding.understander",
    "Understander": "service.understanding.understander", "default_understander": "service.understanding.understander",
}
__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        return getattr(import_module(_NAMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
