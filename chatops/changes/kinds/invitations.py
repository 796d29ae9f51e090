"""Invitations sent, links made and invitations sent again. Sent through the client's own
methods, which check the server's limits first and encode the expiry as the server's
feature level wants it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ..._exceptions import ApiError
from .._base import Change
from .._call import ApiCall
from .removals import RevokeInvitation
from .several import Several

if TYPE_CHECKING:
    from ..._client import Client

__all__ = ["CreateInviteLink", "ResendInvitation", "SendInvitations"]


def _invitations(client: Client) -> list[dict[str, Any]]:
    return [dict(i) for i in client.get("/invites").get("invites") or [] if isinstance(i, dict)]


class SendInvitations(Change, frozen=True, kw_only=True):
    """Email invitations to ``emails`` (``POST /invites``, one request); ``options`` are the
    client's keywords (``stream_ids``, ``invite_as``, ``expires_in_minutes``, ...). Undone by
    revoking the invitations it made (the emails were sent all the same)."""

    emails: list[str]
    options: dict[str, Any] = {}

    def call(self) -> ApiCall:
        params = {"invitee_emails": ",".join(self.emails), **self.options}
        return ApiCall(method="POST", path="/invites", params=params)

    def before(self, client: Client) -> dict[str, Any] | None:
        return {"ids": sorted(i["id"] for i in _invitations(client) if not i.get("is_multiuse"))}

    def send(self, client: Client) -> dict[str, Any]:
        client.invitations.send(list(self.emails), **self.options)
        return self._made(client)

    def salvage(self, client: Client, error: ApiError) -> dict[str, Any] | None:
        # some addresses refused, the others invited (``sent_invitations``)
        return self._made(client) if getattr(error, "sent_invitations", False) else None

    def _made(self, client: Client) -> dict[str, Any]:
        # POST /invites does not say which invitations it made: they are the new ones for
        # these addresses
        wanted = {e.lower() for e in self.emails}
        made = [
            i["id"]
            for i in _invitations(client)
            if not i.get("is_multiuse") and str(i.get("email", "")).lower() in wanted
        ]
        return {"invitation_ids": made}

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        old = set((before or {}).get("ids") or [])
        made = [i for i in answer.get("invitation_ids") or [] if i not in old]
        if not made:
            return None
        revokes = [RevokeInvitation(invite_id=i) for i in made]
        return revokes[0] if len(revokes) == 1 else Several.of(revokes)


class CreateInviteLink(Change, frozen=True, kw_only=True):
    """Make a reusable invitation link (``POST /invites/multiuse``); undone by revoking it."""

    options: dict[str, Any] = {}

    def call(self) -> ApiCall:
        return ApiCall(method="POST", path="/invites/multiuse", params=dict(self.options))

    def send(self, client: Client) -> dict[str, Any]:
        url = client.invitations.create_link(**self.options)
        found = [
            i["id"]
            for i in _invitations(client)
            if i.get("is_multiuse") and i.get("link_url") == url
        ]
        return {"invite_link": url, **({"invite_id": found[0]} if found else {})}

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if "invite_id" not in answer:
            return None
        return RevokeInvitation(invite_id=int(answer["invite_id"]), multiuse=True)


class ResendInvitation(Change, frozen=True, kw_only=True):
    """Send an email invitation again (``POST /invites/{id}/resend``)."""

    irreversible: ClassVar[str | None] = "an email sent cannot be taken back"
    invite_id: int

    def call(self) -> ApiCall:
        return ApiCall(method="POST", path=f"/invites/{self.invite_id}/resend")

    def send(self, client: Client) -> dict[str, Any]:
        client.invitations.resend(self.invite_id)
        return {}
