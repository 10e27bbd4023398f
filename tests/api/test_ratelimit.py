"""The reusable rate limiter: named rules in `limits` notation, counted per identifier."""

from __future__ import annotations

import pytest

from service.api.ratelimit import RateLimiter


def test_each_identifier_has_its_own_budget() -> None:
    limiter = RateLimiter({"visitor": "2/minute"})
    assert limiter.hit(("visitor", ("key", "10.0.0.1"))) is None
    assert limiter.hit(("visitor", ("key", "10.0.0.1"))) is None
    refusal = limiter.hit(("visitor", ("key", "10.0.0.1")))
    assert refusal is not None and refusal.rule == "visitor" and 1 <= refusal.retry_after_s <= 60
    assert limiter.hit(("visitor", ("key", "10.0.0.2"))) is None  # another visitor is unaffected


def test_the_first_exhausted_rule_refuses_and_a_refusal_uses_up_nothing() -> None:
    limiter = RateLimiter({"visitor": "5/minute", "key": "3/minute"})
    for ip in ("a", "b", "c"):
        assert limiter.hit(("visitor", ("k", ip)), ("key", ("k",))) is None
    refusal = limiter.hit(("visitor", ("k", "d")), ("key", ("k",)))
    assert refusal is not None and refusal.rule == "key"
    # The refused request did not count against visitor "d": after a reset of the key budget it has all 5.
    limiter_visitor_only = [limiter.hit(("visitor", ("k", "d"))) for _ in range(5)]
    assert limiter_visitor_only == [None] * 5
    assert limiter.hit(("visitor", ("k", "d"))) is not None


def test_reset_clears_every_budget() -> None:
    limiter = RateLimiter({"r": "1/hour"})
    assert limiter.hit(("r", ("x",))) is None
    assert limiter.hit(("r", ("x",))) is not None
    limiter.reset()
    assert limiter.hit(("r", ("x",))) is None


def test_a_rule_that_is_not_limits_notation_is_named_in_the_error() -> None:
    with pytest.raises(ValueError, match="'lots' is not a rate limit"):
        RateLimiter({"visitor": "lots"})
