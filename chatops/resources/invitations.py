"""Invitations: reusable links (spec 4.8) and email invitations, one by one or in bulk.

Written in ``chatops/_async/resources/invitations.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.invitations import AsyncInvitations
from .._sync.resources.invitations import Invitations

#: the names of the classes before ``client.invitations``; they go with ``client.invites``
AsyncInvites = AsyncInvitations
Invites = Invitations

__all__ = ["AsyncInvitations", "AsyncInvites", "Invitations", "Invites"]
