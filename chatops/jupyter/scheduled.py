"""The notebooks made to be scheduled (``notebooks/scheduled/``) and what they call.

JupyterLab's scheduler (jupyter-scheduler) runs a notebook with its parameters and marks the
run failed when a cell raises. These functions are what the scheduled notebooks do::

    run_suite(...)       the audit suite, as ``chatops audit run``, into the same report folder
                         (trends go on across cron and scheduler runs); posts its summary
    run_analytics(...)   the analytics report as one HTML file in the report folder

Each raises :class:`ScheduledRunFailed` at the end, after the report is written and the summary
posted, when a threshold was crossed, an audit failed or drift was found: the scheduler's run
fails, and never silently. Credentials come from a zuliprc's path or the environment
(``ZULIP_EMAIL``, ``ZULIP_API_KEY`` with ``site``), never from a parameter's value.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._exceptions import ChatopsError

__all__ = [
    "LAB_CWD_VARIABLE",
    "LAB_ZULIPRC_VARIABLE",
    "SCHEDULED",
    "SUITE_OWN_PARAMETERS",
    "ScheduledNotebook",
    "ScheduledRunFailed",
    "audit_parameters",
    "lab_zuliprc",
    "report_folder",
    "run_analytics",
    "run_suite",
    "suite_parameters_source",
]

#: the folder ``chatops lab`` was started in: relative report folders are taken from there,
#: as ``chatops audit run`` takes them from where it runs (a scheduled run's own folder is a
#: staging copy that the scheduler keeps to itself)
LAB_CWD_VARIABLE = "CHATOPS_LAB_CWD"

#: the zuliprc ``chatops lab --zuliprc`` was started with (its path): what a scheduled notebook
#: given neither ``zuliprc`` nor ``site`` acts with, rather than a demo organization
LAB_ZULIPRC_VARIABLE = "CHATOPS_LAB_ZULIPRC"


@dataclass(frozen=True)
class ScheduledNotebook:
    """A notebook made to be scheduled: its name for ``chatops schedule`` and its path in the
    notebooks' folder."""

    name: str
    path: str
    title: str


#: the notebooks ``chatops schedule`` knows, by name
SCHEDULED: dict[str, ScheduledNotebook] = {
    n.name: n
    for n in (
        ScheduledNotebook("audit-suite", "scheduled/audit_suite.ipynb", "the audit suite"),
        ScheduledNotebook("org-drift", "scheduled/org_drift.ipynb", "the organization drift check"),
        ScheduledNotebook(
            "analytics-report", "scheduled/analytics_report.ipynb", "the analytics report"
        ),
    )
}

#: the suite notebook's own parameters, before the audits' (which default to each audit's own)
SUITE_OWN_PARAMETERS = (
    "zuliprc",
    "site",
    "audits",
    "report_dir",
    "post_to",
    "report_url",
    "as_of",
    "jobs",
)


class ScheduledRunFailed(ChatopsError):
    """A scheduled run crossed a threshold, failed or found drift; the report and the posted
    summary say what. Raised by the notebook's last cell so that the scheduler marks the run
    failed."""


def report_folder(text: str) -> Path:
    """The report folder a scheduled notebook writes to: ``text`` as ``--report-dir`` takes it,
    a relative path taken from the folder ``chatops lab`` was started in.

    Args:
        text: the notebook's ``report_dir`` parameter (``reports`` by default).

    Returns the absolute folder (not created here).
    """
    path = Path(text or "reports").expanduser()
    if not path.is_absolute():
        path = Path(os.environ.get(LAB_CWD_VARIABLE) or os.getcwd()) / path
    return path.resolve()


def lab_zuliprc(zuliprc: str, site: str) -> str:
    """The zuliprc a scheduled run acts with: ``zuliprc`` when given; with neither it nor
    ``site``, the one ``chatops lab`` was started with (empty when none: a demo sandbox).

    Args:
        zuliprc: the notebook's ``zuliprc`` parameter.
        site: the notebook's ``site`` parameter (credentials from ``ZULIP_*``).
    """
    if zuliprc or site:
        return zuliprc
    return os.environ.get(LAB_ZULIPRC_VARIABLE, "")


