"""What changed in stored history: the event queue, the channels' topic lists, the messages
looked up by id, and those changes put in place in the narrows' part files."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..._exceptions import ApiError, BadEventQueueId
from ...types import QueueRegistration
from ._fetch import Fetcher
from ._narrow_files import key_of, narrow_of
from ._pages import MESSAGE_SCHEMA, message_records, records_table

__all__ = ["EVENT_TYPES", "Changes"]

#: Message ids asked for in one ``GET /messages?message_ids=...``.
LOOKUP_CHUNK = 1000
#: The events the queue a sync leaves behind collects for the next one.
EVENT_TYPES = ["update_message", "delete_message", "reaction"]


class Changes(Fetcher):
    """Finding and applying the changes to stored messages (events, topic lists, lookups)."""

    # -- the event queue

    async def _drain(self) -> bool:
        """Read what the queue the last sync registered collected; False if it is gone."""
        queue = self.m.get("events")
        if not queue:
            return False
        last = int(queue["last_event_id"])
        try:
            # One read, never acknowledged (the queue is deleted once this sync has finished):
            # a sync interrupted after it reads the same events again.
            events = await self.client.events.get(
                queue["queue_id"], last_event_id=last, dont_block=True
            )
        except BadEventQueueId:
            return False
        self.stats.requests += 1
        for event in events:
            if int(event.get("id", -1)) > last:
                self._event(event)
        return True

    def _event(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "update_message":
            ids = event.get("message_ids") or [event.get("message_id")]
            self.changed.update(int(i) for i in ids if i is not None)
        elif kind == "reaction" and event.get("message_id") is not None:
            self.changed.add(int(event["message_id"]))
        elif kind == "delete_message":
            ids = event.get("message_ids") or [event.get("message_id")]
            self.deleted.update(int(i) for i in ids if i is not None)

    async def _register(self) -> QueueRegistration:
        """The queue the next sync drains, the channels with their subscribers (one request
        for every channel's members) and every account, system bots included (``GET /users``
        leaves them out, yet they post)."""
        reg = await self.client.events.register(
            event_types=EVENT_TYPES,
            fetch_event_types=["subscription", "realm_user"],
            include_subscribers=True,
            apply_markdown=False,
            client_gravatar=True,
            client_capabilities={"bulk_message_deletion": True},
        )
        self.stats.requests += 1
        return reg

    async def _forget(self, queue: Mapping[str, Any] | None) -> None:
        if queue:
            with contextlib.suppress(ApiError):
                await self.client.events.delete_queue(queue["queue_id"])

    # -- topics

    def _stored_topics(self, key: str) -> pa.Table:
        """``topic`` (lowercased), ``id``: the stored messages of a channel narrow."""
        files = self.m["narrows"][key]["files"]
        if not files:
            return pa.table({"topic": pa.array([], pa.string()), "id": pa.array([], pa.int64())})
        t = pa.concat_tables(
            [pq.read_table(self._path(f["path"]), columns=["id", "topic"]) for f in files]
        )
        return pa.table({"topic": pc.utf8_lower(t["topic"]), "id": t["id"]})

    async def _topic_list(self, stream_id: int) -> list[dict[str, Any]]:
        async with self.sem:
            body = await self.client._request(
                "GET", f"/users/me/{stream_id}/topics", cast_to=dict, idempotent=True
            )
        self.stats.requests += 1
        topics: list[dict[str, Any]] = body.get("topics", [])
        return topics

    async def _topics(self, key: str, upserts: dict[int, Any]) -> None:
        """Re-read the topics of a channel whose newest id or name differs from the server's."""
        sid = int(self.m["narrows"][key]["stream_id"])
        try:
            server = await self._topic_list(sid)
        except ApiError:
            return
        stored = await asyncio.to_thread(self._stored_topics, key)
        maxima = {
            row["topic"]: row["id_max"]
            for row in stored.group_by("topic").aggregate([("id", "max")]).to_pylist()
        }
        names = {str(t["name"]).lower(): (str(t["name"]), int(t["max_id"])) for t in server}
        differ = [names[t] for t in names if maxima.get(t) != names[t][1]]
        gone = [t for t in maxima if t not in names]
        changed = {t[0].lower() for t in differ} | set(gone)
        if not changed:
            return
        self.stats.topics_reread += len(changed)
        ids = stored.filter(pc.is_in(stored["topic"], pa.array(sorted(changed))))["id"]
        self.vanished.update(ids.to_pylist())
        for name, _ in differ:
            narrow = [*narrow_of(self.m["narrows"][key]), {"operator": "topic", "operand": name}]
            async for page, msgs, _done in self._pages(narrow, "oldest", None):
                for m in await asyncio.to_thread(message_records, page, msgs):
                    upserts[m.id] = m

    # -- messages looked up by id, and the changes put in place

    async def _lookup(self, ids: list[int], upserts: dict[int, Any]) -> set[int]:
        """Fetch ``ids`` as they are now into ``upserts``; returns those not found."""
        missing = set(ids)
        for i in range(0, len(ids), LOOKUP_CHUNK):
            page = await self._get(
                {
                    "message_ids": ids[i : i + LOOKUP_CHUNK],
                    "apply_markdown": False,
                    "client_gravatar": True,
                }
            )
            for m in await asyncio.to_thread(message_records, page):
                upserts[m.id] = m
                missing.discard(m.id)
        self.stats.fetched += len(ids) - len(missing)
        return missing

    def _apply(
        self, upserts: Mapping[int, Any], remove: set[int], readable: Mapping[str, Any]
    ) -> tuple[dict[int, str], dict[int, str]]:
        """Take ``remove`` and the upserted ids out of every file that holds them, and store the
        upserted messages in the narrow each is in now (if the account can read it)."""
        everything = remove | set(upserts) | set(self.relocate)
        ids = np.array(sorted(everything), dtype=np.int64)
        if not len(ids):
            return {}, {}
        own: dict[str, set[int]] = {}
        for i, key in self.relocate.items():
            if i not in upserts and i not in remove:
                own.setdefault(key, set()).add(i)
        by_key: dict[str, list[Any]] = {}
        for m in upserts.values():
            key = key_of(m.stream_id)
            if key in readable:
                by_key.setdefault(key, []).append(m)
        was: dict[int, str] = {}  # id -> the narrow it was stored in
        now: dict[int, str] = {}
        for key in list(self.m["narrows"]):
            wanted = pa.array(sorted(everything - own[key]) if key in own else ids, pa.int64())
            drop: list[dict[str, Any]] = []
            kept: list[pa.Table] = []
            for f in self.m["narrows"][key]["files"]:
                at = int(np.searchsorted(ids, int(f["min_id"])))
                if at >= len(ids) or ids[at] > int(f["max_id"]):
                    continue  # no id of the change in this file's range
                t = pq.read_table(self._path(f["path"]), columns=["id"])
                hit = pc.is_in(t["id"], wanted)
                if not pc.any(hit).as_py():
                    continue
                was.update(dict.fromkeys(t["id"].filter(hit).to_pylist(), key))
                t = pq.read_table(self._path(f["path"]), schema=MESSAGE_SCHEMA)
                drop.append(f)
                kept.append(t.filter(pc.invert(pc.is_in(t["id"], wanted))))
            new = sorted(by_key.pop(key, []), key=lambda m: m.id)
            if new:
                now.update(dict.fromkeys((m.id for m in new), key))
                kept.append(records_table(new, content=self.content))
            if drop or new:
                table = pa.concat_tables(kept) if kept else MESSAGE_SCHEMA.empty_table()
                self._commit(key, table, drop, extend=False)
        now.update((i, k) for k, mine in own.items() for i in mine)
        return was, now

    async def _reconcile(self, readable: Mapping[str, Any], *, topics: bool) -> None:
        upserts: dict[int, Any] = {}
        if topics:
            # a narrow fetched whole by this sync is as the server has it: no list to compare
            keys = [
                k for k, v in readable.items() if v["kind"] == "channel" and k not in self.whole
            ]
            await asyncio.gather(*(self._topics(k, upserts) for k in keys))
        self.seen.update(upserts)
        before = self.vanished - self.seen
        look = sorted((before | self.changed) - self.seen - self.deleted)
        self.stats.changed = len(upserts)
        missing = await self._lookup(look, upserts) if look else set()
        self.stats.changed = len(upserts)
        was, now = self._apply(upserts, (missing | self.deleted) - set(upserts), readable)
        # stored before, and not any more: deleted, or moved where the account cannot read
        self.stats.removed = len(((self.vanished - self.seen) | set(was)) - set(now))
        self.stats.moved = sum(1 for i, key in was.items() if i in now and now[i] != key)
