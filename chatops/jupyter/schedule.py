"""Job definitions of the scheduled notebooks in a running JupyterLab, through the REST API of
its scheduler (jupyter-scheduler): what ``chatops schedule`` does, and what the Notebook Jobs
panel shows.

::

    lab = find_lab()                                         # a running JupyterLab (chatops lab)
    params = definition_parameters("audit-suite", [("inactive_days", "30")])   # checked, typed
    jobs = Jobs(lab)
    jobs.add("audit-suite", cron="0 7 * * 1", timezone="Europe/Berlin", parameters=params)
    jobs.definitions(); jobs.run_now("audit-suite"); jobs.remove("audit-suite")

Every argument is checked before the server is asked (:class:`ScheduleError`, one line). The
scheduler puts each parameter's value into the notebook as Python source: values are written
as Python literals of the parameter's type. No parameter holds a credential: the notebooks take
a zuliprc's path, or the environment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._exceptions import ChatopsError
from .._resources import notebooks_root
from .scheduled import SCHEDULED, ScheduledNotebook

__all__ = [
    "Jobs",
    "Lab",
    "ScheduleError",
    "check_cron",
    "check_timezone",
    "definition_parameters",
    "find_lab",
    "scheduled_notebook",
]


class ScheduleError(ChatopsError):
    """A job definition cannot be made as asked: bad cron expression, unknown time zone,
    notebook or parameter, or no JupyterLab to make it in. The message names what."""


def scheduled_notebook(name: str) -> ScheduledNotebook:
    """The scheduled notebook called ``name`` (``audit-suite``, ``org-drift``,
    ``analytics-report``); ScheduleError naming the known ones otherwise."""
    try:
        return SCHEDULED[name]
    except KeyError:
        raise ScheduleError(
            f"unknown notebook {name!r}; scheduled notebooks: {', '.join(SCHEDULED)}"
        ) from None


def check_cron(expression: str) -> str:
    """``expression`` when it is a five-field cron expression the scheduler can use."""
    from croniter import croniter  # type: ignore[import-untyped]

    text = " ".join(expression.split())
    if len(text.split()) != 5 or not croniter.is_valid(text):
        raise ScheduleError(
            f"--cron {expression!r} is not a cron expression of five fields "
            "(minute hour day-of-month month day-of-week), e.g. '0 7 * * 1'"
        )
    return text


def check_timezone(name: str) -> str:
    """``name`` when the scheduler knows the time zone (IANA names: ``Europe/Berlin``, ``UTC``)."""
    import pytz  # type: ignore[import-untyped]

    try:
        pytz.timezone(name)
    except (pytz.UnknownTimeZoneError, AttributeError, ValueError):
        raise ScheduleError(
            f"--tz {name!r} is not a time zone the scheduler knows (IANA names, e.g. Europe/Berlin)"
        ) from None
    return str(name)


def _kind(type_name: str) -> str:
    """``int`` of papermill's ``int``, ``Optional[int]`` or ``int | None``."""
    text = type_name.strip()
    if text.startswith("Optional[") and text.endswith("]"):
        text = text[len("Optional[") : -1]
    return text.split("|")[0].strip() or "str"


def definition_parameters(name: str, given: Sequence[tuple[str, str]]) -> dict[str, str]:
    """The parameters of a job definition for scheduled notebook ``name``: the notebook's own
    defaults (shown in the Notebook Jobs panel), then ``given`` (``-p NAME VALUE``), each
    checked against the notebook's parameters cell and written as a Python literal.

    Audit parameters the suite leaves at ``None`` (each audit's own default) are left out
    unless given.

    Example::

        definition_parameters("audit-suite", [("inactive_days", "30"), ("post_to", "ops:audits")])
        # {..., 'inactive_days': '30', 'post_to': "'ops:audits'"}
    """
    import ast

    from ..audit import AuditInputError, coerce_value, notebook_parameters

    specs = notebook_parameters(notebooks_root() / scheduled_notebook(name).path)
    values: dict[str, str] = {
        p: str(spec["default"]) for p, spec in specs.items() if str(spec["default"]) != "None"
    }
    seen: set[str] = set()
    for pname, text in given:
        if pname not in specs:
            raise ScheduleError(
                f"unknown parameter {pname!r} for {name}; its parameters: {', '.join(specs)}"
            )
        if pname in seen:
            raise ScheduleError(f"parameter {pname} is given twice")
        seen.add(pname)
        if pname == "zuliprc" and text:
            # a path the job can read wherever it runs (a run's folder is a staging copy)
            path = Path(text).expanduser().resolve()
            if not path.is_file():
                raise ScheduleError(f"zuliprc {text} does not exist (give the path of the file)")
            text = str(path)
        kind = _kind(str(specs[pname].get("inferred_type_name") or "str"))
        try:
            value = coerce_value(pname, text, kind)
        except AuditInputError as exc:
            raise ScheduleError(str(exc)) from None
        values[pname] = repr(value)
        ast.literal_eval(values[pname])  # what the scheduler writes into the notebook
    return values


@dataclass(frozen=True)
class Lab:
    """A running JupyterLab: where it listens, its token, and the folder it serves."""

    url: str
    token: str
    root_dir: Path

    def __repr__(self) -> str:  # the token stays out of sight
        return f"Lab(url={self.url!r}, root_dir={str(self.root_dir)!r})"


