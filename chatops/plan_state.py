"""Whether the target of a refused removal is already removed, read from the server's state.

When ``chatops audit apply`` sends a removal (a ``DELETE`` or a ``.../deactivate``) and the
server refuses it with a 4xx, the refusal's code does not say why: "already deactivated" and
"insufficient permission" are both ``BAD_REQUEST``. So the target's state is read back with a
``GET`` chosen from the call's method and path in :data:`CHECKS` (never from the error's text):
the call counts as already done only when that state shows the thing archived, deactivated or
no longer listed.

A listing proves that something is not there only when it is complete for the account applying
the plan: linkifiers and user groups are listed to everyone; invitations only to administrators
(others see their own, so for them a missing invitation proves nothing); attachments, scheduled
messages and reminders are each account's own, and only their owner can remove them, so for the
account applying the plan "not listed" means "none of its own left to remove".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ._exceptions import ApiError

if TYPE_CHECKING:
    from ._client import Client

__all__ = ["CHECKS", "StateCheck", "TargetState", "check_for", "is_removal", "target_state"]

#: who sees a complete listing: everyone, administrators (and owners) only, or each their own
Scope = Literal["anyone", "admins", "own"]


@dataclass(frozen=True)
class TargetState:
    """What the read showed: whether the target is removed, and the read in words."""

    removed: bool
    evidence: str


@dataclass(frozen=True)
class StateCheck:
    """How to read whether the target of one kind of removal is removed.

    ``read`` is the ``GET`` path (``{id}`` is the target's id from ``pattern``). With ``field``
    the answer holds the target itself under ``key`` and ``removed`` says whether its ``field``
    shows it removed; without, the answer lists things under ``key`` and the target is removed
    when no entry's ``id_field`` is its id (and ``match`` holds for the entry).
    """

    method: str
    pattern: re.Pattern[str]
    read: str
    key: str
    what: str
    field: str | None = None
    removed: Callable[[Any], bool] = bool
    params: tuple[tuple[str, Any], ...] = ()
    id_field: str = "id"
    match: Callable[[dict[str, Any]], bool] = lambda _entry: True
    scope: Scope = "anyone"
    #: how a present target is listed, in words
    listed: str = "listed"

    def path(self, target: int) -> str:
        """The read's path for ``target``."""
        return self.read.format(id=target)


def _multiuse(flag: bool) -> Callable[[dict[str, Any]], bool]:
    return lambda entry: bool(entry.get("is_multiuse")) is flag


#: the removals whose target's state can be read back, by method and path
CHECKS: tuple[StateCheck, ...] = (
    StateCheck(
        "DELETE",
        re.compile(r"/streams/(\d+)"),
        "/streams/{id}",
        "stream",
        "channel",
        field="is_archived",
    ),
    StateCheck(
        "DELETE",
        re.compile(r"/(?:users|bots)/(\d+)"),
        "/users/{id}",
        "user",
        "account",
        field="is_active",
        removed=lambda active: active is False,
    ),
    StateCheck(
        "POST",
        re.compile(r"/user_groups/(\d+)/deactivate"),
        "/user_groups",
        "user_groups",
        "user group",
        params=(("include_deactivated_groups", True),),
        match=lambda entry: not entry.get("deactivated"),
        listed="listed as active",
    ),
    StateCheck(
        "DELETE",
        re.compile(r"/invites/(\d+)"),
        "/invites",
        "invites",
        "invitation",
        match=_multiuse(False),
        scope="admins",
    ),
    StateCheck(
        "DELETE",
        re.compile(r"/invites/multiuse/(\d+)"),
        "/invites",
        "invites",
        "invitation link",
        match=_multiuse(True),
        scope="admins",
    ),
    StateCheck(
        "DELETE",
        re.compile(r"/realm/filters/(\d+)"),
        "/realm/linkifiers",
        "linkifiers",
        "linkifier",
    ),
    StateCheck(
        "DELETE",
        re.compile(r"/attachments/(\d+)"),
        "/attachments",
        "attachments",
        "file",
        scope="own",
    ),
    StateCheck(
        "DELETE",
        re.compile(r"/scheduled_messages/(\d+)"),
        "/scheduled_messages",
        "scheduled_messages",
        "scheduled message",
        id_field="scheduled_message_id",
        scope="own",
    ),
    StateCheck(
        "DELETE",
        re.compile(r"/reminders/(\d+)"),
        "/reminders",
        "reminders",
        "reminder",
        id_field="reminder_id",
        scope="own",
    ),
)


def is_removal(method: str, path: str) -> bool:
    """Whether a call removes something: a ``DELETE`` or a ``POST .../deactivate``."""
    return method == "DELETE" or (method == "POST" and path.rstrip("/").endswith("/deactivate"))


def check_for(method: str, path: str) -> tuple[StateCheck, int] | None:
    """The check of a removal and its target's id; None when no state can be read for it."""
    for check in CHECKS:
        found = check.pattern.fullmatch(path.rstrip("/"))
        if check.method == method and found:
            return check, int(found.group(1))
    return None


def target_state(client: Client, method: str, path: str) -> TargetState | None:
    """Read whether the target of the removal ``method path`` is already removed.

    None when the call is no removal this module knows. A read the server refuses (4xx) shows
    nothing: the target counts as not removed. A read that fails on the way raises the client's
    error (the caller decides to try again later).
    """
    found = check_for(method, path)
    if found is None:
        return None
    check, target = found
    read = check.path(target)
    try:
        if check.scope == "admins":
            me = client.get("/users/me")
            if int(me.get("role", 400)) > 200:
                return TargetState(
                    False, f"GET {read} lists only your own {check.what}s: cannot tell"
                )
        answer = client.get(read, params=dict(check.params) or None)
    except ApiError as exc:
        if 400 <= exc.status < 500 and exc.status != 429:
            return TargetState(False, f"GET {read} refused ({exc.code}): cannot tell")
        raise
    if check.field is not None:
        value = (answer.get(check.key) or {}).get(check.field)
        removed = check.removed(value)
        shown = "true" if value is True else "false" if value is False else repr(value)
        return TargetState(removed, f"GET {read}: {check.what} {target} {check.field} {shown}")
    listed = [
        entry
        for entry in answer.get(check.key) or []
        if isinstance(entry, dict) and entry.get(check.id_field) == target and check.match(entry)
    ]
    if listed:
        return TargetState(False, f"GET {read}: {check.what} {target} still {check.listed}")
    return TargetState(True, f"GET {read}: {check.what} {target} not {check.listed}")
