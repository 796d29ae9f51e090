"""ipywidgets admin panels for JupyterLab, and the AdminConsole that holds them as tabs.

>>> from widgets import AdminConsole
>>> AdminConsole.for_sandbox()        # doctest: +SKIP   (a demo organization)
>>> AdminConsole(chatops.Client.from_zuliprc("~/.zuliprc"))   # doctest: +SKIP
"""

from __future__ import annotations

from ._base import Panel, Session

__all__ = ["Panel", "Session"]
