"""Run the audit notebooks with papermill and write a report folder with an exit status.

``run_audits`` is one readable sequence of named steps::

    notebooks   = resolve_notebooks(names)                 # name -> .ipynb, or AuditInputError
    per_audit   = validate_parameters(notebooks, params)   # checked against each parameters cell
    run_dir     = new_run_dir(report_dir)                  # report_dir/<UTC timestamp>/
    with connection(site, zuliprc) as conn:                # a sandbox when neither is given
        runs = execute_audits(...)                         # in parallel, `jobs` kernels at once:
                                                           # .ipynb, reader's .html, <name>/ data
        summary = write_report(run_dir, runs, ...)         # summary.json, index.html, trends
        post_summary(conn, post_to, summary)               # --post-to; a failure is one line
    point_latest(run_dir)                                  # report_dir/latest

Exit status (``RunResult.exit_code``): 0 every audit passed, 1 a threshold was crossed, 2 an audit
failed to run. Bad input (unknown audit or parameter, bad value, missing zuliprc) raises
:class:`AuditInputError` before anything runs; the CLI turns it into exit status 2.

Reports never hold an API key: notebooks get the *path* of a zuliprc, and every file written is
scanned for the key and redacted as a last line of defence.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._exceptions import ChatopsError, ConfigError
from .._files import FOLDER_MODE, READERS, Readers, new_dir, owner_only, share, share_folder
from ..audits.precheck import PrecheckError, precheck
from ..jupyter.kernels import _current_python_kernel_manager, kernel_environment
from .notebooks import resolve_notebooks, validate_parameters
from .outcome import AuditInputError, AuditRun, RunResult
from .redact import redact_file, scrub, scrubber
from .report import PostTarget, parse_post_target, post_message, read_findings, write_report
from .report.pages import SETUP_TAG, render_audit_page, setup_cell_source

__all__ = [
    "Connection",
    "check_as_of",
    "check_jobs",
    "check_post_target",
    "connection",
    "execute_audit",
    "execute_audits",
    "new_run_dir",
    "point_latest",
    "post_summary",
    "post_text",
    "run_audits",
]

KERNEL_NAME = "python3"

Echo = Callable[[str], None]


@dataclass(frozen=True)
class Connection:
    """What every notebook connects with: a zuliprc path and/or a site, and secrets to redact."""

    zuliprc: str
    site: str
    secrets: tuple[str, ...]
    label: str


@contextlib.contextmanager
def connection(
    site: str | None, zuliprc: str | None, echo: Echo, now: datetime | None = None
) -> Iterator[Connection]:
    """The server the audits run against; a fresh demo sandbox when neither site nor zuliprc.

    ``now`` dates the demo sandbox (its organization and its clock); a server is read as it is.
    """
    if zuliprc:
        path = Path(zuliprc).expanduser().resolve()
        if not path.is_file():
            raise AuditInputError(f"zuliprc {zuliprc} does not exist")
        yield Connection(str(path), site or "", _secrets_of(path, site), site or _site_of(path))
        return
    if site:
        yield Connection("", site, _secrets_of(None, site), site)
        return
    from ..sandbox import Sandbox

    echo("Starting a demo sandbox (no --site or --zuliprc given)...")
    sandbox = Sandbox.start(now=None if now is None else int(now.timestamp()))
    try:
        rc = sandbox.zuliprc("admin")
        secrets = tuple(a.api_key for a in sandbox.accounts.values() if a.api_key)
        secrets += tuple(a.password for a in sandbox.accounts.values() if a.password)
        yield Connection(str(rc), "", secrets, f"sandbox {sandbox.site}")
    finally:
        sandbox.stop()


def _site_of(path: Path) -> str:
    """The server a zuliprc names (reports show it rather than the file's path)."""
    from .._config import resolve_credentials

    try:
        return resolve_credentials(config_file=path).site
    except ChatopsError:
        return "the server of the zuliprc given"


def _secrets_of(path: Path | None, site: str | None) -> tuple[str, ...]:
    from .._config import resolve_credentials

    try:
        creds = resolve_credentials(site=site or None, config_file=path)
    except ChatopsError:
        return ()
    return (creds.api_key,) if creds.api_key else ()


def new_run_dir(report_dir: str | os.PathLike[str]) -> Path:
    """A new folder ``report_dir/<UTC timestamp>`` (suffixed when the second is taken)."""
    root = new_dir(Path(report_dir).expanduser().resolve())
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    for n in range(1000):
        candidate = root / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            candidate.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            continue
        return candidate
    raise AuditInputError(f"cannot create a run folder in {root}")


def execute_audit(
    name: str,
    notebook: Path,
    run_dir: Path,
    parameters: Mapping[str, Any],
    conn: Connection,
) -> AuditRun:
    """Execute one notebook; write ``<name>.ipynb``, the reader's ``<name>.html`` and
    ``<name>/`` (summary.json, findings.csv, tables/*.csv)."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    executed = run_dir / f"{name}.ipynb"
    audit_dir = run_dir / name
    params = {
        **parameters,
        "zuliprc": conn.zuliprc,
        "site": conn.site,
        "report_dir": str(audit_dir),
    }
    error: str | None = None
    scratch = tempfile.TemporaryDirectory(prefix="chatops-audit-")
    try:
        papermill.execute_notebook(
            str(_with_setup_cell(notebook, Path(scratch.name))),
            str(executed),
            parameters=params,
            kernel_name=KERNEL_NAME,
            progress_bar=False,
            log_output=False,
            # the kernel starts in the run's folder; papermill's cwd= would chdir this whole
            # process, which audits running in parallel threads would leave wherever the last
            # one to finish put it
            resources={"metadata": {"path": str(run_dir)}},
            kernel_manager_class=_current_python_kernel_manager(),
        )
    except PapermillExecutionError as exc:
        error = f"cell {exc.exec_count}: {exc.ename}: {_first_line(exc.evalue)}"
    except Exception as exc:  # the kernel died or could not start; report, keep going
        error = f"{type(exc).__name__}: {_first_line(str(exc))}"
    finally:
        scratch.cleanup()
    summary = _read_summary(audit_dir / "summary.json")
    if error is None and summary is None:
        error = "the notebook wrote no summary.json"
    clean = scrubber(conn.secrets, run_dir, conn.zuliprc)
    error = clean(error) if error else None
    if executed.exists():
        redact_file(executed, conn.secrets)
    for path in sorted(audit_dir.rglob("*")) if audit_dir.is_dir() else []:
        if path.is_file():
            redact_file(path, conn.secrets)
    findings = read_findings(name, audit_dir) if error is None else []
    html = render_audit_page(
        name,
        executed if executed.exists() else None,
        summary,
        error,
        findings,
        run_dir / f"{name}.html",
        clean,
    )
    return AuditRun(
        name=name,
        notebook=executed if executed.exists() else None,
        html=html,
        passed=None if summary is None or error else bool(summary.get("passed")),
        counts=dict(summary.get("counts", {})) if summary else {},
        failed_checks=list(summary.get("failed_checks", [])) if summary else [],
        error=error,
        thresholds=dict(summary.get("thresholds") or {}) if summary else {},
        findings=findings,
        subjects=_subjects(summary),
        subject_keys=_subject_keys(summary),
    )


def _subjects(summary: Mapping[str, Any] | None) -> list[str] | None:
    subjects = summary.get("subjects") if summary else None
    return [str(s) for s in subjects] if isinstance(subjects, list) else None


def _subject_keys(summary: Mapping[str, Any] | None) -> dict[str, str] | None:
    keys = summary.get("subject_keys") if summary else None
    return {str(k): str(v) for k, v in keys.items()} if isinstance(keys, dict) else None


def _with_setup_cell(notebook: Path, folder: Path) -> Path:
    """A copy of ``notebook`` whose first cell asks pandas for its table schema too (the
    report's tables are built from it); the page leaves that cell out."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)  # type: ignore[no-untyped-call]
    setup = nbformat.v4.new_code_cell(setup_cell_source())  # type: ignore[no-untyped-call]
    setup.metadata["tags"] = [SETUP_TAG]
    nb.cells.insert(0, setup)
    copy = folder / notebook.name
    nbformat.write(nb, str(copy))  # type: ignore[no-untyped-call]
    return copy


def execute_audits(
    notebooks: Mapping[str, Path],
    per_audit: Mapping[str, Mapping[str, Any]],
    run_dir: Path,
    conn: Connection,
    jobs: int,
    say: Echo,
) -> list[AuditRun]:
    """Execute the notebooks, ``jobs`` at a time (each in its own kernel), in the given order."""
    from concurrent.futures import ThreadPoolExecutor

    def one(name: str) -> AuditRun:
        run = execute_audit(name, notebooks[name], run_dir, per_audit[name], conn)
        say(f"  {name}: {_status(run)}")
        return run

    say(f"Running {len(notebooks)} audits against {conn.label}, {jobs} at a time...")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, notebooks))


