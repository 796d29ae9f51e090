"""``chatops console``: the admin console as a web page of its own, served by Voila on
127.0.0.1 behind a token, for admins who never open JupyterLab.

prepare_page(folder, zuliprc=...)   the page's notebook: the console notebook's code, parameters
                                    injected (only a zuliprc's path, never the key)
page_arguments(page, port=..., token=...)   the Voila command line
"""

from __future__ import annotations

import json
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

from ._exceptions import ConfigError
from .lab import CONSOLE_NOTEBOOK, notebooks_root, write_parameterized

__all__ = ["PAGE_FOLDER", "new_token", "page_arguments", "prepare_page"]

#: Where, inside the notebook folder, the page's notebook is written (hidden from JupyterLab).
PAGE_FOLDER = ".chatops-console"


def new_token() -> str:
    """A token for the page's address (what ``chatops lab``'s JupyterLab makes for itself)."""
    return secrets.token_hex(24)


def prepare_page(folder: Path, *, zuliprc: str = "", site: str = "") -> Path:
    """Write the page's notebook into ``folder`` and return its path: the console notebook's
    code cells only (the page shows what they display; its markdown speaks of Run All), with
    ``zuliprc`` or ``site`` injected as parameters as ``chatops lab`` does."""
    import nbformat

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
    notebook = nbformat.read(notebooks_root() / CONSOLE_NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]
    notebook.cells = [c for c in notebook.cells if c.cell_type == "code"]
    target = folder / PAGE_FOLDER / CONSOLE_NOTEBOOK
    target.parent.mkdir(parents=True, exist_ok=True)
    source = target.with_name("template.ipynb") if parameters else target
    source.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if parameters:
        write_parameterized(source, target, parameters)
        source.unlink()
    return target


def page_arguments(
    page: Path,
    *,
    port: int,
    token: str,
    open_browser: bool = True,
    extra: Sequence[str] = (),
) -> list[str]:
    """The command that serves ``page`` with Voila on 127.0.0.1, behind ``token``."""
    args = [
        sys.executable,
        "-m",
        "voila",
        str(page.resolve()),
        "--Voila.ip=127.0.0.1",
        f"--port={port}",
        "--Voila.port_retries=0",
        f"--token={token}",
        # no page of the server lists or serves other files
        f"--Voila.root_dir={page.parent.resolve()}",
        "--theme=light",
    ]
    if not open_browser:
        args.append("--no-browser")
    args.extend(extra)
    return args
