"""The Linkifiers panel: list, add, edit, reorder and delete linkifiers (spec 4.15), with a live
check of the pattern and URL template and a preview of what they link. The logic is
:class:`~chatops.widgets.linkifiers_model.LinkifiersModel`; this module lays it out and binds it.

The checks run as the admin types: the pattern must compile with RE2 (the engine the server
uses), its named groups and the URL template's variables must be the same names, and a preview
shows each match in a sample text and in recent messages with the URL it becomes. Matching
follows the server's rules: a match must start at the beginning of the text or after a space or
one of ``' " ( , : <``, must not be followed by a letter, digit or underscore, and where two
linkifiers match overlapping text the one earlier in the order wins.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd

from chatops import Client
from chatops.linkify import LinkifierMatch, Matcher
from chatops.types import Linkifier, Message

from ._base import Confirm, Panel, Session, escape, forwarded, from_model
from ._controls import code_cell
from .linkifier_checks import (
    DEFAULT_SCAN,
    MAX_PATTERN_LENGTH,
    MAX_SCAN,
    MAX_URL_TEMPLATE_LENGTH,
    RE2_NOTE,
    SAMPLE_TEXT,
    Check,
    Draft,
    short,
)
from .linkifiers_model import LinkifiersModel

__all__ = ["Check", "Draft", "LinkifierMatch", "LinkifiersModel", "LinkifiersPanel", "Matcher"]


class LinkifiersPanel(Panel):
    """Linkifiers of the organization: the list in the order they apply, a form to add or edit
    one with a live check and preview, move up / move down, and delete with confirmation.

    Example::

        panel = LinkifiersPanel(chatops.Client.from_zuliprc("~/.zuliprc"))
        panel                                    # in JupyterLab: shows the panel
        panel.add(r"OPS-(?P<num>[0-9]+)", "https://tracker.example.org/OPS-{num}")
        panel.move_up(panel.linkifiers[-1].id)

    Only organization administrators may change linkifiers; for others the panel is read-only
    (the list, checks and preview still work). The logic is :attr:`model`.
    """

    title = "Linkifiers"
    slug = "linkifiers"

    def __init__(
        self,
        client: Client | Session,
        *,
        background: bool | None = None,
        export_dir: str | Path = "exports",
    ) -> None:
        super().__init__(client, background=background, export_dir=export_dir)
        self._replacing_options = False
        self.model = LinkifiersModel(
            self.session,
            status=self.status,
            changed=self._reload,
            selected=self.pick,
            field_error=self._field_error,
            scanned=self._shown_scan,
        )
        self.root.add_class("chatops-linkifiers")

    # the model's state, as the panel shows it
    linkifiers = from_model[list[Linkifier]]()
    recent = from_model[list[Message]]()
    checks = from_model[list[Check]]()
    scan_summary = from_model[str]()
    sample_text = from_model[str]()

    def _shown_scan(self) -> None:
        self.scan_info.value = f'<span class="chatops-muted">{escape(self.scan_summary)}</span>'
        self._show_analysis()

    def _reload(self) -> None:
        self.list_table.refresh()

    def _field_error(self, name: str, message: str) -> None:
        self.fields[name].error(message)

    def missing_permission(self) -> str | None:
        return self.model.missing_permission()

    # -- building ----------------------------------------------------------------------------
    def build(self) -> w.Widget:
        self._build_fields()
        self._build_actions()
        self._name_parts()
        self._wire()
        return self._layout()

    def _build_fields(self) -> None:
        self.list_table = self.table(
            "Linkifiers, in the order they apply (an earlier one wins where two overlap)",
            self.load_linkifiers,
            slug="list",
            empty="This organization has no linkifiers yet.",
            cells={"pattern": code_cell, "URL template": code_cell},
        )
        self.picker = self.field(
            "linkifier",
            w.Dropdown(options=[("New linkifier", 0)], value=0, layout=w.Layout(width="640px")),
            label="Linkifier",
            hint="Pick one to edit, move or delete it; “New linkifier” to add one.",
        )
        self.watch(self.picker.input)
        self.pattern = self.field(
            "pattern",
            w.Text(
                placeholder=r"#(?P<id>[0-9]+)",
                continuous_update=True,
                layout=w.Layout(width="640px"),
            ),
            label="Pattern",
            hint=(
                "A regular expression in RE2 syntax; name each part the URL needs with "
                f"(?P<name>...). At most {MAX_PATTERN_LENGTH} characters."
            ),
        )
        self.re2_note = w.HTML(value=f'<div class="chatops-muted">{escape(RE2_NOTE)}</div>')
        self.re2_note.add_class("chatops-linkifiers-re2-note")
        self.url_template = self.field(
            "url_template",
            w.Text(
                placeholder="https://github.com/org/repo/issues/{id}",
                continuous_update=True,
                layout=w.Layout(width="640px"),
            ),
            label="URL template",
            hint=(
                "An RFC 6570 template starting with https://, http:// or /; put each named "
                f"group in as {{name}}. At most {MAX_URL_TEMPLATE_LENGTH} characters."
            ),
        )
        self.sample = self.field(
            "sample",
            w.Textarea(
                value=SAMPLE_TEXT,
                continuous_update=True,
                layout=w.Layout(width="640px", height="70px"),
            ),
            label="Sample text",
            hint="Text to try the pattern on; recent messages are tried as well.",
        )
        self.scan_count = self.field(
            "scan_count",
            w.BoundedIntText(
                value=DEFAULT_SCAN, min=1, max=MAX_SCAN, layout=w.Layout(width="90px")
            ),
            label="Recent messages",
            hint=f"How many of the newest messages to try (1 to {MAX_SCAN}).",
        )
        self.scan_button = w.Button(description="Scan recent messages", icon="search")
        self.scan_info = w.HTML(value="")
        self.check_html = w.HTML(value="")
        self.overlap_info = w.HTML(value="")

    def _build_actions(self) -> None:
        """The buttons that change linkifiers, the confirmation, the preview and overlaps."""
        self.add_button = self.action_button("Add linkifier", icon="plus", style="success")
        self.save_button = self.action_button("Save changes", icon="save", style="primary")
        self.up_button = self.action_button("Move up", icon="arrow-up")
        self.down_button = self.action_button("Move down", icon="arrow-down")
        self.delete_button = self.action_button("Delete", icon="trash", style="danger")
        self.confirm = Confirm()
        self.actions += [self.confirm.yes]

        self.preview_table = self.table(
            "Preview: what the pattern links in the sample text and recent messages",
            lambda: self._rescan_then(self.load_preview),
            slug="preview",
            empty="No match yet. Fix the problems above or try another sample text.",
        )
        self.overlap_table = self.table(
            "Overlaps: which linkifier wins where two match the same text",
            lambda: self._rescan_then(self.load_overlaps, linkifiers=True),
            slug="overlaps",
            empty="No two linkifiers overlap on the sample text or the recent messages scanned.",
        )

    def _name_parts(self) -> None:
        for part, name in [
            (self.picker.input, "picker"),
            (self.pattern.input, "pattern"),
            (self.url_template.input, "url-template"),
            (self.sample.input, "sample"),
            (self.scan_count.input, "scan-count"),
            (self.scan_button, "scan"),
            (self.scan_info, "scan-info"),
            (self.check_html, "checks"),
            (self.add_button, "add"),
            (self.save_button, "save"),
            (self.up_button, "move-up"),
            (self.down_button, "move-down"),
            (self.delete_button, "delete"),
            (self.confirm.widget, "confirm"),
            (self.confirm.yes, "confirm-yes"),
            (self.confirm.no, "confirm-no"),
            (self.list_table.widget, "list"),
            (self.preview_table.widget, "preview"),
            (self.overlap_table.widget, "overlaps"),
            (self.overlap_info, "overlaps-info"),
        ]:
            part.add_class(f"chatops-linkifiers-{name}")

    def _wire(self) -> None:
        self.picker.input.observe(self._on_pick, "value")
        for draft_field in (self.pattern, self.url_template):
            draft_field.input.observe(self._on_draft, "value")
        self.sample.input.observe(self._on_sample, "value")
        self.on_click(self.scan_button, lambda: self.scan_recent(int(self.scan_count.value)))
        self.on_click(
            self.add_button, lambda: self.add(self.pattern.value, self.url_template.value)
        )
        self.on_click(
            self.save_button,
            lambda: self.save(self._picked(), self.pattern.value, self.url_template.value),
        )
        self.on_click(self.up_button, lambda: self.move_up(self._picked()))
        self.on_click(self.down_button, lambda: self.move_down(self._picked()))
        self.on_click(self.delete_button, lambda: self.ask_delete(self._picked()))

    def _layout(self) -> w.Widget:
        form = w.VBox(
            [
                w.HTML(value='<div class="chatops-section">Add or edit a linkifier</div>'),
                self.picker.box,
                self.pattern.box,
                self.re2_note,
                self.url_template.box,
                self.sample.box,
                w.HBox([self.scan_count.box, self.scan_button]),
                self.scan_info,
                self.check_html,
                w.HBox(
                    [
                        self.add_button,
                        self.save_button,
                        self.up_button,
                        self.down_button,
                        self.delete_button,
                    ]
                ),
                self.confirm.widget,
            ]
        )
        return self.columns(
            [self.list_table.widget, self.overlap_table.widget, self.overlap_info],
            [form, self.preview_table.widget],
        )

    def control_reasons(self) -> list[tuple[w.DOMWidget, str]]:
        """Save, move and delete need a linkifier picked; moves need room to move."""
        picked = self._picked()
        ids = [lf.id for lf in self.linkifiers]
        pick = "" if picked in ids else "Pick a linkifier in the list first."
        first = "It is already the first linkifier." if ids and picked == ids[0] else ""
        last = "It is already the last linkifier." if ids and picked == ids[-1] else ""
        # a pattern or template the live check refuses is not sent: the first problem says why
        wrong = next((c.text for c in self.checks if c.kind == "problem"), "")
        new = "" if picked == 0 else "Pick “New linkifier” to add one."
        return [
            (self.save_button, pick or wrong),
            (self.delete_button, pick),
            (self.up_button, pick or first),
            (self.down_button, pick or last),
            (self.add_button, new or wrong),
        ]

    # -- lists -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fetch the linkifiers and recent messages again and redo the checks and preview."""
        self.list_table.refresh()
        self.scan_recent(int(self.scan_count.value))

    def load_linkifiers(self) -> pd.DataFrame:
        """Fetch the linkifiers in the server's order and update the picker."""
        self.fetch()
        self._update_picker()
        self._show_analysis()
        return self.linkifiers_frame()

    def _rescan_then(
        self, load: Callable[[], pd.DataFrame], *, linkifiers: bool = False
    ) -> pd.DataFrame:
        # A table's Refresh fetches what it is made of again before recomputing it.
        if linkifiers:
            self.list_table.refresh()
        self.scan_recent(int(self.scan_count.value))
        return load()

    def load_preview(self) -> pd.DataFrame:
        """The preview table of the pattern and URL template in the form."""
        return self.preview(
            self.pattern.value, self.url_template.value, self.sample.value, editing=self._picked()
        )

    def load_overlaps(self) -> pd.DataFrame:
        """The overlaps table of the saved linkifiers."""
        return self.overlaps(self.sample.value)

    def update_checks(self) -> list[Check]:
        """Run the live check on the form and show it with the preview."""
        editing = self._picked()
        pattern, template = str(self.pattern.value), str(self.url_template.value)
        self.model.checks = self.check(pattern, template, editing=editing)
        # each problem beside its field too, not only in the check list under the form
        problems = self.model.analyse(pattern, template, editing=editing).problems
        for name, fld in (("pattern", self.pattern), ("url_template", self.url_template)):
            if name in problems and str(fld.value).strip():  # not before it is typed in
                fld.error(problems[name])
            else:
                fld.clear()
        self.check_html.value = "".join(
            f'<div class="chatops-check chatops-check-{c.kind} chatops-linkifiers-check-{c.kind}">'
            f"{escape(c.line)}</div>"
            for c in self.checks
        )
        self.preview_table.show(self.load_preview())
        return self.checks

    def _show_analysis(self) -> None:
        self.update_checks()
        self.overlap_table.show(self.load_overlaps())
        # A pattern RE2 refuses cannot be tried here; say so rather than leave it out silently.
        left_out = self.not_compiled()
        self.overlap_info.value = (
            '<span class="chatops-muted">Not tried, RE2 cannot compile them: '
            f"{escape('; '.join(left_out))}.</span>"
            if left_out
            else ""
        )

    def ask_delete(self, filter_id: int) -> None:
        """Ask to confirm deleting linkifier ``filter_id``; Yes deletes it, Cancel does nothing."""
        self.confirm.ask(
            self.model.delete_question(filter_id),
            lambda: self.guard(lambda: self.delete(filter_id)),
            yes="Delete",
        )
        self.status.info("Confirm or cancel the deletion below the buttons.")

    # -- the model's actions and checks, as they are ---------------------------------------------
    fetch = forwarded(LinkifiersModel.fetch)
    why_not = forwarded(LinkifiersModel.why_not)
    linkifiers_frame = forwarded(LinkifiersModel.linkifiers_frame)
    scan_recent = forwarded(LinkifiersModel.scan_recent)
    analyse = forwarded(LinkifiersModel.analyse)
    check = forwarded(LinkifiersModel.check)
    preview = forwarded(LinkifiersModel.preview)
    overlaps = forwarded(LinkifiersModel.overlaps)
    not_compiled = forwarded(LinkifiersModel.not_compiled)
    add = forwarded(LinkifiersModel.add)
    save = forwarded(LinkifiersModel.save)
    move = forwarded(LinkifiersModel.move)
    move_up = forwarded(LinkifiersModel.move_up)
    move_down = forwarded(LinkifiersModel.move_down)
    delete = forwarded(LinkifiersModel.delete)

    # -- form helpers ------------------------------------------------------------------------
    def pick(self, filter_id: int) -> None:
        """Select linkifier ``filter_id`` (0 for a new one) and fill the form with it."""
        self.picker.value = filter_id

    def _picked(self) -> int:
        return int(self.picker.value or 0)

    def _update_picker(self) -> None:
        current = self._picked()
        options: list[tuple[str, int]] = [("New linkifier", 0)]
        for position, lf in enumerate(self.linkifiers, start=1):
            label = f"#{position}  {short(lf.pattern, 50)}  →  {short(lf.url_template, 60)}"
            options.append((label, lf.id))
        kept = current in {value for _label, value in options}
        # New options reset a Dropdown's value; that is no pick by the admin, so the form stays.
        self._replacing_options = True
        try:
            self.picker.input.options = options
            self.picker.input.value = current if kept else 0
        finally:
            self._replacing_options = False
        if not kept:
            self._fill(None)

    def _fill(self, lf: Linkifier | None) -> None:
        self.pattern.value = lf.pattern if lf is not None else ""
        self.url_template.value = lf.url_template if lf is not None else ""

    def _on_pick(self, change: dict[str, Any]) -> None:
        if self._replacing_options or change["old"] == change["new"]:
            return
        filter_id = int(change["new"] or 0)
        self._fill(next((x for x in self.linkifiers if x.id == filter_id), None))
        self.guard(self.update_checks)
        self.update_controls()

    def _on_draft(self, _change: dict[str, Any]) -> None:
        self.pattern.clear()
        self.url_template.clear()
        self.guard(self.update_checks)
        self.update_controls()

    def _on_sample(self, change: dict[str, Any]) -> None:
        self.model.sample_text = str(change["new"])
        self.guard(self._show_analysis)
