"""The Invitations panel: invite many people by email at once, and make reusable invitation links
(spec 4.8). The logic is :class:`~chatops.widgets.invitations_model.InvitationsModel`; this module
lays it out and binds it.

Addresses come pasted (one per line or comma separated, ``Name <addr>`` allowed) or from a CSV
upload. Preview classifies every row before anything is sent: valid, invalid address, duplicate
of an earlier row, already a user (active or deactivated), already invited. Send invites only the
valid rows, several addresses per ``POST /invites`` request (``batch_size``), counts addresses on
the progress bar, can be cancelled between batches, and gives one result per address: invited,
refused (with the server's reason), not sent (cancelled) or failed (with the error's code).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd

from chatops import Client
from chatops.types import Invite

from ._base import Confirm, FieldError, Panel, Session, escape, forwarded, frame, from_model
from ._model import plural as _plural
from .invitations_data import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_EXPIRY_DAYS,
    FAILED,
    INVITED,
    MAX_EXPIRY_DAYS,
    MAX_WELCOME_TEXT,
    NOT_SENT,
    PREVIEW_COLUMNS,
    REFUSED,
    SKIPPED,
    VALID,
    Candidate,
    InviteOptions,
    NotAllowed,
    Outcome,
    address_problem,
    addresses_from_file,
    split_addresses,
)
from .invitations_list import (
    Handled,
    InvitationFilter,
)
from .invitations_list_view import InvitationListView
from .invitations_model import InvitationsModel

__all__ = [
    "FAILED",
    "INVITED",
    "NOT_SENT",
    "REFUSED",
    "SKIPPED",
    "Candidate",
    "InvitationsModel",
    "InvitationsPanel",
    "InviteOptions",
    "NotAllowed",
    "Outcome",
    "address_problem",
    "addresses_from_file",
    "split_addresses",
]


class InvitationsPanel(Panel):
    """Bulk email invitations with a preview, batched sending and per-address results, and
    reusable invitation links with the same choices.

    Example::

        panel = InvitationsPanel(chatops.Client.from_zuliprc("~/.zuliprc"))
        panel                                   # in JupyterLab: shows the panel
        panel.addresses.value = "Ann <ann@example.org>, bob@example.org"
        panel.role.value = 400                  # member
        panel.classify()                        # the preview, one Candidate per row
        panel.send()                            # one Outcome per row
        panel.create_link()                     # a reusable link with the same choices

    Email invitations need the organization's ``can_invite_users_group``, links its
    ``create_multiuse_invite_group``; guests may do neither. Without either, the panel is
    read-only (the preview still works). The logic is :attr:`model`.
    """

    title = "Invitations"
    slug = "invitations"

    def __init__(
        self,
        client: Client | Session,
        *,
        background: bool | None = None,
        export_dir: str | Path = "exports",
        batch_size: int = DEFAULT_BATCH_SIZE,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(client, background=background, export_dir=export_dir)
        self.model = InvitationsModel(
            self.session,
            batch_size=batch_size,
            sleep=sleep,
            status=self.status,
            progress=self.progress,
            previewed=lambda: self.preview_table.show(self.preview_frame()),
            results_changed=self._shown_results,
            invitations_changed=self._shown_invitations,
            handled=lambda: self.handled_table.show(self.handled_frame()),
        )
        self._refreshed = False
        self.root.add_class("chatops-invitations")

    def missing_permission(self) -> str | None:
        return self.model.missing_permission()

    def after_load(self) -> None:
        if self.read_only:
            for widget in self._option_inputs:
                widget.disabled = True

    # -- building ------------------------------------------------------------------------------
    def build(self) -> w.Widget:
        self._refreshed = False
        self._build_who()
        self._build_what()
        self._build_buttons()
        self._build_tables()
        self._build_list_controls()
        self._bind()
        return self._layout()

    def _build_who(self) -> None:
        self.addresses = self.field(
            "addresses",
            w.Textarea(
                placeholder="ann@example.org\nBob Smith <bob@example.org>, carol@example.org",
                layout=w.Layout(width="640px", height="140px"),
            ),
            label="Addresses",
            hint="One per line or separated by commas; “Name <address>” is fine.",
        )
        self.upload = self.field(
            "upload",
            w.FileUpload(accept=".csv,.txt", multiple=False, description="Upload CSV"),
            label="Or a file",
            hint=(
                "A CSV file with a column named email, e-mail or address (or addresses in the "
                "first column), or a text file. It replaces the addresses above."
            ),
        )
        self.preview_button = w.Button(description="Preview", icon="search")

    def _build_what(self) -> None:
        self.role = self.field(
            "invite_as",
            w.Dropdown(options=self.model.role_options(), value=self.model.default_role()),
            label="Role",
            hint="Roles you may give: none more powerful than your own.",
        )
        self.channels = self.field(
            "stream_ids",
            w.SelectMultiple(options=[], rows=6, layout=w.Layout(width="320px")),
            label="Channels",
            hint="",
        )
        self.groups = self.field(
            "group_ids",
            w.SelectMultiple(options=[], rows=4, layout=w.Layout(width="320px")),
            label="User groups",
            hint="",
        )
        self.expires_in_days = self.field(
            "expires_in_days",
            w.IntText(value=DEFAULT_EXPIRY_DAYS, layout=w.Layout(width="90px")),
            label="Expires after",
            hint=f"Days, 1 to {MAX_EXPIRY_DAYS:,} (the server's default is 10 days).",
        )
        self.never_expires = w.Checkbox(value=False, description="never", indent=False)
        self.never_expires.observe(self._on_never, "value")
        self.welcome = self.field(
            "welcome_message_custom_text",
            w.Textarea(
                placeholder="Leave empty for the organization's usual welcome.",
                layout=w.Layout(width="640px", height="90px"),
            ),
            label="Welcome message",
            hint=self._welcome_count(""),
        )
        self.welcome.input.observe(self._on_welcome, "value")
        self.welcome_note = w.HTML(value="")
        if not self.session.is_admin:
            # Only administrators may set it; the server ignores it from anyone else.
            self.welcome.box.layout.display = "none"
            self.welcome_note.value = (
                '<span class="chatops-muted">Only organization administrators can write a '
                "custom welcome message; new users get the organization's usual welcome.</span>"
            )
        self.include_defaults = self.field(
            "include_realm_default_subscriptions",
            w.Checkbox(value=True, description="also join the default channels", indent=False),
            label="Default channels",
        )

    def _build_buttons(self) -> None:
        is_guest = self.session.role >= 600
        self.send_button = w.Button(
            description="Send invitations", icon="paper-plane", button_style="primary"
        )
        self.retry_button = w.Button(description="Retry failed", icon="redo")
        self.link_button = w.Button(description="Create invitation link", icon="link")
        self.link = self.field(
            "link",
            w.Text(
                value="",
                placeholder="The link appears here; select it and copy.",
                layout=w.Layout(width="640px"),
            ),
            label="Invitation link",
            hint="Anyone with the link can join with the choices above until it expires.",
        )
        self.send_note = w.HTML(value="")
        self.link_note = w.HTML(value="")
        # Buttons the account may not use stay disabled for good: they are not in
        # ``self.actions``, which the base re-enables after each long operation.
        if self.may_send:
            self.actions += [self.send_button, self.retry_button]
        else:
            self.send_button.disabled = self.retry_button.disabled = True
            if not is_guest:  # for guests the read-only notice says why
                self.send_note.value = self._note(
                    self.model.choices.missing("can_invite_users_group", "email")
                )
        if self.may_create_links:
            self.actions.append(self.link_button)
        else:
            self.link_button.disabled = True
            if not is_guest:
                self.link_note.value = self._note(
                    self.model.choices.missing("create_multiuse_invite_group", "link")
                )
        self._option_inputs: list[w.DOMWidget] = [
            self.addresses.input,
            self.upload.input,
            self.role.input,
            self.channels.input,
            self.groups.input,
            self.expires_in_days.input,
            self.never_expires,
            self.welcome.input,
            self.include_defaults.input,
        ]

    def _build_tables(self) -> None:
        self.preview_table = self.table(
            "Preview: every row and whether it will be sent",
            self.load_preview,
            slug="preview",
            empty="Paste or upload addresses, then click Preview.",
            problem=lambda row: row["classification"] != VALID,
        )
        self.results_table = self.table(
            "Results: what happened to each address",
            self.load_results,
            slug="results",
            empty="Nothing sent yet.",
            problem=lambda row: row["result"] != INVITED,
        )
        self.preview_table.whole_words("as typed", "address")
        self.results_table.whole_words("address")

    def _bind(self) -> None:
        self.upload.input.observe(self._on_upload, "value")
        self.outcome_of(self.preview_button, self.preview_table)
        self.send_confirm = Confirm()
        self.send_confirm.widget.add_class("chatops-invitations-send-confirm")
        self.send_confirm.yes.add_class("chatops-invitations-send-yes")
        self.outcome_of(self.send_button, self.send_confirm.widget, self.results_table)
        # a question or an outcome is about the addresses and choices it was given
        self.expire_on(self.send_button, *self._option_inputs, forget=self.send_confirm.cancel)
        self.outcome_of(self.retry_button, self.results_table)
        self.on_click(self.preview_button, self.classify)
        self.on_click(self.send_button, self.ask_send)
        self.on_click(self.retry_button, lambda: self.run_long(self.retry_failed))
        self.on_click(self.link_button, self.create_link)

        for part, name in [
            (self.addresses.input, "addresses"),
            (self.upload.input, "upload"),
            (self.preview_button, "preview"),
            (self.role.input, "role"),
            (self.channels.input, "channels"),
            (self.groups.input, "groups"),
            (self.expires_in_days.input, "expiry-days"),
            (self.never_expires, "never-expires"),
            (self.welcome.input, "welcome"),
            (self.welcome_note, "welcome-note"),
            (self.include_defaults.input, "include-defaults"),
            (self.send_button, "send"),
            (self.retry_button, "retry"),
            (self.link_button, "create-link"),
            (self.link.input, "link"),
            (self.preview_table.widget, "preview-table"),
            (self.results_table.widget, "results-table"),
        ]:
            part.add_class(f"chatops-invitations-{name}")

    def _layout(self) -> w.Widget:
        def section(text: str) -> w.HTML:
            return w.HTML(value=f'<div class="chatops-section">{escape(text)}</div>')

        return self.columns(
            [
                section("Who to invite"),
                self.addresses.box,
                self.upload.box,
                self.preview_button,
                section("Invitations made"),
                *self.list_view.widgets,
            ],
            [
                section("What they get"),
                self.role.box,
                self.channels.box,
                self.groups.box,
                w.HBox([self.expires_in_days.box, self.never_expires]),
                self.welcome.box,
                self.welcome_note,
                self.include_defaults.box,
                section("Email invitations"),
                w.HBox([self.send_button, self.retry_button]),
                self.send_note,
                section("Or a reusable invitation link"),
                self.link_button,
                self.link_note,
                self.link.box,
            ],
        )

    @staticmethod
    def _note(text: str) -> str:
        return f'<span class="chatops-muted">{escape(text)}</span>'

    def load_options(self) -> None:
        """Fetch the channels and groups the account may choose and fill the selectors."""
        self.model.choices.load()
        for fld, names in ((self.channels, self.channel_names), (self.groups, self.group_names)):
            chosen = [v for v in fld.input.value if v in names]
            fld.input.options = [(label, sid) for sid, label in names.items()]
            fld.input.value = tuple(chosen)
        if self.channel_names:
            self.channels.hint("Ctrl/⌘-click to pick several. Only channels you may add people to.")
        else:
            self.channels.hint(
                "You may not subscribe others to channels (organization setting "
                "can_add_subscribers_group); new users join the default channels only."
            )
        if self.group_names:
            self.groups.hint("Ctrl/⌘-click to pick several. Only groups you may add people to.")
        else:
            self.groups.hint("There are no user groups you may add people to.")

    def _form_options(self) -> InviteOptions:
        """The choices in the form, as typed (not yet checked)."""
        never = bool(self.never_expires.value)
        text = str(self.welcome.value) if self.session.is_admin else ""
        return InviteOptions(
            invite_as=int(self.role.value),
            stream_ids=tuple(int(v) for v in self.channels.value),
            group_ids=tuple(int(v) for v in self.groups.value),
            expires_in_days=None if never else int(self.expires_in_days.value),
            welcome_message_custom_text=text or None,
            include_realm_default_subscriptions=bool(self.include_defaults.value),
        )

    def options(self) -> InviteOptions:
        """The choices in the form, checked against the server's rules and limits."""
        return self.check_options(self._form_options())

    @staticmethod
    def _welcome_count(text: str) -> str:
        return f"{len(text):,} of {MAX_WELCOME_TEXT:,} characters (Markdown)."

    def _on_welcome(self, change: Mapping[str, Any]) -> None:
        text = str(change["new"])
        self.welcome.hint(self._welcome_count(text))
        if len(text) > MAX_WELCOME_TEXT:
            self.welcome.error(
                f"{_plural(len(text) - MAX_WELCOME_TEXT, 'character')} too many; the server allows "
                f"{MAX_WELCOME_TEXT:,}."
            )
        else:
            self.welcome.clear()

    def _on_never(self, change: Mapping[str, Any]) -> None:
        self.expires_in_days.input.disabled = bool(change["new"]) or self.read_only

    # -- lists ---------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fetch the choosable channels and groups and the active invitations again."""
        if self._refreshed:
            self.session.refresh()  # groups and settings may have changed since
        self._refreshed = True
        self.load_options()
        self.invitations_table.refresh()

    def _build_list_controls(self) -> None:
        """The list of invitations made, its filters and bulk actions (its widgets are the
        panel's too)."""
        view = self.list_view = InvitationListView(self, self.model)
        self.invitations_table, self.handled_table = view.table, view.handled_table
        self.revoke_button, self.resend_button = view.revoke_button, view.resend_button
        self.confirm, self.filter_box = view.confirm, view.filter_box
        self.inviter_filter, self.role_filter = view.inviter_filter, view.role_filter
        self.kind_filter, self.expiry_filter = view.kind_filter, view.expiry_filter
        self.state_filter = view.state_filter

    def apply_filter(self) -> pd.DataFrame:
        """Show the invitations that pass the filters chosen (no request); returns them."""
        return self.list_view.apply_filter()

    def load_invitations(self) -> pd.DataFrame:
        """Fetch the invitations again (on the progress bar) and return those the filters
        let through."""
        return self.list_view.load()

    def selected_invitations(self) -> list[int]:
        """The IDs of the invitations selected in the list."""
        return self.list_view.selected_invitations()

    def ask_bulk(self, action: str, invitation_ids: list[int] | None = None) -> str:
        """Ask to revoke or resend the selected invitations (or ``invitation_ids``); the work
        runs when the admin clicks Yes. Returns the question."""
        return self.list_view.ask_bulk(action, invitation_ids)

    def load_preview(self) -> pd.DataFrame:
        """The preview table: classify the addresses in the form again."""
        self.classify()
        return self.preview_table.frame

    def load_results(self) -> pd.DataFrame:
        """The results table of the last Send (or Retry)."""
        return self.results_frame()

    # -- upload --------------------------------------------------------------------------------
    def _on_upload(self, change: Mapping[str, Any]) -> None:
        if change["new"]:
            self.clear_errors()
            self.guard(self.load_upload)

    def load_upload(self) -> list[str]:
        """Put the addresses of the uploaded file into the address box; returns them."""
        files = tuple(self.upload.value)
        if not files:
            raise FieldError("upload", "Choose a CSV or TXT file first.")
        upload = files[0]
        name = str(upload.get("name") or "the file")
        try:
            found, where = addresses_from_file(bytes(upload["content"]), name)
        except ValueError as exc:
            raise FieldError("upload", str(exc)) from None
        self.addresses.value = "\n".join(found)
        self.model.candidates = []
        self.preview_table.show(frame([], PREVIEW_COLUMNS))
        self.status.ok(
            f"Read {_plural(len(found), 'address', 'addresses')} from {name} ({where}). "
            "Click Preview to check them."
        )
        return found

    def prefill(self, addresses: list[str], group_id: int | None = None) -> None:
        """Fill in ``addresses`` (people another panel's list named who are not here yet) with
        the group ``group_id`` chosen, for the admin to finish: nothing is sent until Send is
        clicked and confirmed."""
        self.load()
        self.load_options()
        self.addresses.value = "\n".join(addresses)
        self.groups.input.value = ()  # never a group chosen for an earlier batch
        joined = ""
        if group_id is not None and group_id in self.group_names:
            self.groups.input.value = (group_id,)
            joined = f", to join “{self.group_names[group_id]}” when they accept"
        elif group_id is not None:
            joined = " (you may not add people to their group: add them once they have joined)"
        self.model.candidates = []
        self.preview_table.show(frame([], PREVIEW_COLUMNS))
        self._focus(self.general_feedback, ())  # the line shows under the panel's header
        self.status.info(
            f"{_plural(len(addresses), 'address', 'addresses')} from the User groups panel"
            f"{joined}: choose their channels, Preview, then Send (it asks first)."
        )

    # -- the model's actions, with the form's values by default --------------------------------
    def classify(self, text: str | None = None) -> list[Candidate]:
        """Classify every row of ``text`` (default: the address box) and show the preview."""
        return self.model.classify(str(self.addresses.value) if text is None else text)

    def ask_send(self) -> str:
        """Preview the addresses and ask, listing them, before any is sent; returns the
        question. Yes sends exactly what was asked about."""
        text, options = str(self.addresses.value), self._form_options()
        question, addresses = self.model.describe_send(text, options)
        self.preview_table.show(self.model.preview_frame())
        send = lambda: self.run_long(lambda: self.send(text, options))  # noqa: E731
        self.send_confirm.ask(question, send, yes=f"Send {len(addresses):,}", items=addresses)
        return question

    def send(self, text: str | None = None, options: InviteOptions | None = None) -> list[Outcome]:
        """Invite the valid rows of ``text`` (default: the address box) with ``options``
        (default: the form's), batched; one outcome per row."""
        return self.model.send(
            str(self.addresses.value) if text is None else text,
            options if options is not None else self._form_options(),
        )

    def create_link(self, options: InviteOptions | None = None) -> str:
        """Create a reusable invitation link with the form's choices and show it."""
        url = self.model.create_link(options if options is not None else self._form_options())
        self.link.value = url
        return url

    def _shown_results(self) -> None:
        self.results_table.refresh()

    def _shown_invitations(self) -> None:
        self.list_view.changed()

    # -- the model's state, and its other methods ----------------------------------------------
    candidates = from_model[list[Candidate]]()
    outcomes = from_model[dict[int, Outcome]]()
    results = from_model[list[Outcome]]()
    requests_sent = from_model[int]()
    link_url = from_model[str]()
    may_send = from_model[bool]()
    may_create_links = from_model[bool]()
    channel_names = from_model[dict[int, str]]()
    group_names = from_model[dict[int, str]]()
    invites = from_model[list[Invite]]()
    batch_size = from_model[int]()
    sleep = from_model[Callable[[float], None]]()
    sent_options = from_model[InviteOptions | None]()
    ledger = from_model[dict[int, tuple[str, Invite]]]()
    clock = from_model[Callable[[], float]]()
    handled = from_model[list[Handled]]()

    @property
    def invitations_filter(self) -> InvitationFilter:
        """Which invitations the list shows (the filters above it set it)."""
        return self.model.invitations_filter

    @invitations_filter.setter
    def invitations_filter(self, chosen: InvitationFilter) -> None:
        self.model.invitations_filter = chosen

    forget_permissions = forwarded(InvitationsModel.forget_permissions)
    allowed_roles = forwarded(InvitationsModel.allowed_roles)
    allowed_channels = forwarded(InvitationsModel.allowed_channels)
    allowed_groups = forwarded(InvitationsModel.allowed_groups)
    check_options = forwarded(InvitationsModel.check_options)
    preview_frame = forwarded(InvitationsModel.preview_frame)
    results_frame = forwarded(InvitationsModel.results_frame)
    retry_failed = forwarded(InvitationsModel.retry_failed)
    fetch_invitations = forwarded(InvitationsModel.fetch_invitations)
    inviters = forwarded(InvitationsModel.inviters)
    invitations_frame = forwarded(InvitationsModel.invitations_frame)
    revoke_invitations = forwarded(InvitationsModel.revoke_invitations)
    resend_invitations = forwarded(InvitationsModel.resend_invitations)
    handled_frame = forwarded(InvitationsModel.handled_frame)
