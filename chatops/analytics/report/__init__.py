"""The analytics report: one self-contained HTML file of the views for a period.

::

    >>> from chatops.analytics import Dataset
    >>> from chatops.analytics.report import build_report, write_html
    >>> report = build_report(Dataset("~/.cache/chatops/datasets/..."), period="last-30-days")
    >>> write_html(report, "analytics.html")

The file holds everything it shows: each figure is a PNG at twice its screen resolution in a
``data:`` URL, the styles are inline, there is no script, and its Content-Security-Policy
(:data:`CSP`) lets the page load nothing else (no font, no image, no script from anywhere). It
reads without Jupyter and prints (figures and table rows never split across pages). Every name
in it (channels, topics, people) is escaped by the audit report's templates, which it shares.

``chatops report analytics`` writes it from the command line; the notebook
``notebooks/reports/analytics.ipynb`` shows the same report for a papermill schedule.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jinja2

from ..._files import write_private_text
from ..dataset import Dataset
from ..dataset.records import AnalyticsFrames
from ..pseudonyms import PseudonymKey, load_key
from ._compute import FIGURE_DPI, Section, compute_sections, period_frames
from ._period import PERIODS, Period, parse_time, resolve_period
from ._pseudonymous import pseudonymous_frames
from ._tables import compact_table, readable

__all__ = [
    "CSP",
    "FIGURE_DPI",
    "PERIODS",
    "AnalyticsReport",
    "Period",
    "Section",
    "build_report",
    "compact_table",
    "compute_sections",
    "organization_name",
    "parse_time",
    "period_frames",
    "readable",
    "render_html",
    "resolve_period",
    "table_html",
    "write_html",
]

#: what the page may load: nothing but its own inline styles and ``data:`` images
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_ENV = jinja2.Environment(
    loader=jinja2.ChoiceLoader(
        [
            jinja2.PackageLoader("chatops.analytics.report", "templates"),
            jinja2.PackageLoader("chatops.audit.report", "templates"),
        ]
    ),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


@dataclass(frozen=True)
class AnalyticsReport:
    """What the report shows: whose data, which period, and a section per view."""

    organization: str
    period: Period
    #: when it was made, ``2026-11-29 02:40 UTC``
    generated: str
    #: the coverage note: whose messages the data holds
    coverage: str
    #: messages in the period (bots' included), as text with thousands separators
    messages: str
    #: the days the report covers, ``2026-10-30 to 2026-11-28`` (an open end: the data's)
    span: str
    sections: list[Section] = field(default_factory=list)
    exclude_bots: bool = True


def organization_name(manifest: dict[str, Any]) -> str:
    """The organization a dataset is of: an export's realm name, else its server's host.

    Args:
        manifest: a dataset's ``manifest``.
    """
    realm = (manifest.get("source") or {}).get("realm") or {}
    if realm.get("name"):
        return str(realm["name"])
    site = str(manifest.get("site") or "")
    return urlsplit(site).netloc or site or "organization"


def build_report(
    source: Dataset | AnalyticsFrames,
    *,
    period: str | None = None,
    since: str | datetime | None = None,
    until: str | datetime | None = None,
    organization: str | None = None,
    exclude_bots: bool = True,
    views: Iterable[str] | None = None,
    progress: Callable[[Iterable[Any]], Iterable[Any]] | None = None,
    now: datetime | None = None,
    dpi: int = FIGURE_DPI,
    pseudonymise: bool = False,
    key: PseudonymKey | str | None = None,
) -> AnalyticsReport:
    """Compute the report of a dataset (or its frames) for a period.

    Args:
        source: a :class:`~chatops.analytics.Dataset` or its frames.
        period: one of :data:`PERIODS` (``last-7-days``, ``last-30-days``, ``last-90-days``,
            ``all``); a named period ends with the newest message.
        since: with no ``period``, the first moment included (ISO 8601; naive is UTC).
        until: with no ``period``, the first moment excluded.
        organization: the name in the title (default :func:`organization_name`).
        exclude_bots: leave bots' messages out.
        views: the views to include by name (default every registered view, V1 to V11).
        progress: wraps the iteration over the views (e.g. ``tqdm``).
        now: the generation time shown (default now).
        dpi: the figures' resolution (default twice the 100 dpi they are shown at, sharp in
            print; 100 keeps a notebook small).
        pseudonymise: name nobody (:func:`~._pseudonymous.pseudonymous_frames`): people as
            keyed pseudonyms, topics as keyed labels, no account in the coverage note.
        key: the pseudonym key (default :func:`~chatops.analytics.pseudonyms.load_key`'s).

    Returns:
        an :class:`AnalyticsReport`; :func:`render_html` makes it a page.

    Raises:
        ValueError: a bad period, ``since`` not before ``until``, or ``pseudonymise`` with
            no key configured.
    """
    secret = load_key(key) if pseudonymise else None
    start = parse_time(since) if isinstance(since, str) else since
    end = parse_time(until) if isinstance(until, str) else until
    if isinstance(source, Dataset):
        frames = source.frames()
        name = organization or organization_name(source.manifest)
    else:
        frames = source
        name = organization or "organization"
    if secret is not None:
        frames = pseudonymous_frames(frames, secret)
    chosen = resolve_period(period, start, end, frames.messages["timestamp"])
    sections = compute_sections(
        frames,
        chosen,
        exclude_bots=exclude_bots,
        views=views,
        progress=progress,
        dpi=dpi,
        key=secret,
    )
    in_period = period_frames(frames, chosen).messages
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    span = chosen.dates()
    if (chosen.since is None or chosen.until is None) and len(in_period):
        first, last = in_period["timestamp"].min(), in_period["timestamp"].max()
        start = first if chosen.since is None else chosen.since
        end = last if chosen.until is None else chosen.until - timedelta(microseconds=1)
        span = f"{start:%Y-%m-%d} to {end:%Y-%m-%d}"
    return AnalyticsReport(
        organization=name,
        period=chosen,
        generated=f"{moment:%Y-%m-%d %H:%M} UTC",
        coverage=str(frames.messages.attrs.get("coverage") or "not recorded"),
        messages=f"{len(in_period):,}",
        span=span,
        sections=sections,
        exclude_bots=exclude_bots,
    )


def render_html(report: AnalyticsReport) -> str:
    """The report as one self-contained HTML page (every name escaped)."""
    return _ENV.get_template("analytics.html.j2").render(report=report, csp=CSP)


def table_html(table: Any) -> str:
    """A section's table as an HTML fragment (escaped), as the page shows it: for a notebook.

    Args:
        table: a :class:`Section`'s ``table``.
    """
    module = _ENV.get_template("_table.html.j2").make_module()
    return str(module.table(table))  # type: ignore[attr-defined]


def write_html(report: AnalyticsReport, path: str | os.PathLike[str]) -> Path:
    """Write the report's page to ``path`` atomically (a temporary file renamed: an interrupted
    write leaves no half-written file), readable by its owner only (it names people).

    Returns:
        the path written.
    """
    return write_private_text(Path(path), render_html(report))
