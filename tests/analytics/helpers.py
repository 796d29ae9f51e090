"""Organizations and exports shared by the export tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox.export import export_organization


@contextlib.contextmanager
def org_for_export(folder: Path, *, seed: int, topic: str) -> Iterator[Sandbox]:
    """A small organization with a message edited and moved to ``topic``, a direct message and
    a message of Notification Bot.

    For the modules that export it (each starts its own: their tests change its messages).
    """
    with Sandbox.start(folder, size="small", seed=seed) as sb:
        with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin:
            sent = admin.messages.send_to_channel("general", topic, "Before the export")
            admin.messages.edit(sent.id, content="Edited before the export", topic=f"{topic}ed")
            admin.messages.send_direct(sb.accounts["member"].user_id, "A direct message")
            # Notification Bot announces it: a system bot's message, whose sender no GET /users
            # lists
            admin.channels.subscribe(["announced"], announce=True)
        yield sb


def export_tarball(org: Sandbox, out: Path, *, chunk_size: int) -> Path:
    """The organization export of ``org`` written to ``out``."""
    return export_organization(
        org.store, out, upload_dir=org.data_dir / "uploads", chunk_size=chunk_size, progress=False
    )
