"""The kinds of change, one class each, grouped by what they change.

Every kind is a :class:`~chatops.changes.Change`; plans and journals hold them as JSON tagged
with the kind's name (``{"kind": "ArchiveChannel", "stream_id": 5}``), and
:func:`decode_change` reads such a record back into its kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

import msgspec

from .._base import Change
from .channels import ArchiveChannel, Subscribe, UnarchiveChannel, Unsubscribe, UpdateChannel
from .folders import CreateFolder, ReorderFolders, UpdateFolder
from .groups import (
    CreateGroup,
    DeactivateGroup,
    ReactivateGroup,
    UpdateGroup,
    UpdateGroupMembers,
    UpdateGroupSubgroups,
)
from .invitations import CreateInviteLink, ResendInvitation, SendInvitations
from .messages import MoveTopic, UpdateScheduled, fitted_topic
from .people import DeactivateBot, DeactivateUser, ReactivateUser, UpdateBot, UpdateUser
from .raw import RawCall
from .realm import (
    AddLinkifier,
    DeleteLinkifier,
    ReorderLinkifiers,
    UpdateLinkifier,
    UpdateRealm,
    realm_settings,
)
from .removals import DeleteAttachment, DeleteReminder, DeleteScheduledMessage, RevokeInvitation
from .setup import (
    CreateChannel,
    CreateProfileField,
    CreateUser,
    DeleteProfileField,
    ReorderProfileFields,
    SetDefaultChannel,
    UpdateProfileField,
)
from .several import Several
from .status import SetUserStatus

__all__ = [
    "KINDS",
    "CreateChannel",
    "CreateProfileField",
    "CreateUser",
    "DeleteProfileField",
    "ReorderProfileFields",
    "SetDefaultChannel",
    "UpdateProfileField",
    "UpdateFolder",
    "SetUserStatus",
    "SendInvitations",
    "ResendInvitation",
    "ReorderFolders",
    "CreateInviteLink",
    "CreateGroup",
    "CreateFolder",
    "AddLinkifier",
    "ArchiveChannel",
    "DeactivateBot",
    "DeactivateGroup",
    "DeactivateUser",
    "DeleteAttachment",
    "DeleteLinkifier",
    "DeleteReminder",
    "DeleteScheduledMessage",
    "MoveTopic",
    "RawCall",
    "ReactivateGroup",
    "ReactivateUser",
    "ReorderLinkifiers",
    "RevokeInvitation",
    "Several",
    "Subscribe",
    "UnarchiveChannel",
    "Unsubscribe",
    "UpdateBot",
    "UpdateChannel",
    "UpdateGroup",
    "UpdateGroupMembers",
    "UpdateGroupSubgroups",
    "UpdateLinkifier",
    "UpdateRealm",
    "UpdateScheduled",
    "UpdateUser",
    "decode_change",
    "fitted_topic",
    "realm_settings",
]

#: every kind of change, by the name plans and journals give it
KINDS: dict[str, type[Change]] = {
    kind.__name__: kind
    for kind in (
        CreateChannel,
        CreateProfileField,
        CreateUser,
        DeleteProfileField,
        ReorderProfileFields,
        SetDefaultChannel,
        UpdateProfileField,
        UpdateFolder,
        SetUserStatus,
        SendInvitations,
        ResendInvitation,
        ReorderFolders,
        CreateInviteLink,
        CreateGroup,
        CreateFolder,
        AddLinkifier,
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
        ReactivateGroup,
        ReactivateUser,
        ReorderLinkifiers,
        RevokeInvitation,
        Several,
        Subscribe,
        UnarchiveChannel,
        Unsubscribe,
        UpdateBot,
        UpdateChannel,
        UpdateGroup,
        UpdateGroupMembers,
        UpdateGroupSubgroups,
        UpdateLinkifier,
        UpdateRealm,
        UpdateScheduled,
        UpdateUser,
    )
}

_ANY: Any = Union[tuple(KINDS.values())]  # noqa: UP007  (a union built at run time)


def decode_change(record: Mapping[str, Any] | bytes | str) -> Change:
    """A change from its JSON record (a mapping, or JSON text); ValueError naming what is wrong
    when the record is no change of a known kind."""
    try:
        if isinstance(record, bytes | str):
            found: Change = msgspec.json.decode(record, type=_ANY)
        else:
            found = msgspec.convert(dict(record), type=_ANY)
    except msgspec.ValidationError as exc:
        raise ValueError(f"not a change: {exc}") from None
    return found