def audit_parameters(values: Mapping[str, Any]) -> dict[str, Any]:
    """The audit parameters a suite run was given: those any audit declares whose value is not
    None (None is each audit's own default).

    Args:
        values: the suite notebook's variables (``globals()``); only audit parameters are taken.
    """
    return {k: values[k] for k in _audit_parameter_specs() if values.get(k) is not None}


def _audit_parameter_specs() -> dict[str, tuple[str, str, list[str]]]:
    """Each parameter any audit declares (the runner's own and the suite's left out), by name:
    its type, its help and the audits that declare it."""
    from ..audit import RESERVED_PARAMETERS, available_audits, notebook_parameters

    seen: dict[str, tuple[str, str, list[str]]] = {}
    for audit, path in available_audits().items():
        for name, spec in notebook_parameters(path).items():
            if name in RESERVED_PARAMETERS or name in SUITE_OWN_PARAMETERS:
                continue
            kind = str(spec.get("inferred_type_name") or "str").split("|")[0].strip()
            entry = seen.setdefault(name, (kind, str(spec.get("help") or ""), []))
            entry[2].append(audit)
    return seen


def suite_parameters_source() -> str:
    """The audit parameters of the suite notebook's parameters cell: each parameter any audit
    declares, once, ``None`` by default (each audit's own default), with its help. Their type
    is a quoted ``Optional[...]``: papermill reads it, and Python keeps it unevaluated.

    The suite notebook holds this text after its own parameters; a test checks that it still
    matches the audits'.
    """
    lines = []
    for name, (kind, help_text, audits) in sorted(_audit_parameter_specs().items()):
        lines.append(
            f'{name}: "Optional[{kind}]" = None  # {", ".join(audits)}: {help_text} '
            "(None: the audit's default)"
        )
    return "\n".join(lines)


Say = Callable[[str], None]


def run_suite(
    *,
    zuliprc: str = "",
    site: str = "",
    audits: str = "",
    report_dir: str = "reports",
    post_to: str = "",
    report_url: str = "",
    as_of: str = "",
    jobs: int = 0,
    parameters: Mapping[str, Any] | None = None,
    say: Say = print,
) -> Path:
    """Run audits as ``chatops audit run`` does and return the run's report folder.

    Args:
        zuliprc: path of a zuliprc file; empty: ``site`` with ``ZULIP_*``, else the zuliprc
            ``chatops lab`` was started with (:func:`lab_zuliprc`), else a demo sandbox.
        site: server URL (credentials from ``ZULIP_EMAIL``/``ZULIP_API_KEY`` without zuliprc).
        audits: audit names, comma-separated; empty runs them all.
        report_dir: the report folder (:func:`report_folder`); trends compare with its last run.
        post_to: ``channel:topic`` or ``dm:alice@x.org``: the summary is posted there.
        report_url: where the report folder is served, for links in the summary.
        as_of: reference time, ISO 8601; empty is now.
        jobs: audits at once (0: the machine's cores).
        parameters: the audits' parameters (thresholds, periods); see :func:`audit_parameters`.
        say: where progress lines go (the run's output).

    Raises :class:`ScheduledRunFailed` after the report is written and the summary posted when
    the run's exit status is not 0, or when the run could not start (said in ``post_to`` too).

    Example::

        run_suite(zuliprc="~/.zuliprc", audits="bots,invitations", post_to="admins:audits",
                  parameters={"max_risky_invitations": 0})
    """
    from ..audit import AuditInputError, run_audits

    names = [n.strip() for n in audits.split(",") if n.strip()]
    zuliprc = lab_zuliprc(zuliprc, site)
    folder = report_folder(report_dir)
    try:
        result = run_audits(
            names,
            report_dir=folder,
            parameters=dict(parameters or {}),
            site=site or None,
            zuliprc=zuliprc or None,
            jobs=jobs or None,
            post_to=post_to or None,
            report_url=report_url,
            echo=say,
            as_of=as_of or None,
        )
    except (AuditInputError, ChatopsError) as exc:
        _tell_failure(
            zuliprc, site, post_to, f"The scheduled audit run could not start: {exc}", say
        )
        raise ScheduledRunFailed(f"the audit run could not start: {exc}") from None
    if result.exit_code != 0:
        failing = [f"{a.name}: {_outcome(a)}" for a in result.audits if a.exit_code != 0]
        raise ScheduledRunFailed(
            f"exit status {result.exit_code}: {'; '.join(failing)}. "
            f"Report: {result.run_dir / 'index.html'}"
        )
    return result.run_dir


