"""Where an audit notebook gets its client: a zuliprc, a site, or a sandbox of its own."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from .._exceptions import ConfigError

if TYPE_CHECKING:
    from .._client import Client
    from ..sandbox import Sandbox

__all__ = ["AuditSession", "open_session"]


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


def open_session(*, zuliprc: str = "", site: str = "") -> AuditSession:
    """A client from the notebook parameters ``zuliprc`` and ``site``.

    Args:
        zuliprc: path of a zuliprc file; empty means none.
        site: server URL; overrides the zuliprc's ``site``. With no zuliprc, the email and key
            come from ``ZULIP_*`` variables or ``~/.zuliprc``.

    When both are empty, a demo sandbox starts (in a temporary folder) and the client is its
    admin account, so a notebook runs standalone.
    """
    from .._client import Client

    if zuliprc:
        path = Path(zuliprc).expanduser()
        if not path.is_file():
            raise ConfigError(f"zuliprc {path} does not exist")
        return AuditSession(client=Client(site=site or None, config_file=path))
    if site:
        return AuditSession(client=Client(site=site))
    from ..sandbox import Sandbox

    sandbox = Sandbox.start()
    try:
        client = Client.from_zuliprc(sandbox.zuliprc("admin"))
    except BaseException:
        sandbox.stop()
        raise
    return AuditSession(client=client, sandbox=sandbox)
