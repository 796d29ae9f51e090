"""The typed change of a finding's API call, while audits still describe their fixes as calls.

Each audit's finding carries the call that fixes it (:class:`~chatops.audits._result.ApiCall`).
Here such a call becomes its kind of change by its method and path; a call of another shape,
or one that needs a person (placeholders, a choice), stays a :class:`RawCall`, sent as it is
with no inverse.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..audits._result import ApiCall
from ..changes import Change
from ..changes.kinds import (
    ArchiveChannel,
    DeactivateBot,
    DeactivateGroup,
    DeactivateUser,
    DeleteAttachment,
    DeleteLinkifier,
    DeleteReminder,
    DeleteScheduledMessage,
    MoveTopic,
    RawCall,
    ReactivateUser,
    ReorderLinkifiers,
    RevokeInvitation,
    Subscribe,
    UnarchiveChannel,
    Unsubscribe,
    UpdateBot,
    UpdateChannel,
    UpdateGroup,
    UpdateGroupMembers,
    UpdateLinkifier,
    UpdateRealm,
    UpdateScheduled,
    UpdateUser,
)

__all__ = ["typed_change"]

Make = Callable[[int, dict[str, Any], str], Change | None]


def _channel_patch(n: int, p: dict[str, Any], audit: str) -> Change:
    if p == {"is_archived": False}:
        return UnarchiveChannel(stream_id=n)
    return UpdateChannel(stream_id=n, settings=p)


def _deactivate(n: int, p: dict[str, Any], audit: str) -> Change:
    # a bot is a user too: the bots audit deactivates bots, before any person
    if audit == "bots":
        return DeactivateBot(user_id=n, endpoint="users")
    return DeactivateUser(user_id=n)


def _subscriptions(subscribe: bool) -> Make:
    def make(n: int, p: dict[str, Any], audit: str) -> Change | None:
        names = [s["name"] if isinstance(s, dict) else s for s in p.get("subscriptions") or []]
        people = p.get("principals") or []
        if not all(isinstance(x, str) for x in names) or not all(
            isinstance(x, int) for x in people
        ):
            return None
        kind = Subscribe if subscribe else Unsubscribe
        return kind(channels=[str(x) for x in names], principals=[int(x) for x in people])

    return make


def _topic(n: int, p: dict[str, Any], audit: str) -> Change | None:
    if set(p) - {"topic", "propagate_mode"} or not isinstance(p.get("topic"), str):
        return None
    return MoveTopic(
        message_id=n, topic=p["topic"], propagate_mode=p.get("propagate_mode", "change_one")
    )


def _linkifier(n: int, p: dict[str, Any], audit: str) -> Change | None:
    if set(p) != {"pattern", "url_template"}:
        return None
    return UpdateLinkifier(filter_id=n, pattern=p["pattern"], url_template=p["url_template"])


_SHAPES: tuple[tuple[str, re.Pattern[str], Make], ...] = tuple(
    (method, re.compile(pattern), make)
    for method, pattern, make in (
        ("DELETE", r"/streams/(\d+)", lambda n, p, a: ArchiveChannel(stream_id=n)),
        ("PATCH", r"/streams/(\d+)", _channel_patch),
        ("DELETE", r"/users/(\d+)", _deactivate),
        ("DELETE", r"/bots/(\d+)", lambda n, p, a: DeactivateBot(user_id=n)),
        ("POST", r"/users/(\d+)/reactivate", lambda n, p, a: ReactivateUser(user_id=n)),
        ("PATCH", r"/users/(\d+)", lambda n, p, a: UpdateUser(user_id=n, settings=p)),
        ("PATCH", r"/bots/(\d+)", lambda n, p, a: UpdateBot(user_id=n, settings=p)),
        ("POST", r"/user_groups/(\d+)/deactivate", lambda n, p, a: DeactivateGroup(group_id=n)),
        (
            "POST",
            r"/user_groups/(\d+)/members",
            lambda n, p, a: UpdateGroupMembers(
                group_id=n, add=list(p.get("add") or []), delete=list(p.get("delete") or [])
            ),
        ),
        ("PATCH", r"/user_groups/(\d+)", lambda n, p, a: UpdateGroup(group_id=n, settings=p)),
        ("PATCH", r"/realm()", lambda n, p, a: UpdateRealm(settings=p)),
        ("DELETE", r"/invites/(\d+)", lambda n, p, a: RevokeInvitation(invite_id=n)),
        (
            "DELETE",
            r"/invites/multiuse/(\d+)",
            lambda n, p, a: RevokeInvitation(invite_id=n, multiuse=True),
        ),
        ("DELETE", r"/realm/filters/(\d+)", lambda n, p, a: DeleteLinkifier(filter_id=n)),
        ("PATCH", r"/realm/filters/(\d+)", _linkifier),
        (
            "PATCH",
            r"/realm/linkifiers()",
            lambda n, p, a: ReorderLinkifiers(
                ordered_linkifier_ids=list(p["ordered_linkifier_ids"])
            ),
        ),
        ("DELETE", r"/attachments/(\d+)", lambda n, p, a: DeleteAttachment(attachment_id=n)),
        (
            "DELETE",
            r"/scheduled_messages/(\d+)",
            lambda n, p, a: DeleteScheduledMessage(scheduled_message_id=n),
        ),
        ("DELETE", r"/reminders/(\d+)", lambda n, p, a: DeleteReminder(reminder_id=n)),
        (
            "PATCH",
            r"/scheduled_messages/(\d+)",
            lambda n, p, a: UpdateScheduled(item_id=n, settings=p),
        ),
        (
            "PATCH",
            r"/reminders/(\d+)",
            lambda n, p, a: UpdateScheduled(item_id=n, settings=p, reminder=True),
        ),
        ("PATCH", r"/messages/(\d+)", _topic),
        ("DELETE", r"/users/me/subscriptions()", _subscriptions(False)),
        ("POST", r"/users/me/subscriptions()", _subscriptions(True)),
    )
)


def typed_change(call: ApiCall, audit: str = "") -> Change:
    """The kind of change ``call`` makes (a :class:`RawCall` when it has no kind, or needs a
    person)."""
    if call.needs_input:
        return RawCall(request=call)
    for method, pattern, make in _SHAPES:
        found = pattern.fullmatch(call.path)
        if method == call.method and found:
            number = int(found.group(1)) if found.group(1) else 0
            try:
                made = make(number, dict(call.params), audit)
            except (KeyError, TypeError, ValueError):
                made = None
            return made if made is not None else RawCall(request=call)
    return RawCall(request=call)