def find_lab(url: str = "") -> Lab:
    """The running JupyterLab to schedule in: the one at ``url``, or the only one running
    (``chatops lab``); found through the servers' runtime files, which hold their tokens.

    Raises ScheduleError when there is none (or several and no ``url``)."""
    import httpx
    from jupyter_server.serverapp import list_running_servers

    found = []
    for info in list_running_servers():
        lab = Lab(
            url=str(info.get("url", "")).rstrip("/"),
            token=str(info.get("token", "")),
            root_dir=Path(str(info.get("root_dir", "."))),
        )
        if url and lab.url != url.rstrip("/"):
            continue
        try:
            answer = httpx.get(f"{lab.url}/api/status", headers=_auth(lab), timeout=5)
        except httpx.HTTPError:
            continue
        if answer.status_code == 200:
            found.append(lab)
    if not found:
        where = f" at {url}" if url else ""
        raise ScheduleError(f"no running JupyterLab{where}; start one with: chatops lab")
    if len(found) > 1:
        raise ScheduleError(
            f"{len(found)} JupyterLabs are running; choose one with --url: "
            + ", ".join(lab.url for lab in found)
        )
    return found[0]


def _auth(lab: Lab) -> dict[str, str]:
    return {"Authorization": f"token {lab.token}"} if lab.token else {}


class Jobs:
    """The job definitions and runs of a JupyterLab's scheduler.

    Args:
        lab: the running JupyterLab (:func:`find_lab`).
    """

    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        import httpx

        try:
            answer = httpx.request(
                method,
                f"{self.lab.url}/scheduler/{path}",
                headers=_auth(self.lab),
                json=body,
                timeout=60,
            )
        except httpx.HTTPError as exc:
            raise ScheduleError(f"JupyterLab at {self.lab.url} did not answer: {exc}") from None
        if answer.status_code == 404:
            raise ScheduleError(
                f"JupyterLab at {self.lab.url} has no scheduler (jupyter-scheduler); "
                "start it with: chatops lab"
            )
        if answer.status_code >= 400:
            reason = answer.json().get("message", "") if _is_json(answer) else answer.text
            raise ScheduleError(
                f"the scheduler refused {method} {path}: {str(reason).strip()[:300]}"
            )
        return answer.json() if answer.content else None

    def definitions(self) -> list[dict[str, Any]]:
        """Every job definition, oldest first."""
        found: list[dict[str, Any]] = []
        token = ""
        while True:
            page = self._call("GET", "job_definitions" + (f"?next_token={token}" if token else ""))
            found += page.get("job_definitions", [])
            token = page.get("next_token") or ""
            if not token:
                return sorted(found, key=lambda d: int(d.get("create_time", 0)))

    def find(self, name: str) -> dict[str, Any]:
        """The job definition named ``name`` (or with that id)."""
        for d in self.definitions():
            if name in (d.get("name"), d.get("job_definition_id")):
                return d
        raise ScheduleError(f"no job definition named {name!r} (see: chatops schedule list)")

    def add(
        self,
        notebook: str,
        *,
        cron: str,
        timezone: str,
        parameters: dict[str, str],
        name: str = "",
        active: bool = True,
    ) -> str:
        """Create a job definition running scheduled notebook ``notebook``; returns its id.

        Args:
            notebook: ``audit-suite``, ``org-drift`` or ``analytics-report``.
            cron: five-field cron expression (:func:`check_cron`).
            timezone: IANA time zone of the cron expression.
            parameters: from :func:`definition_parameters`.
            name: the definition's name (default the notebook's); names are unique.
            active: False to create it paused.
        """
        scheduled = scheduled_notebook(notebook)
        name = name or scheduled.name
        if not (self.lab.root_dir / scheduled.path).is_file():
            raise ScheduleError(
                f"the JupyterLab at {self.lab.url} serves {self.lab.root_dir}, which has no "
                f"{scheduled.path}; start it with: chatops lab"
            )
        if any(d.get("name") == name for d in self.definitions()):
            raise ScheduleError(f"a job definition named {name!r} exists; remove it or give --name")
        environments = self._call("GET", "runtime_environments")
        created = self._call(
            "POST",
            "job_definitions",
            {
                "name": name,
                "input_uri": scheduled.path,
                "runtime_environment_name": environments[0]["name"] if environments else "python",
                "output_formats": ["ipynb"],
                "parameters": parameters,
                "schedule": check_cron(cron),
                "timezone": check_timezone(timezone),
            },
        )
        definition_id = str(created["job_definition_id"])
        if not active:
            self._call("PATCH", f"job_definitions/{definition_id}", {"active": False})
        return definition_id

    def remove(self, name: str) -> dict[str, Any]:
        """Delete the job definition named ``name`` (or with that id); returns it."""
        definition = self.find(name)
        self._call("DELETE", f"job_definitions/{definition['job_definition_id']}")
        return definition

    def run_now(self, name: str) -> str:
        """Start a run of the job definition named ``name`` now; returns the job's id."""
        definition = self.find(name)
        created = self._call(
            "POST", f"job_definitions/{definition['job_definition_id']}/jobs", {"parameters": None}
        )
        return str(created["job_id"])

    def job(self, job_id: str) -> dict[str, Any]:
        """A job (one run): its ``status`` (``IN_PROGRESS``, ``COMPLETED``, ``FAILED``, ...),
        ``status_message`` and files."""
        found: dict[str, Any] = self._call("GET", f"jobs/{job_id}")
        return found


def _is_json(answer: Any) -> bool:
    try:
        return isinstance(answer.json(), dict)
    except ValueError:
        return False
