"""``chatops lab``: JupyterLab on a folder of chatops notebooks, opening the admin console.

prepare(folder, zuliprc=...)      copy the notebooks in, never over the admin's own copies
lab_arguments(folder, ...)        the JupyterLab command line
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from .._exceptions import ConfigError
from .._resources import notebooks_root
from .lab_ready import RUN_VARIABLE

__all__ = [
    "CONSOLE_NOTEBOOK",
    "LAB_OVERRIDES",
    "lab_arguments",
    "lab_environment",
    "lab_settings_dir",
    "notebooks_root",
    "prepare",
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


def prepare(folder: Path, *, zuliprc: str = "", site: str = "") -> Path:
    """Copy the notebooks into ``folder`` and return the console notebook's path.

    Notebooks already there are kept (they may hold the admin's work), except the console
    notebook when ``zuliprc`` or ``site`` is given: it is written again with those values as
    papermill-style injected parameters. Only the zuliprc's path goes into the notebook.
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
    (settings / "overrides.json").write_text(json.dumps(LAB_OVERRIDES, indent=1) + "\n")
    for notebook in sorted(source.rglob("*.ipynb")):
        relative = notebook.relative_to(source)
        if any(part.startswith(".") for part in relative.parts):
            continue
        target = folder / relative
        if target.exists() and not (parameters and relative.as_posix() == CONSOLE_NOTEBOOK):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if relative.as_posix() == CONSOLE_NOTEBOOK and parameters:
            write_parameterized(notebook, target, parameters)
        else:
            shutil.copyfile(notebook, target)
    return folder / CONSOLE_NOTEBOOK


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
    # papermill records the values in the metadata too; the notebook stays a clean template
    notebook.metadata.pop("papermill", None)
    tmp = target.with_name(target.name + ".part")
    tmp.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(target)


def lab_environment(*, run_console: bool = True) -> dict[str, str]:
    """The environment JupyterLab runs in: this one, plus the notebook to run before opening."""
    env = dict(os.environ)
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
    ]
    if not open_browser:
        args.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--allow-root")
    args.extend(extra)
    return args
