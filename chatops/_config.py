"""Where credentials come from: arguments > ``ZULIP_*`` environment > zuliprc file.

A user's existing ``~/.zuliprc`` works unchanged: an ``[api]`` section with ``email``, ``key`` and
``site`` (plus the official client's optional ``insecure``, ``cert_bundle``, ``client_cert`` and
``client_cert_key``), read the way the official ``zulip`` package reads it.
"""

from __future__ import annotations

import configparser
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ._exceptions import ConfigError

__all__ = ["Credentials", "normalize_site", "resolve_credentials", "write_zuliprc"]

_TRUE = ("true", "yes", "1", "on")
_FALSE = ("false", "no", "0", "off")


@dataclass(frozen=True)
class Credentials:
    """Where a client connects and as whom.

    ``repr`` never shows the API key::

        >>> Credentials("https://chat.example.com", "bot@example.com", "s3cr3t")
        Credentials(site='https://chat.example.com', email='bot@example.com', insecure=False, ...)
    """

    site: str
    email: str
    api_key: str = field(repr=False)
    insecure: bool = False
    cert_bundle: str | None = None
    client_cert: str | None = None
    client_cert_key: str | None = None

    @property
    def base_url(self) -> str:
        """The API root, ``{site}/api/v1``."""
        return f"{self.site}/api/v1"

    @property
    def verify(self) -> bool | str:
        """The TLS verification setting for httpx."""
        if self.insecure:
            return False
        return self.cert_bundle if self.cert_bundle else True

    @property
    def cert(self) -> str | tuple[str, str] | None:
        """The client certificate setting for httpx."""
        if self.client_cert and self.client_cert_key:
            return (self.client_cert, self.client_cert_key)
        return self.client_cert


def normalize_site(site: str) -> str:
    """Give a bare host a scheme and drop trailing slashes and a trailing ``/api``."""
    site = site.strip()
    if not site:
        raise ConfigError("site is empty")
    if "://" not in site:
        local = site.startswith(("localhost", "127.0.0.1", "[::1]"))
        site = ("http://" if local else "https://") + site
    site = site.rstrip("/")
    for suffix in ("/api/v1", "/api"):
        if site.endswith(suffix):
            site = site[: -len(suffix)].rstrip("/")
    return site


def _parse_bool(value: str, where: str) -> bool:
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigError(f"{where} is set to {value!r}; it must be 'true' or 'false'")


def _default_config_path(env: Mapping[str, str]) -> Path:
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".zuliprc"


def _describe(exc: configparser.Error) -> str:
    """What is wrong with a zuliprc, without quoting its lines (they may hold the key)."""
    if isinstance(exc, configparser.MissingSectionHeaderError):
        return f"line {exc.lineno} comes before any section header such as [api]"
    if isinstance(exc, configparser.ParsingError):
        lines = ", ".join(str(lineno) for lineno, _ in exc.errors)
        return f"cannot parse line(s) {lines}; expected 'name = value'"
    if isinstance(exc, configparser.DuplicateOptionError):
        return f"'{exc.option}' is set twice in [{exc.section}]"
    if isinstance(exc, configparser.DuplicateSectionError):
        return f"section [{exc.section}] appears twice"
    return type(exc).__name__


def _read_zuliprc(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with path.open(encoding="utf-8") as f:
            parser.read_file(f, str(path))
    except configparser.Error as exc:
        raise ConfigError(f"zuliprc {path} is malformed: {_describe(exc)}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"zuliprc {path} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset "
            f"{exc.start}); save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(f"zuliprc {path} cannot be read: {exc.strerror}") from None
    if not parser.has_section("api"):
        raise ConfigError(f"zuliprc {path} has no [api] section")
    return {k: v for k, v in parser.items("api")}


def resolve_credentials(
    site: str | None = None,
    email: str | None = None,
    api_key: str | None = None,
    config_file: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] = os.environ,
) -> Credentials:
    """Resolve credentials: arguments, then ``ZULIP_*`` variables, then the zuliprc file.

    Args:
        site, email, api_key: explicit values; they win over everything else.
        config_file: zuliprc path; default ``ZULIP_CONFIG`` or ``~/.zuliprc``.
        env: the environment mapping to read ``ZULIP_*`` variables from.
    """
    site = site if site is not None else env.get("ZULIP_SITE")
    email = email if email is not None else env.get("ZULIP_EMAIL")
    api_key = api_key if api_key is not None else env.get("ZULIP_API_KEY")
    insecure_text = env.get("ZULIP_ALLOW_INSECURE")
    insecure = (
        _parse_bool(insecure_text, "ZULIP_ALLOW_INSECURE") if insecure_text is not None else None
    )
    cert_bundle = env.get("ZULIP_CERT_BUNDLE")
    client_cert = env.get("ZULIP_CERT")
    client_cert_key = env.get("ZULIP_CERT_KEY")

    explicit = config_file if config_file is not None else env.get("ZULIP_CONFIG")
    path = Path(explicit).expanduser() if explicit else _default_config_path(env)
    source = f"zuliprc {path}"
    if explicit and not path.exists():
        raise ConfigError(f"zuliprc {path} does not exist")
    need_file = explicit or None in (site, email, api_key)
    if need_file and path.exists():
        values = _read_zuliprc(path)
        for key in ("site", "email", "key"):
            if key in values and not values[key].strip():
                raise ConfigError(f"{source}: [api] {key} is empty")
        site = site if site is not None else values.get("site")
        email = email if email is not None else values.get("email")
        api_key = api_key if api_key is not None else values.get("key")
        if insecure is None and "insecure" in values:
            insecure = _parse_bool(values["insecure"], f"{source}: [api] insecure")
        cert_bundle = cert_bundle or values.get("cert_bundle")
        client_cert = client_cert or values.get("client_cert")
        client_cert_key = client_cert_key or values.get("client_cert_key")
        missing_where = f"in {source} ([api] section)"
    else:
        missing_where = (
            f"as arguments, ZULIP_* environment variables or in {source} (which does not exist)"
        )

    missing = [
        name for name, value in (("site", site), ("email", email), ("key", api_key)) if not value
    ]
    if missing:
        raise ConfigError(f"missing {', '.join(missing)}: give it {missing_where}")
    assert site is not None and email is not None and api_key is not None
    if client_cert_key and not client_cert:
        raise ConfigError(f"client_cert_key is set in {source} but client_cert is not")
    return Credentials(
        site=normalize_site(site),
        email=email.strip(),
        api_key=api_key.strip(),
        insecure=bool(insecure),
        cert_bundle=cert_bundle,
        client_cert=client_cert,
        client_cert_key=client_cert_key,
    )


def write_zuliprc(path: str | os.PathLike[str], creds: Credentials) -> Path:
    """Write ``creds`` as a standard zuliprc readable only by its owner (mode 0600)."""
    target = Path(path).expanduser()
    parser = configparser.ConfigParser(interpolation=None)
    api: dict[str, str] = {"email": creds.email, "key": creds.api_key, "site": creds.site}
    if creds.insecure:
        api["insecure"] = "true"
    for name in ("cert_bundle", "client_cert", "client_cert_key"):
        value = getattr(creds, name)
        if value:
            api[name] = value
    parser["api"] = api
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        parser.write(f)
    os.chmod(target, 0o600)
    return target
