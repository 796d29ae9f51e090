"""Typed records: invitations (see :mod:`chatops.types`)."""

from __future__ import annotations

from ._base import Record

# -- invitations: invitations and invitation links -------------------------------------------------


class Invite(Record):
    """An active invitation: an email invitation or a reusable link (``is_multiuse``)."""

    id: int
    invited_by_user_id: int
    invited: int
    expiry_date: int | None = None
    invited_as: int = 400
    is_multiuse: bool = False
    email: str | None = None
    link_url: str | None = None
    notify_referrer_on_join: bool | None = None


class InvitesResult(Record):
    """``GET /invites``."""

    invites: list[Invite] = []


class InviteLinkResult(Record):
    """``POST /invites/multiuse``."""

    invite_link: str
