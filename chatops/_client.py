"""``Client`` and ``AsyncClient``: twins over ``_BaseClient`` that differ only where they wait.

``AsyncClient`` is written in ``chatops/_async_client/client.py``; ``Client`` is generated from
it (``python scripts/unasync.py``), so the two have the same members with the same meaning.
"""

from __future__ import annotations

import os
from typing import Any

import httpx

from ._async_client.client import AsyncClient
from ._config import Credentials
from ._sync_client.client import Client
from .types import ApiKeyResult

__all__ = ["AsyncClient", "Client", "connect", "fetch_api_key"]


def connect(
    site: str | None = None,
    email: str | None = None,
    api_key: str | None = None,
    *,
    config_file: str | os.PathLike[str] | None = None,
    **kwargs: Any,
) -> Client:
    """Resolve credentials (arguments > ``ZULIP_*`` > zuliprc) and return a ``Client``."""
    return Client(site, email, api_key, config_file=config_file, **kwargs)


def fetch_api_key(
    site: str,
    username: str,
    password: str,
    *,
    transport: httpx.BaseTransport | None = None,
    timeout: float | None = 30.0,
) -> ApiKeyResult:
    """Exchange a username and password for an API key (``POST /fetch_api_key``).

    Args:
        site: the server URL.
        username: the login email (or LDAP username).
        password: the password; it is sent once and never logged.
    """
    creds = Credentials(site=_normalize(site), email=username, api_key=password)
    with Client(credentials=creds, transport=transport, timeout=timeout) as client:
        return client._request(
            "POST",
            "/fetch_api_key",
            params={"username": username, "password": password},
            cast_to=ApiKeyResult,
            idempotent=True,
            auth=False,
        )


def _normalize(site: str) -> str:
    from ._config import normalize_site

    return normalize_site(site)
