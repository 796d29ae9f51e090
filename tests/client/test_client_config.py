from __future__ import annotations

import stat
from pathlib import Path

import pytest

from chatops import ConfigError, Credentials, resolve_credentials, write_zuliprc


def _rc(path: Path, **api: str) -> Path:
    path.write_text("[api]\n" + "".join(f"{k}={v}\n" for k, v in api.items()))
    return path


def test_zuliprc_alone(tmp_path: Path) -> None:
    rc = _rc(tmp_path / "z", email="a@x.org", key="k1", site="chat.example.com")
    creds = resolve_credentials(config_file=rc, env={})
    assert creds == Credentials("https://chat.example.com", "a@x.org", "k1")


def test_default_path_is_home_zuliprc(tmp_path: Path) -> None:
    _rc(tmp_path / ".zuliprc", email="a@x.org", key="k1", site="https://s.org")
    assert resolve_credentials(env={"HOME": str(tmp_path)}).email == "a@x.org"


def test_env_beats_file_and_arguments_beat_env(tmp_path: Path) -> None:
    rc = _rc(tmp_path / "z", email="file@x.org", key="filekey", site="https://file.org")
    env = {"ZULIP_CONFIG": str(rc), "ZULIP_EMAIL": "env@x.org", "ZULIP_SITE": "https://env.org"}
    creds = resolve_credentials(env=env)
    assert (creds.site, creds.email, creds.api_key) == ("https://env.org", "env@x.org", "filekey")
    creds = resolve_credentials(site="https://arg.org", api_key="argkey", env=env)
    assert (creds.site, creds.email, creds.api_key) == ("https://arg.org", "env@x.org", "argkey")


def test_config_file_argument_beats_zulip_config(tmp_path: Path) -> None:
    a = _rc(tmp_path / "a", email="a@x.org", key="k", site="https://a.org")
    b = _rc(tmp_path / "b", email="b@x.org", key="k", site="https://b.org")
    assert resolve_credentials(config_file=a, env={"ZULIP_CONFIG": str(b)}).email == "a@x.org"


def test_env_only_needs_no_file(tmp_path: Path) -> None:
    env = {
        "HOME": str(tmp_path),
        "ZULIP_SITE": "localhost:9991",
        "ZULIP_EMAIL": "e@x.org",
        "ZULIP_API_KEY": "k",
    }
    assert resolve_credentials(env=env).site == "http://localhost:9991"


@pytest.mark.parametrize(
    ("site", "expected"),
    [
        ("chat.example.com", "https://chat.example.com"),
        ("https://chat.example.com/", "https://chat.example.com"),
        ("https://chat.example.com/api", "https://chat.example.com"),
        ("https://chat.example.com/api/v1/", "https://chat.example.com"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("localhost:9991", "http://localhost:9991"),
    ],
)
def test_site_normalized(site: str, expected: str) -> None:
    assert resolve_credentials(site, "e@x.org", "k", env={"HOME": "/nonexistent"}).site == expected


def test_missing_everything_names_keys(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="missing site, email, key") as info:
        resolve_credentials(env={"HOME": str(tmp_path)})
    assert ".zuliprc" in str(info.value)


def test_missing_key_in_file_names_file(tmp_path: Path) -> None:
    rc = _rc(tmp_path / "z", email="a@x.org", site="https://s.org")
    with pytest.raises(ConfigError, match=r"missing key.*z"):
        resolve_credentials(config_file=rc, env={})


def test_explicit_file_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        resolve_credentials(config_file=tmp_path / "nope", env={})


def test_malformed_file(tmp_path: Path) -> None:
    rc = tmp_path / "z"
    rc.write_text("this is not ini\n")
    with pytest.raises(ConfigError, match="malformed"):
        resolve_credentials(config_file=rc, env={})
    rc.write_text("[other]\nemail=a\n")
    with pytest.raises(ConfigError, match=r"no \[api\] section"):
        resolve_credentials(config_file=rc, env={})


def test_bad_insecure_value(tmp_path: Path) -> None:
    rc = _rc(tmp_path / "z", email="a@x.org", key="k", site="s.org", insecure="maybe")
    with pytest.raises(ConfigError, match="insecure"):
        resolve_credentials(config_file=rc, env={})
    rc = _rc(tmp_path / "z", email="a@x.org", key="k", site="s.org", insecure="true")
    assert resolve_credentials(config_file=rc, env={}).verify is False


def test_write_zuliprc_roundtrip_and_mode(tmp_path: Path) -> None:
    creds = Credentials("https://s.org", "a@x.org", "k3y%with$chars")
    path = write_zuliprc(tmp_path / "sub" / "bot.zuliprc", creds)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert resolve_credentials(config_file=path, env={}) == creds


def test_key_not_in_repr_or_errors(tmp_path: Path) -> None:
    creds = Credentials("https://s.org", "a@x.org", "TOPSECRETKEY")
    assert "TOPSECRETKEY" not in repr(creds)
    rc = _rc(tmp_path / "z", key="TOPSECRETKEY", insecure="bogus")
    with pytest.raises(ConfigError) as info:
        resolve_credentials(config_file=rc, env={})
    assert "TOPSECRETKEY" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("email=a@b.c\nkey=SECRETKEYSECRETKEY\n", "before any section header"),
        ("[api]\nkey=SECRETKEYSECRETKEY\nkey=SECRETKEYSECRETKEY\n", "'key' is set twice in [api]"),
        ("[api]\nSECRETKEYSECRETKEY\n", "cannot parse line(s) 2"),
    ],
)
def test_malformed_zuliprc_says_what_is_wrong_without_quoting_it(
    tmp_path: Path, text: str, expected: str
) -> None:
    rc = tmp_path / "zuliprc"
    rc.write_text(text)
    with pytest.raises(ConfigError) as info:
        resolve_credentials(config_file=str(rc), env={})
    assert expected in str(info.value)
    assert "SECRETKEY" not in str(info.value)


def test_clients_share_one_tls_context_per_setting() -> None:
    """The CA bundle is read once per process, and ``insecure`` still turns verification off."""
    import ssl

    import chatops
    from chatops._base_client import ssl_context

    site = {"site": "https://chat.example.com", "email": "a@x.org", "api_key": "k"}
    contexts = []
    for _ in range(2):
        with chatops.Client(**site) as client:
            contexts.append(client._http._transport._pool._ssl_context)  # type: ignore[attr-defined]
    assert contexts[0] is contexts[1] is ssl_context(True, None)
    assert contexts[0].verify_mode == ssl.CERT_REQUIRED and contexts[0].check_hostname
    insecure = Credentials("https://chat.example.com", "a@x.org", "k", insecure=True)
    with chatops.Client(credentials=insecure) as client:
        context = client._http._transport._pool._ssl_context  # type: ignore[attr-defined]
    assert context.verify_mode == ssl.CERT_NONE and not context.check_hostname
