"""Helpers every audit shares; no audit owns them.

- :func:`api` builds the typed call of a finding and names its placeholders;
- :func:`finding` builds a :class:`Finding`;
- :func:`summary` builds an :class:`AuditSummary`;
- :func:`utc` reads an audit's ``now``; :func:`recent_messages` reads history back to a time;
  :func:`newest_messages` reads the newest page of a narrow;
- :func:`group_members` resolves a user group to its members, subgroups included.

Each audit is three steps over these: ``fetch`` (every request, into a dataclass of what was
read), ``judge`` (pure: what was read and the options in, judged records out) and ``conclude``
(the judged records as findings, tables and a summary).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec
import pandas as pd

from .._base_client import NOT_GIVEN, NotGiven
from ..changes import Change
from ._history import history_until
from ._result import ApiCall, AuditSummary, Finding, Method, Severity

if TYPE_CHECKING:
    from .._client import Client
    from ..resources.messages import Narrow
    from ..types import Message, UserGroup

__all__ = [
    "DEFAULT_MAX_MESSAGES",
    "Fill",
    "api",
    "crossed",
    "fill",
    "finding",
    "group_members",
    "newest_messages",
    "recent_messages",
    "summary",
    "utc",
]

#: History fetched at most, newest first; the summary says when the window was cut short.
DEFAULT_MAX_MESSAGES = 50_000
_HOLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: a call's path: segments of letters, digits, ``_ . -``, or one ``{name}`` hole each
_PATH = re.compile(r"(/([A-Za-z0-9_.-]+|\{[A-Za-z_][A-Za-z0-9_]*\}))+")


@dataclass(frozen=True)
class Fill:
    """A parameter value a person must fill in, as the audit wrote it: ``{name}`` holes in a
    template (``fill("{folder_id}")``, ``fill("✔ {topic}")``). Only these, and holes in a
    call's path, are placeholders: text from the organization (a topic ``help {user_id}``, a
    linkifier's ``{id}``) is sent as it is."""

    template: str

    @property
    def names(self) -> list[str]:
        """The names of its holes, in order."""
        return _HOLE.findall(self.template)


def fill(template: str) -> Fill:
    """A placeholder value: ``api("PATCH", "/streams/4", folder_id=fill("{folder_id}"))``."""
    found = Fill(template)
    if not found.names:
        raise ValueError(f"a placeholder needs a {{name}} hole: {template!r}")
    return found


def api(
    method: Method,
    path: str,
    params: dict[str, Any] | None = None,
    /,
    *,
    or_: ApiCall | None = None,
    **more: Any,
) -> ApiCall:
    """A typed API call. Its placeholders, which a person must fill in, are the ``{name}``
    holes of its path (``api("DELETE", "/streams/{stream_id}")``) and the :func:`fill` values
    of its parameters; any other text is a value, whatever braces it holds.

    Args:
        method: ``GET``, ``POST``, ``PATCH`` or ``DELETE``.
        path: relative to ``/api/v1``: literal segments, ids and ``{name}`` holes only.
        or_: another call a person may choose instead.
        params, more: the call's parameters, as the client sends them (``params`` for names
            that are not Python identifiers or are chosen at run time).
    """
    holes: list[str] = _HOLE.findall(path)
    values = {name: _plain(value, holes) for name, value in {**(params or {}), **more}.items()}
    call = ApiCall(
        method=method, path=path, params=values, fill=tuple(dict.fromkeys(holes)), alternative=or_
    )
    if _PATH.fullmatch(path) is None:
        raise ValueError(f"an API call's path holds only names, ids and {{holes}}: {path!r}")
    return call


def _plain(value: Any, holes: list[str]) -> Any:
    """``value`` with its :class:`Fill` placeholders as their text, their holes noted."""
    if isinstance(value, Fill):
        holes.extend(value.names)
        return value.template
    if isinstance(value, list | tuple):
        return [_plain(v, holes) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v, holes) for k, v in value.items()}
    return value


