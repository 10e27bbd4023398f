"""Number formatting for answers; it lives in `service.render.fmt` so renderers format typed values the same way.
Here too: how answers name a model (its catalog name, else its size)."""

from service.render.fmt import big, duration, duration_band, gib, link_name, memory_bandwidth, money, money_band, num, pct, pick  # noqa: F401 — re-exports

__all__ = ["big", "duration", "duration_band", "gib", "link_name", "memory_bandwidth", "model_label", "money", "money_band", "num", "pct", "pick"]


def model_label(catalog, model: str | None, params_b: float | None) -> str:
    """A model as an answer names it: its catalog name ("Llama 3 8B"), else its size ("13B")."""
    spec = catalog.models.get(model or "")
    return spec.name if spec else f"{num(params_b or 0)}B"
