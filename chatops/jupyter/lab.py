"""``chatops lab``: JupyterLab on a folder of chatops notebooks, opening the admin console.

prepare(folder, zuliprc=...)      copy the notebooks in; newer versions replace unchanged copies
scheduler_dir(folder)             where the scheduler keeps its job definitions and runs
lab_arguments(folder, ...)        the JupyterLab command line
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .._exceptions import ConfigError
from .._resources import notebooks_root
from .lab_ready import RUN_VARIABLE
from .scheduled import LAB_CWD_VARIABLE, LAB_ZULIPRC_VARIABLE

__all__ = [
    "CONSOLE_NOTEBOOK",
    "LABEXTENSIONS",
    "LAB_OVERRIDES",
    "lab_arguments",
    "lab_environment",
    "lab_settings_dir",
    "notebooks_root",
    "prepare",
    "scheduler_dir",
    "write_parameterized",
]

CONSOLE_NOTEBOOK = "admin_console.ipynb"

#: JupyterLab settings the console's lab starts with (the admin can still change them): no
#: "get notified about Jupyter news?" toast over the console, no update checks.
LAB_OVERRIDES: dict[str, dict[str, object]] = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}


def lab_settings_dir(folder: Path) -> Path:
    """The lab's application settings (``overrides.json``), kept in a hidden folder of ``folder``."""
    return folder.resolve() / ".chatops-lab" / "settings"


#: chatops's own JupyterLab extensions (prebuilt, loaded from here: nothing to install)
LABEXTENSIONS = Path(__file__).resolve().parent / "labextensions"


def scheduler_dir(folder: Path) -> Path:
    """The scheduler's database and its runs' files (inputs, output notebooks, logs), kept in a
    hidden folder of ``folder``: the job definitions stay with the notebooks they run."""
    return folder.resolve() / ".chatops-lab" / "scheduler"


def prepare(
    folder: Path, *, zuliprc: str = "", site: str = "", say: Callable[[str], None] | None = None
) -> Path:
    """Copy the notebooks into ``folder`` and return the console notebook's path.

    A notebook already there is replaced by the package's version when it differs and the
    admin has not changed it since it was copied (JupyterLab's saves of outputs are not
    changes: only the cells' sources count); a notebook the admin changed is kept, and
    ``say`` is told where the package's newer version was put beside it. The console notebook
    is written with ``zuliprc`` or ``site`` as papermill-style injected parameters when they
    are given (into the admin's own copy when it was changed). Only the zuliprc's path goes
    into the notebook.
    """
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{folder} is not a folder")
    parameters: dict[str, str] = {}
    if zuliprc:
        path = Path(zuliprc).expanduser().resolve()
        if not path.is_file():
            raise ConfigError(f"zuliprc {path} does not exist")
        parameters["zuliprc"] = str(path)
    if site:
        parameters["site"] = site
    source = notebooks_root()
    folder.mkdir(parents=True, exist_ok=True)
    settings = lab_settings_dir(folder)
    settings.mkdir(parents=True, exist_ok=True)
    # the runs' files hold what the audits found: the owner's only, as a report folder is
    scheduler_dir(folder).mkdir(mode=0o700, parents=True, exist_ok=True)
    scheduler_dir(folder).chmod(0o700)
    (settings / "overrides.json").write_text(json.dumps(LAB_OVERRIDES, indent=1) + "\n")
    copied = _copied(folder)
    for notebook in sorted(source.rglob("*.ipynb")):
        relative = notebook.relative_to(source)
        if any(part.startswith(".") for part in relative.parts):
            continue
        name = relative.as_posix()
        target = folder / relative
        given = parameters if name == CONSOLE_NOTEBOOK else {}
        shipped = sources_digest(notebook)
        if target.exists() and sources_digest(target) not in (copied.get(name), shipped):
            # the admin's own work: kept; the package's version beside it, and said so
            if given:
                write_parameterized(target, target, given)
            if shipped != copied.get(name):
                newer = folder / ".chatops-lab" / "newer" / relative
                newer.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(notebook, newer)
                if say is not None:
                    say(f"Kept your changed {name}; this version's is at {newer}")
            continue
        if target.exists() and sources_digest(target) == shipped and not given:
            copied[name] = shipped
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if given:
            write_parameterized(notebook, target, given)
        else:
            shutil.copyfile(notebook, target)
        copied[name] = shipped
    (folder / ".chatops-lab" / "copied.json").write_text(json.dumps(copied, indent=1) + "\n")
    return folder / CONSOLE_NOTEBOOK