def finding(
    severity: str | Severity,
    subject: str,
    text: str,
    action: str,
    fix: Change | ApiCall | None,
) -> Finding:
    """One finding and what fixes it: a typed change (``ArchiveChannel(stream_id=4)``), a call a
    person must complete (``api("PATCH", "/streams/4", folder_id=fill("{folder_id}"))``), or a
    read that tells more (``api("GET", ...)``)::

        finding("warning", "#design", "no messages in 30 days", "Archive it",
                ArchiveChannel(stream_id=4))
    """
    change = fix if isinstance(fix, Change) else None
    return Finding(
        severity=Severity(severity),
        subject=subject,
        finding=text,
        recommended_action=action,
        call=change.call() if change is not None else fix,  # type: ignore[arg-type]
        change=msgspec.to_builtins(change) if change is not None else None,
    )


def crossed(threshold: str, limit: float, value: float) -> list[str]:
    """``[threshold]`` when ``value`` is above ``limit``, else ``[]``; a limit below 0 (``-1``)
    switches the check off: ``failed = crossed("max_stale_channels", 2, len(stale))``."""
    return [threshold] if 0 <= limit < value else []


def summary(
    name: str,
    *,
    failed: list[str],
    counts: dict[str, Any],
    thresholds: dict[str, Any],
    site: str,
    generated_at: str | None = None,
    subjects: list[str] | None = None,
    subject_keys: dict[str, str] | None = None,
    **details: Any,
) -> AuditSummary:
    """An audit's summary: it passed when no check in ``failed``; ``details`` are its own.

    ``subjects`` are every subject the audit looked at, flagged or not (in the words of its
    findings' subjects): a finding that vanished because its subject is not among them any more
    is reported as gone rather than resolved. ``subject_keys`` give subjects whose words a fix
    may change (a renamed channel) a key that does not change (``"stream 5"``): a finding whose
    subject's key is still among them is resolved, not gone.
    """
    return AuditSummary(
        name=name,
        passed=not failed,
        failed_checks=list(failed),
        counts={k: (v.item() if hasattr(v, "item") else v) for k, v in counts.items()},
        thresholds=thresholds,
        site=site,
        generated_at=generated_at or datetime.now(UTC).isoformat(),
        details=details,
        subjects=None if subjects is None else sorted(set(subjects)),
        subject_keys=None if subject_keys is None else dict(sorted(subject_keys.items())),
    )


def utc(now: datetime | None) -> pd.Timestamp:
    """``now`` as a UTC timestamp (a naive one is UTC); the current time when None."""
    if now is None:
        return pd.Timestamp(datetime.now(UTC))
    ts = pd.Timestamp(now)
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


def recent_messages(
    client: Client, *, since: pd.Timestamp, until: pd.Timestamp, limit: int
) -> tuple[list[Message], bool]:
    """Messages sent from ``since`` to ``until``, newest first; whether ``limit`` cut them short.

    Reading starts at ``until`` (the audit's ``now``): nothing sent after it is read.
    """
    since_ts = since.timestamp()
    out: list[Message] = []
    # No narrow: everything the account can read; direct messages are dropped by the metrics.
    for message in history_until(client, until.timestamp(), page_size=1000):
        if message.timestamp < since_ts:
            return out, False
        if len(out) >= limit:
            return out, True
        out.append(message)
    return out, False


def newest_messages(
    client: Client, count: int, *, narrow: Narrow | NotGiven = NOT_GIVEN
) -> list[Message]:
    """The page of the ``count`` newest messages of ``narrow`` the account can read, oldest
    first, as the server answers it (raw Markdown)."""
    page = client.messages.get(
        anchor="newest", num_before=count, num_after=0, narrow=narrow, apply_markdown=False
    )
    return page.messages


def group_members(group_id: int, groups: Mapping[int, UserGroup]) -> set[int]:
    """The members of a group and of its subgroups, recursively (a group not in ``groups``
    adds nobody; a cycle is followed once)."""
    seen: set[int] = set()
    members: set[int] = set()
    stack = [group_id]
    while stack:
        current = stack.pop()
        if current in seen or current not in groups:
            continue
        seen.add(current)
        members.update(groups[current].members)
        stack.extend(groups[current].direct_subgroup_ids)
    return members