def _outcome(run: Any) -> str:
    if run.error is not None:
        return f"failed to run ({run.error})"
    return "threshold crossed (" + (", ".join(run.failed_checks) or "see findings") + ")"


def run_analytics(
    *,
    zuliprc: str = "",
    site: str = "",
    period: str = "last-30-days",
    report_dir: str = "reports",
    post_to: str = "",
    say: Say = print,
) -> Path:
    """Write the analytics report (``chatops report analytics``) as
    ``<report_dir>/analytics/<UTC time>.html`` and return its path; post where it is.

    Args:
        zuliprc: path of a zuliprc file; empty: ``site`` with ``ZULIP_*``, else the zuliprc
            ``chatops lab`` was started with (:func:`lab_zuliprc`), else a demo sandbox.
        site: server URL (credentials from ``ZULIP_EMAIL``/``ZULIP_API_KEY`` without zuliprc).
        period: ``last-7-days``, ``last-30-days``, ``last-90-days`` or ``all``.
        report_dir: the report folder (:func:`report_folder`).
        post_to: ``channel:topic`` or ``dm:alice@x.org``: where to say the report is written,
            or why it is not.
        say: where progress lines go.

    Raises :class:`ScheduledRunFailed` when the report could not be written or a view could
    not be computed (after posting that).
    """
    import subprocess
    import sys

    from ..analytics.report import PERIODS

    zuliprc = lab_zuliprc(zuliprc, site)
    if period not in PERIODS:
        text = f"The scheduled analytics report has no period {period!r}: {', '.join(PERIODS)}"
        _tell_failure(zuliprc, site, post_to, text, say)
        raise ScheduledRunFailed(text)
    folder = report_folder(report_dir) / "analytics"
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}.html"
    argv = ["report", "analytics", "--period", period, "--out", str(out), "--no-progress"]
    if zuliprc:
        argv += ["--zuliprc", zuliprc]
    elif site:
        argv += ["--site", site]
    # the command as cron runs it, in a process of its own (its arguments checked, its errors
    # one line on standard error)
    done = subprocess.run(
        [sys.executable, "-m", "chatops.cli", *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    code = done.returncode
    problem = " ".join(line for line in done.stderr.splitlines() if "error" in line)
    if code != 0:
        text = f"The scheduled analytics report failed (exit status {code}): {problem or out}"
        _tell_failure(zuliprc, site, post_to, text, say)
        raise ScheduledRunFailed(text)
    say(f"Analytics report: {out}")
    if post_to:
        _post(zuliprc, site, post_to, f"**Analytics report ({period})**: `{out}`", say)
    return out


def _tell_failure(zuliprc: str, site: str, post_to: str, text: str, say: Say) -> None:
    say(text)
    if post_to:
        _post(zuliprc, site, post_to, f":cross_mark: {text}", say)


def _post(zuliprc: str, site: str, post_to: str, text: str, say: Say) -> None:
    """Post ``text`` to ``post_to`` as the runner posts a summary; a failure is said, never
    raised."""
    from ..audit.runner import Connection, _secrets_of, check_post_target, post_text

    try:
        target = check_post_target(post_to)
    except ChatopsError as exc:
        say(f"Could not post to {post_to}: {exc}")
        return
    if target is None:
        return
    path = Path(zuliprc).expanduser().resolve() if zuliprc else None
    conn = Connection(str(path or ""), site, _secrets_of(path, site), site)
    post_text(conn, target, text, say)
