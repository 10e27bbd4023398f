"""Number formatting for answers; it lives in `service.render.fmt` so renderers format typed values the same way."""

from service.render.fmt import big, duration, duration_band, gib, link_name, memory_bandwidth, money, money_band, num, pct, pick  # noqa: F401 — re-exports

__all__ = ["big", "duration", "duration_band", "gib", "link_name", "memory_bandwidth", "money", "money_band", "num", "pct", "pick"]
