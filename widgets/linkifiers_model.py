"""Linkifiers without widgets (spec 4.15): the checks the server makes of a pattern and URL
template (RE2, RFC 6570, the same names), the preview of what a draft links in a sample and in
recent messages, overlaps between saved linkifiers, and add, save, reorder, delete.
:class:`~chatops.widgets.linkifiers.LinkifiersPanel` lays it out.

    model = LinkifiersModel(chatops.Client.from_zuliprc("~/.zuliprc"))
    model.fetch()
    model.check(r"OPS-(?P<num>[0-9]+)", "https://tracker.example.org/OPS-{num}")
    model.add(r"OPS-(?P<num>[0-9]+)", "https://tracker.example.org/OPS-{num}")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import re2
from uritemplate import URITemplate

from chatops import ApiError, Client
from chatops.changes.kinds import (
    AddLinkifier,
    DeleteLinkifier,
    ReorderLinkifiers,
    UpdateLinkifier,
)
from chatops.linkify import LinkifierMatch, Matcher, re2_message
from chatops.types import Linkifier, Message

from ._model import FieldError, Reporter, Said, Session, frame
from .linkifier_checks import (
    DEFAULT_SCAN,
    LIST_COLUMNS,
    MAX_PATTERN_LENGTH,
    MAX_PREVIEW_ROWS,
    MAX_SCAN,
    MAX_URL_TEMPLATE_LENGTH,
    OVERLAP_COLUMNS,
    PREVIEW_COLUMNS,
    SAMPLE_TEXT,
    Check,
    Draft,
    Ranked,
    resolve,
    short,
    spelled,
)

__all__ = ["LinkifiersModel"]


class LinkifiersModel:
    """The linkifiers of an organization as one account sees and changes them.

    ``status`` receives each outcome in words. ``changed`` runs after the server's linkifiers
    changed (the panel reloads its list there; alone, the model fetches again); ``selected``
    is told which linkifier is worked on after an action (0: a new one); ``field_error`` hears
    of each problem of the pattern or URL template, also those the server names; ``scanned``
    runs after :meth:`scan_recent`. The preview tries :attr:`sample_text`.
    """

    def __init__(
        self,
        client: Client | Session,
        *,
        status: Reporter | None = None,
        changed: Callable[[], None] | None = None,
        selected: Callable[[int], None] | None = None,
        field_error: Callable[[str, str], None] | None = None,
        scanned: Callable[[], None] | None = None,
    ) -> None:
        self.session = client if isinstance(client, Session) else Session(client)
        self.client = self.session.client
        self.status: Reporter = status if status is not None else Said()
        self.changed: Callable[[], None] = changed if changed is not None else self.fetch
        self._selected: Callable[[int], None] = selected if selected is not None else _nothing
        self._field_error: Callable[[str, str], None] = (
            field_error if field_error is not None else _nothing
        )
        self._scanned: Callable[[], None] = scanned if scanned is not None else _nothing
        self.linkifiers: list[Linkifier] = []
        self.recent: list[Message] = []
        #: the last live check, one line each
        self.checks: list[Check] = []
        self.scan_summary = ""
        self.sample_text = SAMPLE_TEXT
        self._why_not: list[str | None] = []

    def missing_permission(self) -> str | None:
        if self.session.is_admin:
            return None
        role = self.session.role_name
        article = "an" if role[:1] in "aeiou" else "a"
        return (
            "Adding, editing, reordering and deleting linkifiers needs an organization "
            f"administrator; you are {article} {role}."
        )

    def why_not(self) -> str | None:
        """Why this account may not change linkifiers (asked once), or None."""
        if not self._why_not:
            self._why_not.append(self.missing_permission())
        return self._why_not[0]

    # -- lists ---------------------------------------------------------------------------------
    def fetch(self) -> None:
        """Fetch the linkifiers in the server's order."""
        self.linkifiers = list(self.client.realm.linkifiers())

    def linkifiers_frame(self) -> pd.DataFrame:
        """The linkifiers in the order they apply."""
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
        self._scanned()
        return n

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
            named = f"named groups: {spelled(groups)}" if groups else "no named groups"
            lines.append(Check("ok", f"The pattern compiles with RE2 ({named})."))
        if draft.template_problem:
            lines.append(Check("problem", draft.template_problem))
        else:
            variables = draft.variables or []
            listed = f"variables: {spelled(variables)}" if variables else "no variables"
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
        rows = self._draft_rows(draft, editing, self.sample_text)
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

    # -- preview and overlaps ----------------------------------------------------------------
    def _sources(self, sample: str) -> list[tuple[str, str]]:
        sources = [("sample text", sample)]
        for m in self.recent:
            sources.append((f"message {m.id}", m.content))
            if m.topic:
                sources.append((f"topic of message {m.id}", m.topic))
        return sources

    def _ranked(self) -> list[Ranked]:
        return [r for r in self._compiled() if isinstance(r, Ranked)]

    def _compiled(self) -> list[Ranked | str]:
        """The saved linkifiers compiled with RE2, or why one does not compile."""
        out: list[Ranked | str] = []
        for position, lf in enumerate(self.linkifiers, start=1):
            try:
                out.append(Ranked(position, lf.pattern, Matcher(lf.pattern, lf.url_template)))
            except re2.error as exc:
                out.append(f"#{position} `{lf.pattern}` ({re2_message(exc)})")
        return out

    def _draft_rows(self, draft: Draft, editing: int, sample: str) -> list[dict[str, Any]]:
        if not draft.previewable:
            return []
        # Adding puts the new linkifier last; editing keeps it where it is.
        ids = [lf.id for lf in self.linkifiers]
        position = ids.index(editing) + 1 if editing in ids else len(ids) + 1
        mine = Ranked(position, draft.pattern, Matcher(draft.pattern, draft.url_template))
        ranked = [r for r in self._ranked() if r.position < position] + [mine]
        rows: list[dict[str, Any]] = []
        for where, text in self._sources(sample):
            taken, losses = resolve(text, ranked)
            found = [(m, "yes") for item, m in taken if item is mine]
            for loss in losses:
                if loss.loser is mine:
                    winner = f"no: #{loss.winner.position} `{short(loss.winner.pattern)}` wins"
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
            for loss in resolve(text, ranked)[1]:
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

    def not_compiled(self) -> list[str]:
        """The saved linkifiers RE2 cannot compile, in words."""
        return [r for r in self._compiled() if isinstance(r, str)]

    # -- actions -----------------------------------------------------------------------------
    def _require_valid(self, pattern: str, url_template: str, editing: int) -> Draft:
        draft = self.analyse(pattern, url_template, editing=editing)
        found = draft.problems
        if found:
            for name, message in found.items():
                self._field_error(name, message)
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
                        self._field_error(name, f"The server refused: {messages[0]}")
            raise

    def _require_admin(self) -> None:
        reason = self.why_not()
        if reason:
            raise FieldError("linkifier", reason)

    def add(self, pattern: str, url_template: str) -> int:
        """Add a linkifier at the end of the order; returns its id."""
        self._require_admin()
        draft = self._require_valid(pattern, url_template, 0)
        pattern, url_template = draft.pattern, draft.url_template
        change = AddLinkifier(pattern=pattern, url_template=url_template)
        made = self._send(lambda: self.session.changes.make(change, {"subject": pattern}))
        new_id = int(made["id"])
        self.changed()
        self._selected(new_id)
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
        change = UpdateLinkifier(filter_id=filter_id, pattern=pattern, url_template=url_template)
        self._send(lambda: self.session.changes.make(change, {"subject": pattern}))
        self.changed()
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
        self.changed()
        ids = [lf.id for lf in self.linkifiers]
        if filter_id not in ids:
            raise FieldError("linkifier", "That linkifier no longer exists; the list is updated.")
        old = ids.index(filter_id)
        new = max(0, min(len(ids) - 1, old + steps))
        if new == old:
            where = "first" if steps < 0 else "last"
            raise FieldError("linkifier", f"Linkifier #{old + 1} is already {where}.")
        ids.insert(new, ids.pop(old))
        self.session.changes.make(
            ReorderLinkifiers(ordered_linkifier_ids=ids), {"subject": "linkifiers"}
        )
        self.changed()
        self._selected(filter_id)
        self.status.ok(f"Moved linkifier #{old + 1} to #{new + 1}.")
        return ids

    def delete_question(self, filter_id: int) -> str:
        """Check that linkifier ``filter_id`` can be deleted; returns the question to confirm."""
        self._require_admin()
        position = self._position(filter_id, "delete")
        lf = self.linkifiers[position - 1]
        return f"Delete linkifier #{position} `{short(lf.pattern)}` → {short(lf.url_template)}?"

    def delete(self, filter_id: int) -> None:
        """Delete linkifier ``filter_id`` (no confirmation; the button asks first)."""
        self._require_admin()
        position = self._position(filter_id, "delete")
        pattern = self.linkifiers[position - 1].pattern
        self.session.changes.make(DeleteLinkifier(filter_id=filter_id), {"subject": pattern})
        self._selected(0)
        self.changed()
        self.status.ok(f"Deleted linkifier #{position} `{pattern}`.")

    def _position(self, filter_id: int, verb: str) -> int:
        for position, lf in enumerate(self.linkifiers, start=1):
            if lf.id == filter_id:
                return position
        if not filter_id:
            raise FieldError("linkifier", f"Pick a linkifier to {verb}.")
        raise FieldError("linkifier", f"There is no linkifier with id {filter_id}.")


def _nothing(*_args: object) -> None:
    """What the model tells when no panel listens."""
