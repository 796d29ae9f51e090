"""Invitations: reusable links (spec 4.8) and email invitations, one by one or in bulk.

Written in ``chatops/_async/resources/invitations.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.invitations import AsyncInvites
from .._sync.resources.invitations import Invites

__all__ = ["AsyncInvites", "Invites"]
