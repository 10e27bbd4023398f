"""A small reusable rate limiter over the `limits` library (moving window, in memory).

Rules are named and written in `limits` notation ("30/minute", "1000 per hour"); a hit is
counted under a rule and any identifiers (a key digest, a client IP). The widget uses it per
visitor (widget key + IP) and per key; other channels can add their own named rules.
In-memory storage is per process: behind several workers each enforces its own share.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter


@dataclass(frozen=True)
class Refusal:
    rule: str
    limit: str
    retry_after_s: int


def parse_rule(text: str) -> RateLimitItem:
    """The parsed limit; ValueError naming the text when it is not `limits` notation."""
    try:
        return parse(text)
    except ValueError as exc:
        raise ValueError(f"'{text}' is not a rate limit such as '30/minute' or '1000 per hour'") from exc


class RateLimiter:
    def __init__(self, rules: Mapping[str, str]) -> None:
        self._rules = {name: parse_rule(text) for name, text in rules.items()}
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def hit(self, *checks: tuple[str, tuple[str, ...]]) -> Refusal | None:
        """Count one request under each (rule, identifiers); the first rule that is exhausted refuses it.

        Rules are tested before any is counted, so a refused request does not use up the others.
        """
        for rule, identifiers in checks:
            item = self._rules[rule]
            if not self._limiter.test(item, rule, *identifiers):
                reset_at = self._limiter.get_window_stats(item, rule, *identifiers).reset_time
                return Refusal(rule, str(item), max(1, math.ceil(reset_at - time.time())))
        for rule, identifiers in checks:
            self._limiter.hit(self._rules[rule], rule, *identifiers)
        return None

    def reset(self) -> None:
        self._limiter.storage.reset()
