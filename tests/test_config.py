"""Settings: the one place configuration is read."""

import pytest
from pydantic import ValidationError

from service.config import Settings


def test_api_keys_come_comma_separated_from_the_environment(monkeypatch):
    monkeypatch.setenv("ADVISOR_API_KEYS", " k1, k2 ,,")
    assert Settings().api_keys == ["k1", "k2"]


def test_chroma_url_has_its_conventional_name(monkeypatch):
    monkeypatch.setenv("CHROMA_URL", "http://127.0.0.1:8001")
    assert Settings().chroma_url == "http://127.0.0.1:8001"


@pytest.mark.parametrize("secret", ["changethis", "CHANGEME", "secret"])
def test_production_refuses_placeholder_secrets(secret):
    with pytest.raises(ValidationError, match="placeholder"):
        Settings(environment="production", api_keys=[secret])
    Settings(environment="development", api_keys=[secret])  # allowed while developing


def test_database_url_is_a_sqlite_path(tmp_path):
    assert Settings(database_url=f"sqlite:///{tmp_path}/c.db").sqlite_path == tmp_path / "c.db"
    assert Settings(data_dir=tmp_path).sqlite_path == tmp_path / "advisor.sqlite3"
    with pytest.raises(ValidationError, match="database_url"):
        Settings(database_url="postgresql://db/advisor")
