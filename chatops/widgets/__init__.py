"""ipywidgets admin panels for JupyterLab, and the AdminConsole that holds them as tabs.

    >>> from chatops.widgets import AdminConsole
    >>> AdminConsole.open()                              # doctest: +SKIP  (a demo organization)
    >>> AdminConsole.open(zuliprc="~/.zuliprc")          # doctest: +SKIP

Each panel also works alone over a client: ``LinkifiersPanel(chatops.connect())``.
"""

from __future__ import annotations

from ._base import Panel, Session
from .channel_folders import ChannelFoldersPanel
from .console import PANELS, AdminConsole
from .invitations import InvitationsPanel
from .linkifiers import LinkifiersPanel
from .status import StatusPanel
from .user_groups import UserGroupsPanel

__all__ = [
    "PANELS",
    "AdminConsole",
    "ChannelFoldersPanel",
    "InvitationsPanel",
    "LinkifiersPanel",
    "Panel",
    "Session",
    "StatusPanel",
    "UserGroupsPanel",
]
