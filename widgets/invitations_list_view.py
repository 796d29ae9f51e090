"""The invitations made, as the Invitations panel shows them: filters above the list (by
inviter, role, kind, expiry and state), Revoke and Resend under it (asked first, run with
progress) and one result per invitation. The logic is
:class:`~chatops.widgets.invitations_list.InvitationList`, reached through the panel's model.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w
import pandas as pd

from ._base import ROLE_NAMES, Confirm, Panel
from ._controls import Progress
from ._model import plural as _plural
from .invitations_data import NotAllowed
from .invitations_list import DONE, EXPIRIES, LIST_HIDDEN, LIST_TIPS, STATES, InvitationFilter
from .invitations_model import InvitationsModel

__all__ = ["InvitationListView"]


class InvitationListView:
    """The list of invitations and links of ``panel`` (made in its :meth:`Panel.build`), over
    ``model``'s list."""

    def __init__(self, panel: Panel, model: InvitationsModel) -> None:
        self.panel = panel
        self.model = model

        def pick(description: str, options: list[tuple[str, Any]]) -> w.Dropdown:
            box = w.Dropdown(
                description=description,
                options=options,
                value=options[0][1],
                style={"description_width": "initial"},
                layout=w.Layout(width="auto"),
            )
            box.observe(lambda _c: panel.guard(self.apply_filter), "value")
            return box

        # "any" is 0 or "": a Dropdown whose value is None shows an empty box
        self.inviter_filter = pick("Invited by", [("anyone", 0)])
        self.role_filter = pick(
            "Role", [("any", 0)] + [(n.capitalize(), r) for r, n in ROLE_NAMES.items()]
        )
        self.kind_filter = pick(
            "Kind", [("emails and links", ""), ("email invitations", "email"), ("links", "link")]
        )
        self.expiry_filter = pick("Expires", [(e, e) for e in EXPIRIES])
        self.state_filter = pick("State", [("any", "")] + [(s, s) for s in STATES])
        self.filter_box = w.HBox(
            [
                self.inviter_filter,
                self.role_filter,
                self.kind_filter,
                self.expiry_filter,
                self.state_filter,
            ],
            layout=w.Layout(flex_flow="row wrap", grid_gap="4px 12px"),
        )
        self.table = panel.table(
            "Invitations and links, newest first"
            + ("" if panel.session.is_admin else " (yours; administrators see everyone's)"),
            self.load,
            slug="active",
            empty="No invitation matches (the server lists active invitations only).",
            select=True,
        )
        self.table.hidden = LIST_HIDDEN
        self.table.tips = dict(LIST_TIPS)
        # an address or a link breaks after an "@", "/" or ".", never inside a word
        self.table.whole_words("email or link")
        self.revoke_button = w.Button(description="Revoke selected", icon="ban")
        self.resend_button = w.Button(description="Resend selected", icon="envelope")
        panel.actions += [self.revoke_button, self.resend_button]
        self.confirm = Confirm()
        self.handled_table = panel.table(
            "Revoked and resent: one result per invitation",
            model.handled_frame,
            slug="handled",
            empty="Nothing revoked or resent yet.",
            problem=lambda row: row["result"] != DONE,
        )
        panel.outcome_of(self.revoke_button, self.handled_table)
        panel.outcome_of(self.resend_button, self.handled_table)
        panel.on_click(self.revoke_button, lambda: self.ask_bulk("revoke"))
        panel.on_click(self.resend_button, lambda: self.ask_bulk("resend"))
        for part, name in [
            (self.table.widget, "invitations-table"),
            (self.handled_table.widget, "handled-table"),
            (self.revoke_button, "revoke"),
            (self.resend_button, "resend"),
            (self.confirm.widget, "confirm"),
            (self.confirm.yes, "confirm-yes"),
            (self.filter_box, "filters"),
        ]:
            part.add_class(f"chatops-invitations-{name}")

    @property
    def widgets(self) -> list[w.Widget]:
        """What the panel lays out, in order."""
        return [
            self.filter_box,
            self.table.widget,
            w.HBox([self.revoke_button, self.resend_button]),
            self.confirm.widget,
        ]

    def apply_filter(self) -> pd.DataFrame:
        """Show the invitations that pass the filters chosen (no request); returns them."""
        self.model.invitations_filter = InvitationFilter(
            inviter=self.inviter_filter.value or None,
            role=self.role_filter.value or None,
            kind=self.kind_filter.value or None,
            expiry=str(self.expiry_filter.value),
            state=self.state_filter.value or None,
        )
        shown = self.model.invitations_frame()
        self.table.show(shown)
        return shown

    def _fill_inviters(self) -> None:
        chosen = self.inviter_filter.value
        inviters = self.model.inviters()
        options = [("anyone", 0)] + [(name, uid) for uid, name in inviters.items()]
        with self.inviter_filter.hold_trait_notifications():
            self.inviter_filter.options = options
            self.inviter_filter.value = chosen if chosen in inviters else 0

    def load(self) -> pd.DataFrame:
        """Fetch the invitations again (on the progress bar) and return those the filters
        let through."""
        self.model.load_invitations()
        self._fill_inviters()
        progress = self.panel.progress
        if isinstance(progress, Progress) and not progress.failed:
            progress.widget.layout.display = "none"  # counted while it ran; done now
        return self.model.invitations_frame()

    def changed(self) -> None:
        """The server's invitations changed: fetch and show them again."""
        self.model.fetch_invitations()
        self._fill_inviters()
        self.table.show(self.model.invitations_frame())

    def selected_invitations(self) -> list[int]:
        """The IDs of the invitations selected in the list."""
        return [int(i) for i in self.table.selected()["invitation ID"].tolist()]

    def ask_bulk(self, action: str, invitation_ids: list[int] | None = None) -> str:
        """Ask to revoke or resend the selected invitations (or ``invitation_ids``); the work
        runs when the admin clicks Yes. Returns the question."""
        ids = self.selected_invitations() if invitation_ids is None else list(invitation_ids)
        if not ids:
            raise NotAllowed(
                f"Select the invitations to {action} in the list first (click a row; "
                "Shift- or Ctrl/⌘-click for more)."
            )
        model = self.model
        work = model.revoke_invitations if action == "revoke" else model.resend_invitations
        if action == "revoke":
            question = (
                f"Revoke {_plural(len(ids), 'invitation')}? Nobody can join with them afterwards."
            )
        else:
            question = f"Send {_plural(len(ids), 'email invitation')} again?"
        known = {i.id: i for i in model.invites}
        listed = [
            (known[i].email or f"reusable link {known[i].link_url or i}") if i in known else str(i)
            for i in ids
        ]
        self.confirm.ask(
            question,
            lambda: self.panel.run_long(lambda: work(ids)),
            yes=action.capitalize(),
            items=listed,
        )
        return question
