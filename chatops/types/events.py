"""Typed records: events (see :mod:`chatops.types`)."""

from __future__ import annotations

from typing import Any

import msgspec

from ._base import Record

# -- events: event queues --------------------------------------------------------------------------


class QueueRegistration(Record):
    """``POST /register``: the event queue, and the channels and accounts if fetched (the
    initial state's other blocks are ignored)."""

    queue_id: str | None = None
    last_event_id: int = -1
    feature_level: int = msgspec.field(default=0, name="zulip_feature_level")
    max_message_id: int | None = None
    event_queue_longpoll_timeout_seconds: int | None = None
    #: with ``fetch_event_types`` holding ``"subscription"``: the channels the account is in,
    #: was in, and never was in (each with ``subscribers`` if asked); None otherwise
    subscriptions: list[dict[str, Any]] | None = None
    unsubscribed: list[dict[str, Any]] | None = None
    never_subscribed: list[dict[str, Any]] | None = None
    #: with ``fetch_event_types`` holding ``"realm_user"``: the active accounts, the
    #: deactivated ones, and the system bots (Notification Bot...) that belong to no
    #: organization but post in it; None otherwise
    realm_users: list[dict[str, Any]] | None = None
    realm_non_active_users: list[dict[str, Any]] | None = None
    cross_realm_bots: list[dict[str, Any]] | None = None


class EventsResult(Record):
    """``GET /events``: event objects (plain dicts: each ``type`` has its own shape)."""

    events: list[dict[str, Any]] = []
    queue_id: str | None = None
