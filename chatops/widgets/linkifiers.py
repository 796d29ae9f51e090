"""The Linkifiers panel: list, add, edit, reorder and delete linkifiers (spec 4.15), with a live
check of the pattern and URL template and a preview of what they link.

The checks run as the admin types: the pattern must compile with RE2 (the engine the server
uses), its named groups and the URL template's variables must be the same names, and a preview
shows each match in a sample text and in recent messages with the URL it becomes. Matching
follows the server's rules: a match must start at the beginning of the text or after a space or
one of ``' " ( , : <``, must not be followed by a letter, digit or underscore, and where two
linkifiers match overlapping text the one earlier in the order wins.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import ipywidgets as w
import pandas as pd
import re2
from uritemplate import URITemplate

from chatops import ApiError, Client
from chatops.linkifiers import LinkifierMatch, Matcher, re2_message
from chatops.types import Linkifier, Message

from ._base import Confirm, FieldError, Panel, Session, escape, frame

__all__ = ["Check", "Draft", "LinkifierMatch", "LinkifiersPanel", "Matcher"]

#: Length limits of the server's linkifier model.
MAX_PATTERN_LENGTH = 1000
MAX_URL_TEMPLATE_LENGTH = 1024
#: How many recent messages the preview scans unless told otherwise, and at most.
DEFAULT_SCAN = 100
MAX_SCAN = 1000
#: Preview rows shown at most, so that a pattern matching everything stays readable.
MAX_PREVIEW_ROWS = 200

SAMPLE_TEXT = (
    "Fixed in #1234, follow-up in #87 (see CVE-2024-3094).\n"
    "Deploy ticket OPS-42 is blocked on PR #99: https://example.org/notes"
)

LIST_COLUMNS = ["position", "pattern", "URL template", "id"]
PREVIEW_COLUMNS = ["where", "match", "groups", "URL", "applies"]
OVERLAP_COLUMNS = ["note", "winner", "winner pattern", "loser", "loser pattern", "text", "where"]


CheckKind = Literal["ok", "problem", "warning", "info"]

#: Said under the patterns: why a nested repeat such as ``(a+)+b`` is no danger here.
RE2_NOTE = (
    "The server runs linkifier patterns with RE2, which takes time linear in the length of the "
    "message whatever the pattern: nested repeats such as (a+)+b cannot make it hang, as they "
    "can in backtracking engines."
)
_MARKS: dict[str, str] = {"ok": "✓", "problem": "✗", "warning": "⚠", "info": "•"}


@dataclass(frozen=True)
class Check:
    """One line of the live check: ``kind`` is ok, problem, warning or info."""

    kind: CheckKind
    text: str

    @property
    def line(self) -> str:
        return f"{_MARKS[self.kind]} {self.text}"


@dataclass
class Draft:
    """What :meth:`LinkifiersPanel.analyse` found in a pattern and URL template."""

    pattern: str
    url_template: str
    pattern_problem: str = ""
    template_problem: str = ""
    groups: list[str] | None = None
    variables: list[str] | None = None
    unused_groups: list[str] = field(default_factory=list)
    unknown_variables: list[str] = field(default_factory=list)
    duplicate_of: int | None = None

    @property
    def mismatch(self) -> str:
        """The named groups and template variables that do not pair up, in words."""
        parts = []
        if self.unused_groups:
            parts.append(f"Groups missing from the URL template: {_names(self.unused_groups)}.")
        if self.unknown_variables:
            parts.append(f"Template variables no group provides: {_names(self.unknown_variables)}.")
        return " ".join(parts)

    @property
    def duplicate(self) -> str:
        if self.duplicate_of is None:
            return ""
        return f"Linkifier #{self.duplicate_of} already has this pattern and URL template."

    @property
    def previewable(self) -> bool:
        """Whether the pattern and template work together (a duplicate still previews)."""
        return not (self.pattern_problem or self.template_problem or self.mismatch)

    @property
    def problems(self) -> dict[str, str]:
        """What stops sending it, by the field to show it next to."""
        found: dict[str, str] = {}
        if self.pattern_problem or self.duplicate:
            found["pattern"] = self.pattern_problem or self.duplicate
        if self.template_problem or self.mismatch:
            found["url_template"] = self.template_problem or self.mismatch
        return found


@dataclass(frozen=True)
class _Ranked:
    position: int
    pattern: str
    matcher: Matcher


@dataclass(frozen=True)
class _Loss:
    winner: _Ranked
    loser: _Ranked
    winner_match: LinkifierMatch
    loser_match: LinkifierMatch


def _resolve(
    text: str, ranked: Sequence[_Ranked]
) -> tuple[list[tuple[_Ranked, LinkifierMatch]], list[_Loss]]:
    """What the server links in ``text``: earlier linkifiers take their matches first, and a
    later match overlapping a taken one is dropped. Returns the links and the dropped matches."""
    taken: list[tuple[_Ranked, LinkifierMatch]] = []
    losses: list[_Loss] = []
    for item in ranked:
        for m in item.matcher.find(text):
            winner = next(((r, t) for r, t in taken if m.start < t.end and t.start < m.end), None)
            if winner is None:
                taken.append((item, m))
            else:
                losses.append(_Loss(winner[0], item, winner[1], m))
    return taken, losses


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _names(names: Iterable[str]) -> str:
    return ", ".join(names)


class LinkifiersPanel(Panel):
    """Linkifiers of the organization: the list in the order they apply, a form to add or edit
    one with a live check and preview, move up / move down, and delete with confirmation.

    Example::

        panel = LinkifiersPanel(chatops.Client.from_zuliprc("~/.zuliprc"))
        panel                                    # in JupyterLab: shows the panel
        panel.add(r"OPS-(?P<num>[0-9]+)", "https://tracker.example.org/OPS-{num}")
        panel.move_up(panel.linkifiers[-1].id)

    Only organization administrators may change linkifiers; for others the panel is read-only
    (the list, checks and preview still work).
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
        self.root.add_class("chatops-linkifiers")

    # -- building ----------------------------------------------------------------------------
    def build(self) -> w.Widget:
        self.linkifiers: list[Linkifier] = []
        self.recent: list[Message] = []
        self.checks: list[Check] = []
        self.scan_summary = ""
        self._replacing_options = False

        self.list_table = self.table(
            "Linkifiers, in the order they apply (an earlier one wins where two overlap)",
            self.load_linkifiers,
            slug="list",
            empty="This organization has no linkifiers yet.",
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
        return [
            (self.save_button, pick),
            (self.delete_button, pick),
            (self.up_button, pick or first),
            (self.down_button, pick or last),
            (self.add_button, "" if picked == 0 else "Pick “New linkifier” to add one."),
        ]

    def missing_permission(self) -> str | None:
        if self.session.is_admin:
            return None
        role = self.session.role_name
        article = "an" if role[:1] in "aeiou" else "a"
        return (
            "Adding, editing, reordering and deleting linkifiers needs an organization "
            f"administrator; you are {article} {role}."
        )

    # -- lists -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fetch the linkifiers and recent messages again and redo the checks and preview."""
        self.list_table.refresh()
        self.scan_recent(int(self.scan_count.value))

    def load_linkifiers(self) -> pd.DataFrame:
        """Fetch the linkifiers in the server's order and update the picker."""
        self.linkifiers = list(self.client.realm.linkifiers())
        self._update_picker()
        self._show_analysis()
        return frame(
            (
                {"position": i, "pattern": lf.pattern, "URL template": lf.url_template, "id": lf.id}
                for i, lf in enumerate(self.linkifiers, start=1)
            ),
            LIST_COLUMNS,
        )

    def scan_recent(self, count: int = DEFAULT_SCAN) -> int:
        """Fetch the ``count`` newest messages (raw Markdown) for the preview; returns how many."""
        if not 1 <= count <= MAX_SCAN:
            raise FieldError("scan_count", f"Scan between 1 and {MAX_SCAN} messages.")
        page = self.client.messages.get(
            anchor="newest", num_before=count, num_after=0, apply_markdown=False
        )
        self.recent = list(page.messages)
        n = len(self.recent)
        self.scan_summary = (
            f"Scanned the {n} most recent message{'s' if n != 1 else ''} you can see "
            "(content as Markdown, and topics)."
            if n
            else "There are no messages to scan."
        )
        self.scan_info.value = f'<span class="chatops-muted">{escape(self.scan_summary)}</span>'
        self._show_analysis()
        return n

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

    # -- checks ------------------------------------------------------------------------------
    def analyse(self, pattern: str, url_template: str, *, editing: int = 0) -> Draft:
        """Check a pattern and URL template as the server would (both stripped first).

        ``editing`` is the id of the linkifier being edited (0 when adding): a linkifier is not
        a duplicate of itself.
        """
        pattern, url_template = pattern.strip(), url_template.strip()
        draft = Draft(pattern, url_template)
        if not pattern:
            draft.pattern_problem = "Enter a pattern."
        elif len(pattern) > MAX_PATTERN_LENGTH:
            draft.pattern_problem = (
                f"The pattern is {len(pattern)} characters long; at most "
                f"{MAX_PATTERN_LENGTH} are allowed."
            )
        else:
            try:
                draft.groups = Matcher(pattern, "/").group_names
            except re2.error as exc:
                draft.pattern_problem = (
                    f"The pattern does not compile with RE2: {re2_message(exc)}."
                )
        if not url_template:
            draft.template_problem = "Enter a URL template."
        elif len(url_template) > MAX_URL_TEMPLATE_LENGTH:
            draft.template_problem = (
                f"The URL template is {len(url_template)} characters long; at most "
                f"{MAX_URL_TEMPLATE_LENGTH} are allowed."
            )
        elif not url_template.startswith(("https://", "http://", "/")):
            draft.template_problem = "The URL template must start with https://, http:// or /."
        elif url_template.count("{") != url_template.count("}"):
            draft.template_problem = "The URL template has unbalanced { and }."
        else:
            try:
                draft.variables = list(URITemplate(url_template).variable_names)
            except Exception as exc:  # uritemplate raises several kinds for a bad expression
                draft.template_problem = f"The URL template is not valid RFC 6570: {exc}."
        if draft.groups is not None and draft.variables is not None:
            draft.unused_groups = [g for g in draft.groups if g not in draft.variables]
            draft.unknown_variables = [v for v in draft.variables if v not in draft.groups]
        for position, lf in enumerate(self.linkifiers, start=1):
            if lf.id != editing and (lf.pattern, lf.url_template) == (pattern, url_template):
                draft.duplicate_of = position
        return draft

    def check(self, pattern: str, url_template: str, *, editing: int = 0) -> list[Check]:
        """The live check of a pattern and URL template: one line per check, then the preview
        counts when everything is right."""
        if not pattern.strip() and not url_template.strip():
            return [
                Check("info", "Type a pattern and a URL template; they are checked as you type.")
            ]
        draft = self.analyse(pattern, url_template, editing=editing)
        lines: list[Check] = []
        if draft.pattern_problem:
            lines.append(Check("problem", draft.pattern_problem))
        else:
            groups = draft.groups or []
            named = f"named groups: {_names(groups)}" if groups else "no named groups"
            lines.append(Check("ok", f"The pattern compiles with RE2 ({named})."))
        if draft.template_problem:
            lines.append(Check("problem", draft.template_problem))
        else:
            variables = draft.variables or []
            listed = f"variables: {_names(variables)}" if variables else "no variables"
            lines.append(Check("ok", f"The URL template is valid RFC 6570 ({listed})."))
        if draft.groups is not None and draft.variables is not None:
            if draft.mismatch:
                lines.append(Check("problem", draft.mismatch))
            else:
                lines.append(
                    Check("ok", "The named groups and the template's variables are the same.")
                )
        if draft.duplicate_of is not None:
            lines.append(Check("problem", draft.duplicate))
        if draft.previewable:
            lines.append(self._preview_check(draft, editing))
        return lines

    def _preview_check(self, draft: Draft, editing: int) -> Check:
        rows = self._draft_rows(draft, editing, self.sample.value)
        in_sample = sum(1 for r in rows if r["where"] == "sample text")
        in_messages = len(rows) - in_sample
        lost = sum(1 for r in rows if r["applies"] != "yes")
        n = len(self.recent)
        scanned = f"{n} recent message{'s' if n != 1 else ''} scanned"
        if not rows:
            return Check("warning", f"No match in the sample text or the {scanned}.")
        text = (
            f"{in_sample} match{'es' if in_sample != 1 else ''} in the sample text, "
            f"{in_messages} in the {scanned}"
        )
        if lost:
            return Check(
                "warning", f"{text}; {lost} taken by an earlier linkifier (see the preview)."
            )
        return Check("ok", text + ".")

    def update_checks(self) -> list[Check]:
        """Run the live check on the form and show it with the preview."""
        editing = self._picked()
        self.checks = self.check(self.pattern.value, self.url_template.value, editing=editing)
        self.check_html.value = "".join(
            f'<div class="chatops-check chatops-check-{c.kind} chatops-linkifiers-check-{c.kind}">'
            f"{escape(c.line)}</div>"
            for c in self.checks
        )
        self.preview_table.show(self.load_preview())
        return self.checks

    # -- preview and overlaps ----------------------------------------------------------------
    def _sources(self, sample: str) -> list[tuple[str, str]]:
        sources = [("sample text", sample)]
        for m in self.recent:
            sources.append((f"message {m.id}", m.content))
            if m.topic:
                sources.append((f"topic of message {m.id}", m.topic))
        return sources

    def _ranked(self) -> list[_Ranked]:
        return [r for r in self._compiled() if isinstance(r, _Ranked)]

    def _compiled(self) -> list[_Ranked | str]:
        """The saved linkifiers compiled with RE2, or why one does not compile."""
        out: list[_Ranked | str] = []
        for position, lf in enumerate(self.linkifiers, start=1):
            try:
                out.append(_Ranked(position, lf.pattern, Matcher(lf.pattern, lf.url_template)))
            except re2.error as exc:
                out.append(f"#{position} `{lf.pattern}` ({re2_message(exc)})")
        return out

    def _draft_rows(self, draft: Draft, editing: int, sample: str) -> list[dict[str, Any]]:
        if not draft.previewable:
            return []
        # Adding puts the new linkifier last; editing keeps it where it is.
        ids = [lf.id for lf in self.linkifiers]
        position = ids.index(editing) + 1 if editing in ids else len(ids) + 1
        mine = _Ranked(position, draft.pattern, Matcher(draft.pattern, draft.url_template))
        ranked = [r for r in self._ranked() if r.position < position] + [mine]
        rows: list[dict[str, Any]] = []
        for where, text in self._sources(sample):
            taken, losses = _resolve(text, ranked)
            found = [(m, "yes") for item, m in taken if item is mine]
            for loss in losses:
                if loss.loser is mine:
                    winner = f"no: #{loss.winner.position} `{_short(loss.winner.pattern)}` wins"
                    found.append((loss.loser_match, winner))
            rows += [
                self._preview_row(where, m, applies)
                for m, applies in sorted(found, key=lambda pair: pair[0].start)
            ]
        return rows

    @staticmethod
    def _preview_row(where: str, m: LinkifierMatch, applies: str) -> dict[str, Any]:
        groups = ", ".join(f"{k}={v}" for k, v in m.groups.items())
        return {"where": where, "match": m.text, "groups": groups, "URL": m.url, "applies": applies}

    def preview(
        self, pattern: str, url_template: str, sample: str, *, editing: int = 0
    ) -> pd.DataFrame:
        """Each match of the pattern in ``sample`` and the recent messages, with its URL and
        whether it applies (an earlier linkifier may take the same text)."""
        draft = self.analyse(pattern, url_template, editing=editing)
        rows = self._draft_rows(draft, editing, sample)
        return frame(rows[:MAX_PREVIEW_ROWS], PREVIEW_COLUMNS)

    def overlaps(self, sample: str) -> pd.DataFrame:
        """For each pair of saved linkifiers whose matches overlap on ``sample`` or the recent
        messages, which one wins (the earlier one) and an example of the text."""
        ranked = self._ranked()
        seen: dict[tuple[int, int], dict[str, Any]] = {}
        for where, text in self._sources(sample):
            for loss in _resolve(text, ranked)[1]:
                key = (loss.winner.position, loss.loser.position)
                if key in seen:
                    continue
                start = min(loss.winner_match.start, loss.loser_match.start)
                end = max(loss.winner_match.end, loss.loser_match.end)
                example = text[start:end]
                seen[key] = {
                    "note": (
                        f"#{loss.winner.position} `{loss.winner.pattern}` wins over "
                        f"#{loss.loser.position} `{loss.loser.pattern}` on '{example}'"
                    ),
                    "winner": loss.winner.position,
                    "winner pattern": loss.winner.pattern,
                    "loser": loss.loser.position,
                    "loser pattern": loss.loser.pattern,
                    "text": example,
                    "where": where,
                }
        return frame((seen[k] for k in sorted(seen)), OVERLAP_COLUMNS)

    def _show_analysis(self) -> None:
        self.update_checks()
        self.overlap_table.show(self.load_overlaps())
        # A pattern RE2 refuses cannot be tried here; say so rather than leave it out silently.
        left_out = [r for r in self._compiled() if isinstance(r, str)]
        self.overlap_info.value = (
            '<span class="chatops-muted">Not tried, RE2 cannot compile them: '
            f"{escape('; '.join(left_out))}.</span>"
            if left_out
            else ""
        )

    # -- actions -----------------------------------------------------------------------------
    def _require_valid(self, pattern: str, url_template: str, editing: int) -> Draft:
        draft = self.analyse(pattern, url_template, editing=editing)
        found = draft.problems
        if found:
            for name, message in found.items():
                self.fields[name].error(message)
            first = next(iter(found))
            raise FieldError(first, found[first])
        return draft

    def _send(self, request: Any) -> Any:
        """Run a write; field errors the server names land next to those fields too."""
        try:
            return request()
        except ApiError as exc:
            errors = exc.extra.get("errors")
            if isinstance(errors, dict):
                for name, messages in errors.items():
                    if name in ("pattern", "url_template") and messages:
                        self.fields[name].error(f"The server refused: {messages[0]}")
            raise

    def _require_admin(self) -> None:
        if self.read_only_reason:
            raise FieldError("linkifier", self.read_only_reason)

    def add(self, pattern: str, url_template: str) -> int:
        """Add a linkifier at the end of the order; returns its id."""
        self._require_admin()
        draft = self._require_valid(pattern, url_template, 0)
        pattern, url_template = draft.pattern, draft.url_template
        new_id = int(self._send(lambda: self.client.realm.add_linkifier(pattern, url_template)))
        self.list_table.refresh()
        self.picker.value = new_id
        self.status.ok(
            f"Added linkifier #{len(self.linkifiers)} `{pattern}` → {url_template} (id {new_id})."
        )
        return new_id

    def save(self, filter_id: int, pattern: str, url_template: str) -> None:
        """Replace the pattern and URL template of linkifier ``filter_id``."""
        self._require_admin()
        position = self._position(filter_id, "save")
        draft = self._require_valid(pattern, url_template, filter_id)
        pattern, url_template = draft.pattern, draft.url_template
        self._send(
            lambda: self.client.realm.update_linkifier(
                filter_id, pattern=pattern, url_template=url_template
            )
        )
        self.list_table.refresh()
        self.status.ok(f"Saved linkifier #{position}: `{pattern}` → {url_template}.")

    def move_up(self, filter_id: int) -> list[int]:
        """Move linkifier ``filter_id`` one place earlier; returns the new order of ids."""
        return self.move(filter_id, -1)

    def move_down(self, filter_id: int) -> list[int]:
        """Move linkifier ``filter_id`` one place later; returns the new order of ids."""
        return self.move(filter_id, 1)

    def move(self, filter_id: int, steps: int) -> list[int]:
        """Move linkifier ``filter_id`` by ``steps`` places and send the full new order."""
        self._require_admin()
        self._position(filter_id, "move")
        # The order sent must name every linkifier, so start from the server's current one.
        self.list_table.refresh()
        ids = [lf.id for lf in self.linkifiers]
        if filter_id not in ids:
            raise FieldError("linkifier", "That linkifier no longer exists; the list is updated.")
        old = ids.index(filter_id)
        new = max(0, min(len(ids) - 1, old + steps))
        if new == old:
            where = "first" if steps < 0 else "last"
            raise FieldError("linkifier", f"Linkifier #{old + 1} is already {where}.")
        ids.insert(new, ids.pop(old))
        self.client.realm.reorder_linkifiers(ids)
        self.list_table.refresh()
        self.picker.value = filter_id
        self.status.ok(f"Moved linkifier #{old + 1} to #{new + 1}.")
        return ids

    def ask_delete(self, filter_id: int) -> None:
        """Ask to confirm deleting linkifier ``filter_id``; Yes deletes it, Cancel does nothing."""
        self._require_admin()
        position = self._position(filter_id, "delete")
        lf = self.linkifiers[position - 1]
        self.confirm.ask(
            f"Delete linkifier #{position} `{_short(lf.pattern)}` → {_short(lf.url_template)}?",
            lambda: self.guard(lambda: self.delete(filter_id)),
            yes="Delete",
        )
        self.status.info("Confirm or cancel the deletion below the buttons.")

    def delete(self, filter_id: int) -> None:
        """Delete linkifier ``filter_id`` (no confirmation; the button asks first)."""
        self._require_admin()
        position = self._position(filter_id, "delete")
        pattern = self.linkifiers[position - 1].pattern
        self.client.realm.remove_linkifier(filter_id)
        self.picker.value = 0
        self.list_table.refresh()
        self.status.ok(f"Deleted linkifier #{position} `{pattern}`.")

    # -- form helpers ------------------------------------------------------------------------
    def pick(self, filter_id: int) -> None:
        """Select linkifier ``filter_id`` (0 for a new one) and fill the form with it."""
        self.picker.value = filter_id

    def _picked(self) -> int:
        return int(self.picker.value or 0)

    def _position(self, filter_id: int, verb: str) -> int:
        for position, lf in enumerate(self.linkifiers, start=1):
            if lf.id == filter_id:
                return position
        if not filter_id:
            raise FieldError("linkifier", f"Pick a linkifier to {verb}.")
        raise FieldError("linkifier", f"There is no linkifier with id {filter_id}.")

    def _update_picker(self) -> None:
        current = self._picked()
        options: list[tuple[str, int]] = [("New linkifier", 0)]
        for position, lf in enumerate(self.linkifiers, start=1):
            label = f"#{position}  {_short(lf.pattern, 50)}  →  {_short(lf.url_template, 60)}"
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

    def _on_draft(self, _change: dict[str, Any]) -> None:
        self.pattern.clear()
        self.url_template.clear()
        self.guard(self.update_checks)

    def _on_sample(self, _change: dict[str, Any]) -> None:
        self.guard(self._show_analysis)
