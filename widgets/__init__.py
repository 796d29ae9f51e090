"""ipywidgets admin panels for JupyterLab, and the AdminConsole that holds them as tabs.

    >>> from chatops.widgets import AdminConsole
    >>> AdminConsole.open()                              # doctest: +SKIP  (a demo organization)
    >>> AdminConsole.open(zuliprc="~/.zuliprc")          # doctest: +SKIP

Each panel also works alone over a client: ``LinkifiersPanel(chatops.connect())``, and its logic
without any widget: ``chatops.widgets.linkifiers_model.LinkifiersModel(chatops.connect())``. The
panels are imported when first named here, so that a model's module needs no ipywidgets.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._base import Panel, Session
    from .channel_folders import ChannelFoldersPanel
    from .console import PANELS, AdminConsole
    from .explorer import Explorer
    from .invitations import InvitationsPanel
    from .linkifiers import LinkifiersPanel
    from .organization import OrganizationPanel
    from .status import StatusPanel
    from .user_groups import UserGroupsPanel

__all__ = [
    "PANELS",
    "AdminConsole",
    "ChannelFoldersPanel",
    "Explorer",
    "InvitationsPanel",
    "LinkifiersPanel",
    "OrganizationPanel",
    "Panel",
    "Session",
    "StatusPanel",
    "UserGroupsPanel",
]

_WHERE = {
    "PANELS": "console",
    "AdminConsole": "console",
    "ChannelFoldersPanel": "channel_folders",
    "Explorer": "explorer",
    "InvitationsPanel": "invitations",
    "LinkifiersPanel": "linkifiers",
    "OrganizationPanel": "organization",
    "Panel": "_base",
    "Session": "_model",
    "StatusPanel": "status",
    "UserGroupsPanel": "user_groups",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
