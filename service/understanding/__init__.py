"""Understanding: language, intent, sizing ask and slots of a message, read by a semantic router over
data-file exemplars combined with structured evidence (see understander.py)."""

from service.understanding.registry import Exemplar, IntentSpec, Registry, load_registry
from service.understanding.understander import RoutedUnderstander, Understander, default_understander

__all__ = ["Exemplar", "IntentSpec", "Registry", "RoutedUnderstander", "Understander", "default_understander", "load_registry"]