def post_summary(
    conn: Connection,
    target: PostTarget,
    payload: Mapping[str, Any],
    run_dir: Path,
    report_url: str,
    say: Echo,
) -> bool:
    """Post the run's summary; a failure is said in one line and never fails the run."""
    text = post_message(payload, run_dir, report_url)
    return post_text(conn, target, text, say, what="the summary")


def post_text(
    conn: Connection, target: PostTarget, text: str, say: Echo, *, what: str = "a message"
) -> bool:
    """Post ``text`` to ``target`` as the account of ``conn`` (secrets scrubbed); a failure is
    said in one line and never raised. Returns whether it was posted."""
    from .._client import Client

    text = scrub(text, conn.secrets)
    where = (
        f"#{target.channel} > {target.topic}" if target.channel else ", ".join(target.recipients)
    )
    try:
        if conn.zuliprc:
            client = Client(site=conn.site or None, config_file=conn.zuliprc)
        else:
            client = Client(site=conn.site or None)
        with client:
            if target.channel:
                client.messages.send_to_channel(target.channel, target.topic, text)
            else:
                client.messages.send_direct(list(target.recipients), text)
    except Exception as exc:  # posting is a courtesy: the report and exit status stand
        say(scrub(f"Could not post {what} to {where}: {_first_line(str(exc))}", conn.secrets))
        return False
    say(f"Posted {what} to {where}")
    return True


