"""Event de-duplication: one claim wins, it survives a restart, and it expires."""

from __future__ import annotations

from service.channels.slack.dedupe import EventDeduper


def test_the_first_claim_wins_and_any_shared_key_is_a_duplicate(tmp_path):
    dedupe = EventDeduper(tmp_path / "seen.sqlite3")
    assert dedupe.claim("event:Ev1", "message:T:C:1.0")
    assert not dedupe.claim("event:Ev1", "message:T:C:1.0")  # a retry
    assert not dedupe.claim("event:Ev2", "message:T:C:1.0")  # the same message as another event type
    assert dedupe.claim("event:Ev3", "message:T:C:2.0")
    dedupe.close()


def test_claims_survive_a_restart_and_expire(tmp_path):
    EventDeduper(tmp_path / "seen.sqlite3").claim("event:Ev1", now=1000.0)
    reopened = EventDeduper(tmp_path / "seen.sqlite3", ttl_s=60)
    assert not reopened.claim("event:Ev1", now=1030.0)
    assert reopened.claim("event:Ev1", now=1061.0)  # older than the ttl: Slack stopped retrying long ago
