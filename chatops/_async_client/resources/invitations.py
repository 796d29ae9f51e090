"""Invitations: reusable links (spec 4.8) and email invitations, one by one or in bulk."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence
from typing import Any

from ..._base_client import NOT_GIVEN, NotGiven, check_length
from ..._bulk import DEFAULT_CONCURRENCY, BulkReport, run_bounded
from ...resources._base import AsyncResource, given
from ...types import Capabilities, Invite, InviteLinkResult, InvitesResult

__all__ = ["AsyncInvitations", "AsyncInvites"]

MAX_WELCOME_TEXT = 8000
MINUTES_PER_DAY = 1440


def _expiry(caps: Capabilities, minutes: int | None | NotGiven) -> dict[str, Any]:
    """``invite_expires_in_minutes``, or whole days before feature level 126."""
    if isinstance(minutes, NotGiven):
        return {}
    if caps.at_least(126):
        return {"invite_expires_in_minutes": minutes}
    days = None if minutes is None else max(1, -(-minutes // MINUTES_PER_DAY))
    return {"invite_expires_in_days": days}


def _invite_params(caps: Capabilities, params: dict[str, Any]) -> dict[str, Any]:
    text = params.get("welcome_message_custom_text")
    if isinstance(text, str):
        check_length("welcome_message_custom_text", text, MAX_WELCOME_TEXT)
    elif "welcome_message_custom_text" in params:
        del params["welcome_message_custom_text"]  # null: the organization default, as if left out
    for name in ("stream_ids", "group_ids"):
        if name in params:
            params[name] = list(params[name])
    params.update(_expiry(caps, params.pop("expires_in_minutes", NOT_GIVEN)))
    return params


def _emails(emails: str | Iterable[str]) -> str:
    return emails if isinstance(emails, str) else ",".join(emails)


class AsyncInvitations(AsyncResource):
    """``client.invitations`` (``client.invites`` is its deprecated name)."""

    async def create_link(
        self,
        *,
        expires_in_minutes: int | None | NotGiven = NOT_GIVEN,
        invite_as: int | NotGiven = NOT_GIVEN,
        stream_ids: Sequence[int] | NotGiven = NOT_GIVEN,
        group_ids: Sequence[int] | NotGiven = NOT_GIVEN,
        include_realm_default_subscriptions: bool | NotGiven = NOT_GIVEN,
        welcome_message_custom_text: str | None | NotGiven = NOT_GIVEN,
    ) -> str:
        """Spec 4.8 ``POST /invites/multiuse``: a reusable invitation link; returns its URL.

        Args:
            expires_in_minutes: minutes of validity; None never expires; the server default
                is 14,400 (10 days).
            invite_as: role of the new accounts (100 owner ... 600 guest; default 400); no
                more powerful than the caller's.
            stream_ids: channels the new accounts join.
            group_ids: user groups the new accounts join.
            include_realm_default_subscriptions: also join the default channels.
            welcome_message_custom_text: Markdown (at most 8,000 characters; administrators
                only); ``""`` sends no custom welcome.
        """
        params = _invite_params(await self._client.get_capabilities(), given(locals()))
        result = await self._client._request(
            "POST", "/invites/multiuse", params=params, cast_to=InviteLinkResult
        )
        return result.invite_link

    async def send(
        self,
        emails: str | Iterable[str],
        *,
        stream_ids: Sequence[int] = (),
        expires_in_minutes: int | None | NotGiven = NOT_GIVEN,
        invite_as: int | NotGiven = NOT_GIVEN,
        group_ids: Sequence[int] | NotGiven = NOT_GIVEN,
        include_realm_default_subscriptions: bool | NotGiven = NOT_GIVEN,
        notify_referrer_on_join: bool | NotGiven = NOT_GIVEN,
        welcome_message_custom_text: str | None | NotGiven = NOT_GIVEN,
    ) -> None:
        """``POST /invites``: email invitations to one or many addresses in one request.

        Raises ``InvitationFailed`` (code INVITATION_FAILED) whose ``errors`` list
        ``[email, reason, is_deactivated]`` per refused address; ``sent_invitations`` says
        whether the others were invited.
        """
        params = _invite_params(await self._client.get_capabilities(), given(locals(), "emails"))
        params["invitee_emails"] = _emails(emails)
        await self._client._request("POST", "/invites", params=params)

    async def list(self) -> builtins.list[Invite]:
        """``GET /invites``: active invitations (all for administrators, else one's own)."""
        result = await self._client._request("GET", "/invites", cast_to=InvitesResult)
        return result.invites

    async def revoke(self, invite_id: int) -> None:
        """``DELETE /invites/{invite_id}``: revoke an email invitation."""
        await self._client._request("DELETE", f"/invites/{int(invite_id)}")

    async def revoke_link(self, invite_id: int) -> None:
        """``DELETE /invites/multiuse/{invite_id}``: revoke a reusable link."""
        await self._client._request("DELETE", f"/invites/multiuse/{int(invite_id)}")

    async def resend(self, invite_id: int) -> None:
        """``POST /invites/{invite_id}/resend``: send an email invitation again."""
        await self._client._request("POST", f"/invites/{int(invite_id)}/resend")

    async def send_many(
        self,
        emails: Iterable[str],
        *,
        stream_ids: Sequence[int] = (),
        concurrency: int = DEFAULT_CONCURRENCY,
        **options: Any,
    ) -> BulkReport[str]:
        """Invite each address with its own request, at most ``concurrency`` at a time.

        One item per address, in order: ``ok``, or the ``error`` the server gave for that
        address. ``options`` are those of :meth:`send`. The synchronous ``Client`` sends one
        request after another whatever ``concurrency`` says.
        """
        await self._client.get_capabilities()

        async def one(email: str) -> None:
            await self.send(email, stream_ids=stream_ids, **options)

        return await run_bounded(
            emails,
            one,
            concurrency=concurrency,
            remaining=lambda: self._client.rate_limit_remaining,
        )


#: the class's name before ``client.invitations``; it goes with ``client.invites``
AsyncInvites = AsyncInvitations
