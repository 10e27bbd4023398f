"""Settings: the one place configuration is read (issue 11: key lists, production refusals, secrets never printed)."""

import pytest
from pydantic import SecretStr, ValidationError

from service.config import Settings


@pytest.mark.parametrize(("raw", "keys"), [(" k1, k2 ", ["k1", "k2"]), ('["a","b"]', ["a", "b"]), (' [" a ", "b"] ', ["a", "b"]), ("", [])])
def test_api_keys_come_comma_separated_or_as_a_json_list(monkeypatch, raw, keys):
    monkeypatch.setenv("ADVISOR_API_KEYS", raw)
    settings = Settings()
    assert settings.api_key_values == keys
    assert all(isinstance(k, SecretStr) for k in settings.api_keys)


@pytest.mark.parametrize("raw", [" , ", "k1,,k2", "k1,", '["a",', '["a", 1]', '{"a": 1}', "k 1,k2"])
def test_a_malformed_key_list_is_an_error_not_an_open_api(monkeypatch, raw):
    monkeypatch.setenv("ADVISOR_API_KEYS", raw)
    with pytest.raises(ValidationError, match="ADVISOR_API_KEYS"):
        Settings()


def test_admin_keys_parse_the_same_way(monkeypatch):
    monkeypatch.setenv("ADVISOR_ADMIN_KEYS", '["adm-1"]')
    assert Settings().admin_key_values == ["adm-1"]
    monkeypatch.setenv("ADVISOR_ADMIN_KEYS", " , ")
    with pytest.raises(ValidationError, match="ADVISOR_ADMIN_KEYS"):
        Settings()


def test_chroma_url_has_its_conventional_name(monkeypatch):
    monkeypatch.setenv("CHROMA_URL", "http://127.0.0.1:8001")
    assert Settings().chroma_url == "http://127.0.0.1:8001"


@pytest.mark.parametrize("secret", ["changethis", "CHANGEME", "secret", "your-api-key-here", "xxxxxxxx", "<api-key>"])
def test_production_refuses_placeholder_secrets(secret):
    with pytest.raises(ValidationError, match="placeholder"):
        Settings(environment="production", api_keys=[secret])
    with pytest.raises(ValidationError, match="placeholder"):
        Settings(environment="production", api_keys=["adv-real-key-9f3Kq"], admin_keys=[secret])
    Settings(environment="development", api_keys=[secret])  # allowed while developing


def test_production_refuses_to_run_open_or_with_shared_admin_keys(monkeypatch):
    with pytest.raises(ValidationError, match="ADVISOR_API_KEYS is empty"):
        Settings(environment="production")
    with pytest.raises(ValidationError, match="must differ"):
        Settings(environment="production", api_keys=["adv-real-key-9f3Kq"], admin_keys=["adv-real-key-9f3Kq"])
    monkeypatch.setenv("ADVISOR_ENVIRONMENT", "production")
    monkeypatch.setenv("ADVISOR_API_KEYS", " , ")
    with pytest.raises(ValidationError, match="ADVISOR_API_KEYS"):
        Settings()
    monkeypatch.setenv("ADVISOR_API_KEYS", "adv-real-key-9f3Kq")
    assert Settings().api_key_values == ["adv-real-key-9f3Kq"]


def test_database_url_is_a_sqlite_path(tmp_path):
    assert Settings(database_url=f"sqlite:///{tmp_path}/c.db").sqlite_path == tmp_path / "c.db"
    assert Settings(data_dir=tmp_path).sqlite_path == tmp_path / "advisor.sqlite3"
    assert Settings(database_url=f"sqlite:///{tmp_path}/c.db").server_database_url is None
    # A postgresql:// URL selects the server store (service/assistant/store_sql.py); other schemes are refused.
    assert Settings(database_url="postgresql://u:p@db:5432/advisor").server_database_url == "postgresql://u:p@db:5432/advisor"
    with pytest.raises(ValidationError, match="database_url"):
        Settings(database_url="mysql://db/advisor")


PASSWORD = "hunter2-Pa55w0rd"
LLM_KEY = "sk-live-AbCdEfGhIjKlMnOpQrStUv"


@pytest.mark.parametrize(("env", "field"), [
    ({"ADVISOR_DATABASE_URL": f"mysql://admin:{PASSWORD}@db:5432/advisor"}, "database_url"),
    ({"ADVISOR_LLM_API_KEY": f"{LLM_KEY} trailing words"}, "llm_api_key"),
    ({"ADVISOR_ENVIRONMENT": "production", "ADVISOR_API_KEYS": f"changeme,{PASSWORD}", "ADVISOR_LLM_API_KEY": LLM_KEY}, "placeholder"),
    ({"ADVISOR_API_KEYS": f"{PASSWORD},,", "ADVISOR_LLM_API_KEY": LLM_KEY, "ADVISOR_PORT": "not-a-port"}, "port"),
])
def test_validation_errors_name_the_field_and_never_print_a_secret(monkeypatch, env, field):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError) as info:
        Settings()
    text = str(info.value) + repr(info.value)
    assert field in text
    for secret in (PASSWORD, LLM_KEY, LLM_KEY[:12], PASSWORD[:8]):
        assert secret not in text


def test_secrets_stay_out_of_repr_and_dumps():
    settings = Settings(api_keys=["adv-key-1"], admin_keys=["adm-key-1"], llm_api_key=LLM_KEY, database_url=f"sqlite:///{PASSWORD}.db")
    text = repr(settings) + settings.model_dump_json()
    assert "adv-key-1" not in text and "adm-key-1" not in text and LLM_KEY not in text and PASSWORD not in text
    assert settings.llm_api_key.get_secret_value() == LLM_KEY


def test_body_limit_and_log_content_settings(monkeypatch):
    assert Settings().max_body_bytes == 1_048_576 and Settings().log_content is False
    monkeypatch.setenv("ADVISOR_MAX_BODY_BYTES", "10")
    with pytest.raises(ValidationError, match="max_body_bytes"):
        Settings()