def point_latest(run_dir: Path) -> Path:
    """Make ``report_dir/latest`` point at ``run_dir`` (a symlink, or a copy where none)."""
    latest = run_dir.parent / "latest"
    tmp = run_dir.parent / f".latest-{os.getpid()}"
    try:
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()
        tmp.symlink_to(run_dir.name, target_is_directory=True)
        if latest.is_dir() and not latest.is_symlink():
            shutil.rmtree(latest)
        os.replace(tmp, latest)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if latest.is_symlink():
            latest.unlink()
        elif latest.exists():
            shutil.rmtree(latest)
        shutil.copytree(run_dir, latest)
    return latest


def run_audits(
    names: Sequence[str],
    *,
    report_dir: str | os.PathLike[str],
    parameters: Mapping[str, Any] | None = None,
    site: str | None = None,
    zuliprc: str | None = None,
    jobs: int | None = None,
    post_to: str | None = None,
    report_url: str = "",
    echo: Echo | None = None,
    as_of: str | None = None,
    readable_by: Readers = "owner",
) -> RunResult:
    """Run audit notebooks and write a report folder.

    Args:
        names: audit names (``org_overview``); empty runs them all.
        report_dir: where ``<timestamp>/`` and ``latest`` go; each run is compared with the
            previous report there.
        parameters: notebook parameters; strings are converted to each parameter's type.
        site: server URL; with no zuliprc the credentials come from ``ZULIP_*`` or ``~/.zuliprc``.
        zuliprc: path of a zuliprc file.
        jobs: notebooks executed at once, each in its own kernel; default ``os.cpu_count()``.
        post_to: ``channel:topic`` or ``dm:alice@x.org,bob@y.org``: post a short summary there.
        report_url: where the report folder is served, for links in the posted summary.
        echo: called with one line per step (progress); default silent.
        as_of: the reference time of every audit (ISO 8601; the notebooks' ``as_of``); default
            now. It also dates the demo sandbox started when there is no site or zuliprc, so
            that a run on the demo gives the same results on any day.
        readable_by: who may read the run's folder: ``"owner"`` (the default: folders 0700,
            files 0600, since a report names people), ``"group"`` or ``"everyone"``.

    With neither ``site`` nor ``zuliprc`` one demo sandbox serves all the notebooks.
    Raises :class:`AuditInputError` for bad input, before running anything.
    """
    say: Echo = echo or (lambda _line: None)
    if readable_by not in READERS:
        raise AuditInputError(
            f"readable_by must be one of {', '.join(READERS)}, not {readable_by!r}"
        )
    workers = check_jobs(jobs)
    target = check_post_target(post_to)
    notebooks = resolve_notebooks(names)
    given = dict(parameters or {})
    if as_of is not None and "as_of" in given:
        raise AuditInputError("give --as-of or -p as_of, not both")
    moment = check_as_of(as_of if as_of is not None else given.get("as_of", ""))
    # a notebook's committed as_of pins the demo for its own outputs; a run means now
    per_audit = validate_parameters(notebooks, given, {"as_of": as_of or ""})
    try:  # once, before any kernel starts: parameter ranges, credentials, reachability
        precheck(site, zuliprc, per_audit)
    except PrecheckError as exc:
        raise AuditInputError(str(exc)) from None
    posted: bool | None = None
    # everything the run writes, its kernels' files included, is its owner's only; a shared
    # report is widened at the end, on purpose
    with owner_only():
        run_dir = new_run_dir(report_dir)
        try:
            with kernel_environment(), connection(site, zuliprc, say, moment) as conn:
                runs = execute_audits(notebooks, per_audit, run_dir, conn, workers, say)
                clean = scrubber(conn.secrets, run_dir, conn.zuliprc)
                summary = write_report(run_dir, runs, conn.label, clean)
                if target is not None:
                    posted = post_summary(conn, target, summary, run_dir, report_url, say)
        except ConfigError as exc:
            raise AuditInputError(str(exc)) from None
        finally:
            share(run_dir, readable_by)
        if readable_by != "owner":
            share_folder(run_dir.parent, readable_by)
        point_latest(run_dir)
    say(f"Report: {run_dir / 'index.html'}")
    return RunResult(
        run_dir=run_dir, summary_path=run_dir / "summary.json", audits=runs, posted=posted
    )


def check_jobs(jobs: int | None) -> int:
    """The number of kernels at once: ``jobs``, or the machine's cores."""
    if jobs is None:
        return os.cpu_count() or 1
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise AuditInputError(f"--jobs must be a whole number of at least 1, not {jobs!r}")
    return jobs


def check_as_of(text: Any) -> datetime | None:
    """``--as-of`` as a UTC datetime (None when empty: now); AuditInputError when malformed."""
    from ..audits import parse_as_of

    try:
        return parse_as_of(str(text))
    except ValueError as exc:
        raise AuditInputError(str(exc)) from None


def check_post_target(text: str | None) -> PostTarget | None:
    """The parsed ``--post-to``, or None when not given."""
    if text is None:
        return None
    try:
        return parse_post_target(text)
    except ValueError as exc:
        raise AuditInputError(str(exc)) from None


def _status(run: AuditRun) -> str:
    if run.error is not None:
        return f"failed to run ({run.error})"
    if run.passed:
        return "passed"
    return "threshold crossed: " + ", ".join(run.failed_checks or ["see findings"])


def _first_line(text: str) -> str:
    lines = [line for line in str(text).strip().splitlines() if line.strip()]
    return lines[0][:500] if lines else ""


def _read_summary(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
