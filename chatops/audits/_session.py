"""Where an audit notebook gets its client: a zuliprc, a site, or a sandbox of its own."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from .._exceptions import ConfigError

if TYPE_CHECKING:
    from .._client import Client
    from ..sandbox import Sandbox

__all__ = ["AuditSession", "open_session", "parse_as_of"]


@dataclass
class AuditSession:
    """A client for an audit, and the sandbox serving it when there is one.

    Example::

        with open_session(zuliprc="", site="") as session:   # starts a demo sandbox
            result = org_overview(session.client)
    """

    client: Client
    sandbox: Sandbox | None = None

    @property
    def site(self) -> str:
        """The server the client talks to."""
        return self.client.site

    def close(self) -> None:
        """Close the client and stop the sandbox, if this session started one."""
        self.client.close()
        if self.sandbox is not None:
            self.sandbox.stop()
            self.sandbox = None

    def __enter__(self) -> AuditSession:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        where = "sandbox" if self.sandbox is not None else "server"
        return f"AuditSession({where})"


def parse_as_of(as_of: str) -> datetime | None:
    """The notebook parameter ``as_of`` as an aware UTC datetime; None when empty (now).

    >>> parse_as_of("2026-06-01T12:00:00Z").isoformat()
    '2026-06-01T12:00:00+00:00'

    A naive time is read as UTC; anything but an ISO 8601 date or date-time is a ValueError.
    """
    text = as_of.strip()
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"as_of must be an ISO 8601 date-time such as 2026-06-01T12:00:00Z, not {as_of!r}"
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _names_as_text() -> None:
    """An audit notebook's figures show channel, topic and people's names as they are: text a
    member typed (``price $\\frac{$ up``) is never parsed as TeX, which would fail the cell."""
    import matplotlib

    matplotlib.rcParams["text.parse_math"] = False


def open_session(*, zuliprc: str = "", site: str = "", as_of: str = "") -> AuditSession:
    """A client from the notebook parameters ``zuliprc``, ``site`` and ``as_of``.

    Args:
        zuliprc: path of a zuliprc file; empty means none.
        site: server URL; overrides the zuliprc's ``site``. With no zuliprc, the email and key
            come from ``ZULIP_*`` variables or ``~/.zuliprc``.
        as_of: the audit's reference time (see :func:`parse_as_of`); it dates the demo sandbox
            only, a server is read as it is.

    The notebook's figures then draw names as text, never as TeX. When ``zuliprc`` and
    ``site`` are empty, a demo sandbox starts (in a temporary folder) and
    the client is its admin account, so a notebook runs standalone. With ``as_of`` the demo is
    generated for that moment and the sandbox's clock starts there, so that the notebook's
    results are the same whatever the day it runs.
    """
    moment = parse_as_of(as_of)
    from .._client import Client

    _names_as_text()

    if zuliprc:
        path = Path(zuliprc).expanduser()
        if not path.is_file():
            raise ConfigError(f"zuliprc {path} does not exist")
        return AuditSession(client=Client(site=site or None, config_file=path))
    if site:
        return AuditSession(client=Client(site=site))
    from ..sandbox import Sandbox

    sandbox = Sandbox.start(now=None if moment is None else int(moment.timestamp()))
    try:
        client = Client.from_zuliprc(sandbox.zuliprc("admin"))
    except BaseException:
        sandbox.stop()
        raise
    return AuditSession(client=client, sandbox=sandbox)
