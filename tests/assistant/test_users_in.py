"""User counts for serving sizes: the consultant reads the same spellings the slot reader does."""

from __future__ import annotations

import pytest

from service.assistant import consult


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("a support bot for 2,500 daily active users", 2500),
        ("6k DAU chat app", 6000),
        ("日活四万的应用", 40000),
        ("三万日活", 30000),
        ("500 concurrent users", 500),
    ],
)
def test_user_counts_for_serving(text, users) -> None:
    assert consult.users_in(text) == users


def test_daily_actives_use_the_daily_share() -> None:
    assert consult.peak_share("2,500 daily active users") == consult.DAILY_ACTIVE_SHARE
