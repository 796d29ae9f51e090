"""The People and channels panel: bulk changes an administrator makes every week, each
previewed a row per person before anything is sent, asked about, made with progress and a
result per row, and undone by the console's Undo (or ``chatops undo``).

- subscribe or unsubscribe people x channels (addresses, full names or @groups, pasted or from
  a CSV file; one request per 250 people for every channel at once);
- change roles (only an owner makes or unmakes owners; never the last owner, never yourself);
- deactivate idle accounts (no message and not seen for N days, each with those dates; owners,
  administrators and bots only when asked).

The logic is :class:`~chatops.widgets.people_model.PeopleModel`; this module lays it out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as w

from chatops import Client

from ._base import Confirm, Panel, Session, forwarded
from ._model import plural
from .people_model import ACTIONS, Choice, PeopleModel

__all__ = ["PeopleChannelsPanel"]

ROLES = ("owner", "administrator", "moderator", "member", "guest")


class PeopleChannelsPanel(Panel):
    """Bulk changes to people: subscriptions, roles, idle accounts.

    Example::

        panel = PeopleChannelsPanel(chatops.Client.from_zuliprc("~/.zuliprc"))
        panel.people.value = "@backend\\nann@example.org"
        panel.channels.value = ("deploys", "backend")
        panel.preview()            # a row per person: which channels they join
        panel.apply()              # after the question is answered: the requests, with progress
    """

    title = "People and channels"
    slug = "people"

    def __init__(
        self,
        client: Client | Session,
        *,
        background: bool | None = None,
        export_dir: str | Path = "exports",
    ) -> None:
        super().__init__(client, background=background, export_dir=export_dir)
        self.model = PeopleModel(self.session)

    def missing_permission(self) -> str | None:
        if self.session.role > 200:
            return "Bulk changes to people need an organization administrator."
        return None

    # -- building ---------------------------------------------------------------------------
    def build(self) -> w.Widget:
        self.action = w.Dropdown(options=[(v, k) for k, v in ACTIONS.items()], value="subscribe")
        self.action.add_class("chatops-people-action")
        self.people = w.Textarea(
            placeholder="ann@example.org, Bo Li, @backend — one per line or comma",
            layout=w.Layout(width="420px", height="110px"),
        )
        self.people.add_class("chatops-people-list")
        self.upload = w.FileUpload(accept=".csv,.txt", multiple=False, description="CSV file")
        self.upload.add_class("chatops-people-csv")
        self.channels = w.SelectMultiple(options=[], rows=7, layout=w.Layout(width="420px"))
        self.channels.add_class("chatops-people-channels")
        self.role = w.Dropdown(options=list(ROLES), value="member")
        self.role.add_class("chatops-people-role")
        self.days = w.BoundedIntText(value=90, min=1, max=3650, layout=w.Layout(width="120px"))
        self.days.add_class("chatops-people-days")
        self.include = w.SelectMultiple(
            options=["owners", "administrators", "bots"], rows=3, layout=w.Layout(width="200px")
        )
        self.include.add_class("chatops-people-include")
        self.preview_button = w.Button(description="Preview", icon="eye")
        self.preview_button.add_class("chatops-people-preview")
        self.apply_button = self.action_button("Apply…", icon="check", style="primary")
        self.apply_button.add_class("chatops-people-apply")
        self.confirm = Confirm()
        self.confirm.widget.add_class("chatops-people-confirm")
        self.confirm.yes.add_class("chatops-people-yes")
        self.actions.append(self.confirm.yes)
        self.preview_table = self.table(
            "Preview: what changes for each person",
            self.model.preview_frame,
            slug="preview",
            empty="Choose people and what to do, then click Preview.",
            problem=lambda row: row["status"] == "refused",
        )
        self.results_table = self.table(
            "Results: what happened for each person",
            self.model.results_frame,
            slug="results",
            empty="Nothing applied yet.",
            problem=lambda row: row["status"] not in ("done", "already so"),
        )
        for table in (self.preview_table, self.results_table):
            table.hidden = ("email",)
            table.tips["person"] = "email"
            table.whole_words("change", "detail")
        who = [
            w.HTML(value='<div class="chatops-section">1. Who</div>'),
            self.field("action", self.action, label="Do").box,
            self.field(
                "people",
                self.people,
                label="People",
                hint="Addresses, full names or @groups (members of subgroups too).",
            ).box,
            self.upload,
        ]
        what = [
            w.HTML(value='<div class="chatops-section">2. What</div>'),
            self.field(
                "channels", self.channels, label="Channels", hint="Ctrl/Cmd-click for several."
            ).box,
            self.field("role", self.role, label="Role").box,
            self.field(
                "days", self.days, label="Idle for days", hint="No message and not seen."
            ).box,
            self.field("include", self.include, label="Also include", hint="Never you.").box,
            w.HBox([self.preview_button, self.apply_button]),
        ]
        self._wire()
        body = self.columns(who, what)
        body.add_class("chatops-people")
        return body

    def _wire(self) -> None:
        self.upload.observe(self._on_upload, "value")
        self.action.observe(lambda _c: self._show_fields(), "value")
        self.on_click(self.preview_button, self.preview)
        self.on_click(self.apply_button, self.ask_apply)
        self.outcome_of(self.preview_button, self.preview_table)
        self.outcome_of(self.apply_button, self.confirm.widget, self.results_table)
        inputs = (self.action, self.people, self.channels, self.role, self.days, self.include)
        self.expire_on(self.preview_button, *inputs)
        self.expire_on(self.apply_button, *inputs, forget=self.confirm.cancel)
        self.watch(*inputs)
        self._show_fields()

    def _show_fields(self) -> None:
        action = self.action.value
        shown = {
            "people": action != "idle",
            "channels": action in ("subscribe", "unsubscribe"),
            "role": action == "role",
            "days": action == "idle",
            "include": action == "idle",
        }
        for name, visible in shown.items():
            self.fields[name].box.layout.display = None if visible else "none"
        self.upload.layout.display = None if action != "idle" else "none"

    def control_reasons(self) -> list[tuple[w.DOMWidget, str]]:
        action = self.action.value
        reason = ""
        if action != "idle" and not str(self.people.value).strip():
            reason = "Name the people first."
        elif action in ("subscribe", "unsubscribe") and not self.channels.value:
            reason = "Choose the channels first."
        return [(self.preview_button, reason), (self.apply_button, reason)]

    # -- refreshing and acting --------------------------------------------------------------
    def refresh(self) -> None:
        """Read the people, groups and channels again."""
        self.model.fetch()
        chosen = self.channels.value
        self.channels.options = self.model.channel_names()
        self.channels.value = tuple(c for c in chosen if c in self.channels.options)

    def choice(self) -> Choice:
        """What the form says now."""
        return Choice(
            action=str(self.action.value),
            people=str(self.people.value),
            channels=tuple(self.channels.value),
            role=str(self.role.value),
            days=int(self.days.value),
            include=tuple(self.include.value),
        )

    def preview(self) -> Any:
        """Show what the form's change would do, a row per person; returns the plan."""
        plan = self.model.preview(self.choice())
        self.preview_table.show(self.model.preview_frame())
        refused = sum(r.status == "refused" for r in plan.rows)
        text = f"{plural(plan.will, 'person', 'people')} of {len(plan.rows)} change"
        if refused:
            self.status.error(f"{text}; {refused} refused (see why in the preview).")
        else:
            self.status.info(f"{text}. Apply… asks before anything is sent.")
        return plan

    def ask_apply(self) -> str:
        """Preview again, then ask, naming each person and what changes for them; Yes sends
        exactly that preview. Returns the question."""
        plan = self.preview()
        if not plan.changes:
            self.status.info("Nothing to change: everyone is already so.")
            return ""
        question = (
            f"{ACTIONS[self.choice().action]}: {plural(plan.will, 'person', 'people')} "
            f"({plural(len(plan.changes), 'request')})?"
        )
        rows = [f"{r.person}: {r.change}" for r in plan.rows if r.status == "will change"]
        self.confirm.ask(
            question,
            lambda: self.run_long(lambda: self._apply(plan)),
            yes=f"Apply to {plural(plan.will, 'person', 'people')}",
            items=rows,
        )
        return question

    def _apply(self, plan: Any) -> None:
        self.progress.start(plan.will, "people")
        results = self.model.apply(
            plan,
            advanced=lambda n, failed: self.progress.advance(n, failed=n if failed else 0),
            stop=lambda: self.progress.cancelled,
        )
        self.results_table.show(self.model.results_frame())
        done = sum(r.status == "done" for r in results)
        left = sum(r.status not in ("done", "already so") for r in results)
        text = f"{plural(done, 'person', 'people')} changed"
        if left:
            self.status.error(f"{text}; {left} not (see the results).")
        else:
            self.status.ok(f"{text}. The console's Undo puts them back.")
        self.session.refresh()
        self.model.fetch()

    def _on_upload(self, change: dict[str, Any]) -> None:
        files = change["new"]
        if not files:
            return
        content = bytes(files[0]["content"])
        try:
            text = content.decode("utf-8-sig")
        except UnicodeDecodeError:
            self.fields["people"].error("The file is not UTF-8 text (save it as CSV UTF-8).")
            return
        from chatops.org.bulk import split_entries

        self.people.value = "\n".join(split_entries(text))
        self.upload.value = ()

    fetch = forwarded(PeopleModel.fetch)