def sources_digest(path: Path) -> str:
    """A digest of a notebook's cell sources, injected parameters left out: what the admin
    writes, not what a run or a save adds (outputs, counts, metadata). "" when it is not a
    notebook."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = json.dumps(
            [
                (
                    c["cell_type"],
                    "".join(c["source"]) if isinstance(c["source"], list) else c["source"],
                )
                for c in cells
                if "injected-parameters" not in c.get("metadata", {}).get("tags", [])
            ]
        )
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return hashlib.sha256(text.encode()).hexdigest()


def _copied(folder: Path) -> dict[str, str]:
    """The digest of each notebook as it was copied into ``folder`` last."""
    try:
        found = json.loads((folder / ".chatops-lab" / "copied.json").read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def write_parameterized(source: Path, target: Path, parameters: dict[str, str]) -> None:
    """Write ``source`` to ``target`` with ``parameters`` injected as papermill does (none: a
    plain copy of its cells)."""
    import nbformat
    from papermill.parameterize import parameterize_notebook

    notebook = nbformat.read(source, as_version=4)  # type: ignore[no-untyped-call]
    # papermill expects the metadata its own runs add: every cell's tags, its own section
    for cell in notebook.cells:
        cell.metadata.setdefault("tags", [])
    notebook.metadata.setdefault("papermill", {})
    notebook = parameterize_notebook(notebook, parameters)
    for cell in notebook.cells:  # the injected values stay out of sight with the other code
        if "injected-parameters" in cell.metadata.get("tags", []):
            cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
    # papermill records the values in the metadata too; the notebook stays a clean template
    notebook.metadata.pop("papermill", None)
    tmp = target.with_name(target.name + ".part")
    tmp.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(target)


def lab_environment(*, run_console: bool = True, zuliprc: str = "") -> dict[str, str]:
    """The environment JupyterLab runs in: this one, plus the notebook to run before opening,
    where it was started and the path of its ``zuliprc`` (what scheduled notebooks act with
    when they are given no credentials)."""
    env = dict(os.environ)
    # scheduled notebooks take relative report folders from here, as chatops audit run does
    env[LAB_CWD_VARIABLE] = os.getcwd()
    if zuliprc:
        env[LAB_ZULIPRC_VARIABLE] = str(Path(zuliprc).expanduser().resolve())
    else:
        env.pop(LAB_ZULIPRC_VARIABLE, None)
    if run_console:
        env[RUN_VARIABLE] = CONSOLE_NOTEBOOK
    else:
        env.pop(RUN_VARIABLE, None)
    return env


def lab_arguments(
    folder: Path,
    *,
    port: int,
    open_browser: bool = True,
    extra: Sequence[str] = (),
) -> list[str]:
    """The command that serves ``folder`` in JupyterLab on 127.0.0.1, opening the console."""
    args = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={folder.resolve()}",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--LabApp.default_url=/lab/tree/{CONSOLE_NOTEBOOK}",
        # no calls to the outside for news and update checks
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        # overrides.json there turns the news toast off (written by prepare)
        f"--LabApp.app_settings_dir={lab_settings_dir(folder)}",
        # runs the console notebook in the server's own kernel before the browser opens it
        # (chatops.jupyter.lab_ready; the notebook is named by CHATOPS_LAB_RUN)
        "--ServerApp.jpserver_extensions=chatops.jupyter.lab_ready=True",
        # the scheduler (jupyter-scheduler: Create a notebook job, the Notebook Jobs panel,
        # chatops schedule) on, with its job definitions and runs kept with the notebooks
        "--ServerApp.jpserver_extensions=jupyter_scheduler=True",
        f"--SchedulerApp.db_url=sqlite:///{scheduler_dir(folder) / 'scheduler.sqlite'}",
        f"--Scheduler.staging_path={scheduler_dir(folder) / 'runs'}",
        # its Create a notebook job form lists the notebook's parameters with their defaults
        f"--LabApp.extra_labextensions_path={LABEXTENSIONS}",
    ]
    if not open_browser:
        args.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--allow-root")
    args.extend(extra)
    return args
