"""Removals that nothing can put back: an invitation revoked, a file deleted, a scheduled
message or reminder deleted. Each says why, so a plan shows it and asks before sending it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from .._base import Change, Phase, Reading, read
from .._call import ApiCall

if TYPE_CHECKING:
    from ..._client import Client

__all__ = ["DeleteAttachment", "DeleteReminder", "DeleteScheduledMessage", "RevokeInvitation"]


def _listed(
    client: Client, path: str, key: str, id_field: str, target: int, what: str, **match: Any
) -> Reading:
    answer = read(client, path)
    if isinstance(answer, Reading):
        return answer
    listed = [
        e
        for e in answer.get(key) or []
        if isinstance(e, dict)
        and e.get(id_field) == target
        and all(bool(e.get(k)) is v for k, v in match.items())
    ]
    word = "still listed" if listed else "not listed"
    return Reading(not listed, f"GET {path}: {what} {target} {word}")


class RevokeInvitation(Change, frozen=True, kw_only=True):
    """Revoke an invitation (``DELETE /invites/{id}``) or an invitation link
    (``DELETE /invites/multiuse/{id}``)."""

    phase: ClassVar[Phase] = Phase.REMOVE
    irreversible: ClassVar[str | None] = (
        "a revoked invitation cannot be restored; inviting again sends a new one"
    )
    invite_id: int
    multiuse: bool = False

    def call(self) -> ApiCall:
        path = (
            f"/invites/multiuse/{self.invite_id}" if self.multiuse else f"/invites/{self.invite_id}"
        )
        return ApiCall(method="DELETE", path=path)

    def state(self, client: Client) -> Reading:
        # only administrators see every invitation: for others "not listed" proves nothing
        me = client.get("/users/me")
        what = "invitation link" if self.multiuse else "invitation"
        if int(me.get("role", 400)) > 200:
            return Reading(None, f"GET /invites lists only your own {what}s: cannot tell")
        return _listed(
            client, "/invites", "invites", "id", self.invite_id, what, is_multiuse=self.multiuse
        )


class DeleteAttachment(Change, frozen=True, kw_only=True):
    """Delete one of the account's uploaded files (``DELETE /attachments/{id}``)."""

    phase: ClassVar[Phase] = Phase.REMOVE
    irreversible: ClassVar[str | None] = "a deleted file is gone from the server"
    attachment_id: int

    def call(self) -> ApiCall:
        return ApiCall(method="DELETE", path=f"/attachments/{self.attachment_id}")

    def state(self, client: Client) -> Reading:
        return _listed(client, "/attachments", "attachments", "id", self.attachment_id, "file")


class DeleteScheduledMessage(Change, frozen=True, kw_only=True):
    """Delete one of the account's scheduled messages (``DELETE /scheduled_messages/{id}``)."""

    phase: ClassVar[Phase] = Phase.REMOVE
    irreversible: ClassVar[str | None] = "a deleted scheduled message is not kept anywhere"
    scheduled_message_id: int

    def call(self) -> ApiCall:
        return ApiCall(method="DELETE", path=f"/scheduled_messages/{self.scheduled_message_id}")

    def state(self, client: Client) -> Reading:
        return _listed(
            client,
            "/scheduled_messages",
            "scheduled_messages",
            "scheduled_message_id",
            self.scheduled_message_id,
            "scheduled message",
        )


class DeleteReminder(Change, frozen=True, kw_only=True):
    """Delete one of the account's reminders (``DELETE /reminders/{id}``)."""

    phase: ClassVar[Phase] = Phase.REMOVE
    irreversible: ClassVar[str | None] = "a deleted reminder is not kept anywhere"
    reminder_id: int

    def call(self) -> ApiCall:
        return ApiCall(method="DELETE", path=f"/reminders/{self.reminder_id}")

    def state(self, client: Client) -> Reading:
        return _listed(
            client, "/reminders", "reminders", "reminder_id", self.reminder_id, "reminder"
        )
