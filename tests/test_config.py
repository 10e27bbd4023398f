"""Settings: the one place configuration is read (issue 11: key lists, production refusals, secrets never printed)."""

import pytest
from pydantic import SecretStr, ValidationError

from service.config import Settings

STRONG_KEY = "adv-live-7Hq2xW9mPz4LkR8vN3bT"  # 30 characters, 24 distinct: passes the production strength check


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
        Settings(environment="production", api_keys=[STRONG_KEY], admin_keys=[secret])
    Settings(environment="development", api_keys=[secret])  # allowed while developing


def test_production_refuses_to_run_open_or_with_shared_admin_keys(monkeypatch):
    with pytest.raises(ValidationError, match="ADVISOR_API_KEYS is empty"):
        Settings(environment="production")
    with pytest.raises(ValidationError, match="must differ"):
        Settings(environment="production", api_keys=[STRONG_KEY], admin_keys=[STRONG_KEY])
    monkeypatch.setenv("ADVISOR_ENVIRONMENT", "production")
    monkeypatch.setenv("ADVISOR_API_KEYS", " , ")
    with pytest.raises(ValidationError, match="ADVISOR_API_KEYS"):
        Settings()
    monkeypatch.setenv("ADVISOR_API_KEYS", STRONG_KEY)
    assert Settings().api_key_values == [STRONG_KEY]


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


# --------------------------------------------------------------------------- key strength in production (issue 28)
WEAK_KEYS = [
    "k3y",  # three characters
    "Zq7-adv-9",  # short
    "aaaaaaaaaaaaaaaaaaaaabcdefgh",  # long enough, but almost one character
    "abcabcabcabcabcabcabcabcabc",  # three characters repeated
    "Xy7#Qp2!Xy7#Qp2!Xy7#Qp2!Xy7#Qp2!",  # one short unit repeated
    "abcdefghijklmnopqrstuvwxyz",  # a run of the alphabet
]


@pytest.mark.parametrize("weak", WEAK_KEYS)
def test_production_refuses_short_or_low_entropy_api_and_admin_keys_naming_the_setting(weak):
    with pytest.raises(ValidationError, match="ADVISOR_API_KEYS") as info:
        Settings(environment="production", api_keys=[STRONG_KEY, weak])
    assert "too short or too easy to guess" in str(info.value) and weak not in str(info.value) + repr(info.value)
    with pytest.raises(ValidationError, match="ADVISOR_ADMIN_KEYS") as info:
        Settings(environment="production", api_keys=[STRONG_KEY], admin_keys=[weak])
    assert weak not in str(info.value) + repr(info.value)


@pytest.mark.parametrize("weak", WEAK_KEYS)
def test_development_and_test_keep_short_keys(weak):
    for environment in ("development", "test"):
        settings = Settings(environment=environment, api_keys=[weak], admin_keys=["adm"])
        assert settings.api_key_values == [weak]


def test_generated_keys_pass_the_production_check():
    import secrets
    import uuid

    for _ in range(200):
        for key in (secrets.token_hex(12), secrets.token_urlsafe(32), str(uuid.uuid4())):
            Settings(environment="production", api_keys=[key], admin_keys=[secrets.token_urlsafe(24)])


def test_weak_keys_from_the_environment_or_the_env_file_stop_start_up(monkeypatch, tmp_path):
    monkeypatch.setenv("ADVISOR_ENVIRONMENT", "production")
    monkeypatch.setenv("ADVISOR_API_KEYS", f"{STRONG_KEY},Zq7")
    with pytest.raises(ValidationError, match="ADVISOR_API_KEYS") as info:
        Settings()
    assert "Zq7" not in str(info.value)
    monkeypatch.delenv("ADVISOR_API_KEYS")
    monkeypatch.delenv("ADVISOR_ENVIRONMENT")
    monkeypatch.chdir(tmp_path)  # Settings reads .env from the working directory
    (tmp_path / ".env").write_text(f"ADVISOR_ENVIRONMENT=production\nADVISOR_API_KEYS={STRONG_KEY}\nADVISOR_ADMIN_KEYS=adm-1\n")
    with pytest.raises(ValidationError, match="ADVISOR_ADMIN_KEYS") as info:
        Settings()
    assert "adm-1" not in str(info.value)
