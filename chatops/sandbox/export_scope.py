"""Which messages an organization export holds, as Zulip's export types choose them.

A public export holds the messages of public channels only, with every person's message flags
for them. An export with consent holds also what the consenting people may read (their direct
messages, their private channels), and only the consenting people's message flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import message_fetch
from . import users as users_mod
from .store import Row, Store

__all__ = ["ExportScope"]


@dataclass(frozen=True)
class ExportScope:
    """Which messages an export holds.

    Attributes:
        consenting: the people whose messages (direct, private channels: what each may read)
            and message flags are exported besides the public channels' messages; empty for a
            public export.
    """

    consenting: frozenset[int] = frozenset()

    def readable(self, store: Store, first: int, last: int) -> set[int]:
        """The ids from ``first`` to ``last`` of the messages a consenting person may read."""
        parts: list[str] = []
        params: list[Any] = [first, last]
        for uid in sorted(self.consenting):
            viewer = users_mod.get_user(store, uid)
            if viewer is not None:
                sql, more = message_fetch.access_condition(store, viewer)
                parts.append(sql)
                params += more
        if not parts:
            return set()
        rows = store.query(
            f"SELECT m.id FROM messages m WHERE m.id BETWEEN ? AND ? AND ({' OR '.join(parts)})",
            params,
        )
        return {int(r["id"]) for r in rows}

    def narrow(
        self, store: Store, messages: list[Row], flags: list[Row]
    ) -> tuple[list[Row], list[Row]]:
        """The messages (rows in id order) and message flags of one chunk that are exported."""
        if not messages:
            return [], []
        public = {int(r["id"]) for r in store.query("SELECT id FROM streams WHERE invite_only = 0")}
        readable = self.readable(store, int(messages[0]["id"]), int(messages[-1]["id"]))
        kept = [m for m in messages if m["stream_id"] in public or int(m["id"]) in readable]
        ids = {int(m["id"]) for m in kept}
        return kept, [
            f
            for f in flags
            if int(f["message_id"]) in ids
            and (not self.consenting or int(f["user_id"]) in self.consenting)
        ]
