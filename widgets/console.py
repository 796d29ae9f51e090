"""The AdminConsole: the admin panels as tabs over one shared connection."""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any

import ipywidgets as w

from chatops import Client, ConfigError

from ._base import STYLE, Confirm, Panel, Session, describe_error, escape
from ._controls import StatusLine
from ._model import undo_counts, undo_words
from .channel_folders import ChannelFoldersPanel
from .invitations import InvitationsPanel
from .linkifiers import LinkifiersPanel
from .organization import OrganizationPanel
from .people import PeopleChannelsPanel
from .status import StatusPanel
from .user_groups import UserGroupsPanel

__all__ = ["PANELS", "AdminConsole"]

#: The panels of the console, in tab order.
PANELS: tuple[type[Panel], ...] = (
    ChannelFoldersPanel,
    LinkifiersPanel,
    UserGroupsPanel,
    InvitationsPanel,
    StatusPanel,
    PeopleChannelsPanel,
    OrganizationPanel,
)

DEMO_ACCOUNTS = ("owner", "admin", "moderator", "member", "guest")


class AdminConsole:
    """Channel folders, linkifiers, user groups, invitations, status, bulk changes to people and
    the organization's permissions as tabs, sharing one client, one view of who acts and one
    set of organization settings.

    Example::

        from chatops.widgets import AdminConsole

        console = AdminConsole.open(zuliprc="~/.zuliprc")   # a real server
        console = AdminConsole.open()                       # a demo sandbox for this session
        console                                             # shows the tabs in JupyterLab
        console.panel("folders").create_folder("Engineering", description="Build and ship")
    """

    def __init__(
        self,
        client: Client | Session,
        *,
        background: bool | None = None,
        export_dir: str | Path = "exports",
        panels: tuple[type[Panel], ...] = PANELS,
    ) -> None:
        self.session = client if isinstance(client, Session) else Session(client)
        self.client = self.session.client
        self.sandbox: Any = None
        self._stop_sandbox: weakref.finalize[Any, Any] | None = None
        self.panels: dict[str, Panel] = {}
        for panel_class in panels:
            self.panels[panel_class.slug] = panel_class(
                self.session, background=background, export_dir=export_dir
            )
        groups = self.panels.get("groups")
        if isinstance(groups, UserGroupsPanel):
            groups.invite_hook = self.invite
        self.tabs = w.Tab(
            children=[p.root for p in self.panels.values()],
            titles=[p.title for p in self.panels.values()],
        )
        self.tabs.add_class("chatops-console-tabs")
        # a tab loads when it is first opened; the first one when the console is shown
        self.tabs.observe(self._on_tab, "selected_index")
        self.refresh_button = w.Button(description="Refresh all", icon="refresh")
        self.refresh_button.on_click(lambda _b: self.refresh())
        self.undo_button = w.Button(
            description="Undo last action…", icon="undo", layout=w.Layout(width="auto")
        )
        self.undo_button.add_class("chatops-console-undo")
        self.undo_button.on_click(lambda _b: self.ask_undo())
        self.undo_confirm = Confirm()
        self.undo_confirm.widget.add_class("chatops-console-undo-confirm")
        self.undo_confirm.yes.add_class("chatops-console-undo-yes")
        self.undo_status = StatusLine()
        where = self.client.site
        self.title = w.HTML(
            value=STYLE
            + f"<h3 class='chatops-console-title'>Organization admin · {escape(where)}</h3>"
        )
        bar = w.HBox([self.title, self.refresh_button, self.undo_button])
        self.root = w.VBox([bar, self.undo_confirm.widget, self.undo_status.widget, self.tabs])
        self.root.add_class("chatops-console")

    @classmethod
    def open(
        cls,
        *,
        zuliprc: str = "",
        site: str = "",
        account: str = "admin",
        size: str = "small",
        background: bool | None = None,
        export_dir: str | Path = "exports",
    ) -> AdminConsole:
        """A console for a zuliprc file or a site (credentials from ``ZULIP_*`` or
        ``~/.zuliprc``); with neither, a demo sandbox started for this session, acting as its
        ``account`` (owner, admin, moderator, member or guest)."""
        if zuliprc:
            path = Path(zuliprc).expanduser()
            if not path.is_file():
                raise ConfigError(f"zuliprc {path} does not exist")
            client = Client(site=site or None, config_file=path)
            return cls._checked(client, background=background, export_dir=export_dir)
        if site:
            return cls._checked(Client(site=site), background=background, export_dir=export_dir)
        if account not in DEMO_ACCOUNTS:
            raise ConfigError(
                f"account {account!r} is not a demo account; choose one of "
                f"{', '.join(DEMO_ACCOUNTS)}"
            )
        from chatops.sandbox import SIZES, Sandbox

        if size not in SIZES:
            raise ConfigError(f"size {size!r} is not one of {', '.join(sorted(SIZES))}")
        sandbox = Sandbox.start(size=size)
        try:
            client = Client.from_zuliprc(sandbox.zuliprc(account))
            console = cls._checked(client, background=background, export_dir=export_dir)
        except BaseException:
            sandbox.stop()
            raise
        console.sandbox = sandbox
        # the sandbox lives as long as the console: stop it when the console is collected
        console._stop_sandbox = weakref.finalize(console, sandbox.stop)
        return console

    @classmethod
    def _checked(
        cls, client: Client, *, background: bool | None, export_dir: str | Path
    ) -> AdminConsole:
        try:
            client.users.me()  # wrong key or unreachable server: one clear error, now
        except BaseException:
            client.close()
            raise
        return cls(client, background=background, export_dir=export_dir)

    def panel(self, slug: str) -> Panel:
        """The panel of a tab (loaded): ``folders``, ``linkifiers``, ``groups``,
        ``invitations``, ``status``, ``organization``."""
        try:
            panel = self.panels[slug]
        except KeyError:
            raise KeyError(f"no panel {slug!r}; choose one of {', '.join(self.panels)}") from None
        return panel.load()

    def _on_tab(self, change: dict[str, Any]) -> None:
        index = change["new"]
        if index is not None:
            list(self.panels.values())[index].load_soon()

    def select(self, slug: str) -> Panel:
        """Show the tab of a panel and return the panel."""
        panel = self.panel(slug)
        self.tabs.selected_index = list(self.panels).index(slug)
        return panel

    def invite(self, addresses: list[str], group_id: int | None = None) -> None:
        """Open the Invitations tab with ``addresses`` filled in (and the group ``group_id``
        chosen, so that they join it when they accept): the admin chooses channels, previews,
        and Send asks before anything is sent."""
        panel = self.select("invitations")
        prefill = getattr(panel, "prefill", None)
        if prefill is not None:
            prefill(addresses, group_id)

    def refresh(self) -> None:
        """Fetch the organization's settings again and refresh every panel."""
        self.session.refresh()
        for panel in self.panels.values():
            if panel.loaded:  # the others fetch everything when they are first opened
                panel.guard(panel.refresh)

    def ask_undo(self) -> str:
        """Ask to undo the last action made from the console, listing what will be put back;
        Yes puts it back (what someone changed since is left as it is). Returns the question."""
        changes = self.session.changes
        action = changes.last_action()
        self.undo_status.clear()
        if action is None:
            self.undo_status.info("Nothing to undo: no change was made from this console yet.")
            return ""
        items, cannot = changes.undo_preview(action)
        question = (
            f"Undo “{changes.label(action)}”: put back {len(items)} "
            f"change{'' if len(items) == 1 else 's'}"
            + (f"; {len(cannot)} cannot be undone" if cannot else "")
            + "?"
        )
        listed = [undo_words(i) for i in items]
        listed += [f"cannot be undone: {line.get('method')} {line.get('path')}" for line in cannot]
        self.undo_confirm.ask(question, lambda: self._undo(action), yes="Undo", items=listed)
        return question

    def _undo(self, action: int) -> None:
        label = self.session.changes.label(action)
        try:
            tally = self.session.changes.undo_action(action)
        except Exception as exc:  # shown, never raised into the page
            self.undo_status.error(describe_error(exc))
            return
        put_back, left = undo_counts(tally)
        words = f"Undid “{label}”: {put_back} put back"
        if left:
            words += f", {left} left as they are (changed since, or refused)"
            self.undo_status.error(words + ".")
        else:
            self.undo_status.ok(words + ".")
        self.refresh()

    def close(self) -> None:
        """Stop the panels' work, close the connection and any sandbox started for it."""
        for panel in self.panels.values():
            panel.close()
        self.root.close()
        self.client.close()
        if self._stop_sandbox is not None:
            self._stop_sandbox()  # runs sandbox.stop once, whoever calls first
            self.sandbox = None

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle: dict[str, Any] | None = self.root._repr_mimebundle_(**kwargs)
        list(self.panels.values())[self.tabs.selected_index or 0].load_soon()
        return bundle

    def __repr__(self) -> str:
        return f"AdminConsole(site={self.client.site!r}, panels={list(self.panels)})"
