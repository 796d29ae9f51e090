"""``chatops console``: the admin console as a web page of its own, served by Voila on
127.0.0.1 behind a token, for admins who never open JupyterLab.

prepare_page(folder, zuliprc=...)   the page's notebook: the console notebook's code, parameters
                                    injected (only a zuliprc's path, never the key)
serve_page(page, port=..., token=...)   Voila in a child process: the token in an owner-only
                                    file (never on a command line), idle kernels shut down,
                                    every asset served from 127.0.0.1
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._exceptions import ConfigError
from .._files import new_dir, write_private_text
from .lab import CONSOLE_NOTEBOOK, notebooks_root, write_parameterized

__all__ = [
    "KERNEL_IDLE_TIMEOUT",
    "PAGE_FOLDER",
    "new_token",
    "page_arguments",
    "page_environment",
    "prepare_page",
    "serve_page",
]

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
    new_dir(target.parent)
    source = target.with_name("template.ipynb") if parameters else target
    write_private_text(source, json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    if parameters:
        write_parameterized(source, target, parameters)
        source.unlink()
    return target


#: a kernel whose page is gone is shut down after this many idle seconds (a page that is
#: open keeps its kernel: its connection counts as use)
KERNEL_IDLE_TIMEOUT = 300
KERNEL_CULL_INTERVAL = 30


def template_root() -> Path:
    """The folder holding the page's Voila template (``voila/templates/chatops``), for
    ``JUPYTER_PATH``: Voila's own template takes Font Awesome from a CDN, this one serves it."""
    return Path(__file__).resolve().parent / "templates"


def page_arguments(
    page: Path,
    *,
    port: int,
    idle_timeout: int = KERNEL_IDLE_TIMEOUT,
    extra: Sequence[str] = (),
) -> list[str]:
    """The command that serves ``page`` with Voila on 127.0.0.1. It holds no token: Voila
    reads it from the file :func:`page_environment` names (a command line is visible to every
    account on the machine, in ``ps``)."""
    args = [
        sys.executable,
        "-m",
        "voila",
        str(page.resolve()),
        "--Voila.ip=127.0.0.1",
        f"--port={port}",
        "--Voila.port_retries=0",
        # the token comes from JUPYTER_TOKEN_FILE, never from here
        "--Voila.auto_token=True",
        # no page of the server lists or serves other files
        f"--Voila.root_dir={page.parent.resolve()}",
        "--theme=light",
        "--template=chatops",
        # the browser is opened by chatops console, with the token, through an owner-only file
        "--no-browser",
    ]
    # each visit starts a kernel; one whose page was closed is shut down once idle (options
    # the caller gives after -- replace these: traitlets refuses an option given twice)
    given = {a.split("=", 1)[0] for a in extra if a.startswith("--")}
    for option, value in (
        ("--MappingKernelManager.cull_idle_timeout", idle_timeout),
        (
            "--MappingKernelManager.cull_interval",
            max(1, min(KERNEL_CULL_INTERVAL, idle_timeout // 3)),
        ),
        ("--MappingKernelManager.cull_connected", False),
    ):
        if option not in given:
            args.append(f"{option}={value}")
    args.extend(extra)
    return args


def write_token_file(folder: Path, token: str) -> Path:
    """``folder/token``, owner-only, holding ``token`` (and nothing else: Voila reads it whole)."""
    return write_private_text(folder / "token", token)


def page_environment(token_file: Path) -> dict[str, str]:
    """The environment Voila runs in: this one, the token file, and the page's template."""
    env = {k: v for k, v in os.environ.items() if k != "JUPYTER_TOKEN"}
    env["JUPYTER_TOKEN_FILE"] = str(token_file)
    paths = [str(template_root()), *filter(None, env.get("JUPYTER_PATH", "").split(os.pathsep))]
    env["JUPYTER_PATH"] = os.pathsep.join(paths)
    return env


def open_in_browser(url: str, folder: Path) -> None:
    """Open ``url`` (it carries the token) in the default browser through an owner-only page
    that redirects to it, so the token is not on the browser's command line either."""
    import webbrowser

    redirect = write_private_text(
        folder / "open.html",
        f'<!doctype html><meta http-equiv="refresh" content="0;url={html.escape(url)}">'
        f'<a href="{html.escape(url)}">Open the admin console</a>\n',
    )
    with contextlib.suppress(webbrowser.Error):
        webbrowser.open(redirect.as_uri())


def wait_until_listening(port: int, process: subprocess.Popen[bytes], timeout: float) -> bool:
    """Whether 127.0.0.1:``port`` accepts connections before ``timeout`` s or the process
    ends."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.2)
    return False


def serve_page(
    page: Path,
    *,
    port: int,
    token: str,
    open_browser: bool,
    idle_timeout: int = KERNEL_IDLE_TIMEOUT,
    extra: Sequence[str] = (),
    say: Callable[[str], None],
) -> int:
    """Serve ``page`` with Voila behind ``token`` until interrupted; returns Voila's status.

    The token goes to Voila in an owner-only file, removed when the page stops.
    """
    folder = page.parent
    token_file = write_token_file(folder, token)
    process = subprocess.Popen(
        page_arguments(page, port=port, idle_timeout=idle_timeout, extra=extra),
        env=page_environment(token_file),
    )
    # stopped by SIGTERM (kill, systemd) as by Ctrl-C: Voila and its kernels stop with the page
    previous = _on_sigterm(_interrupt)
    try:
        url = f"http://127.0.0.1:{port}/?token={token}"
        if wait_until_listening(port, process, timeout=120):
            say(f"The admin console at {url}")
            say("(anyone with this address can act as the console's account; keep it to yourself)")
            if open_browser:
                open_in_browser(url, folder)
        return process.wait()
    except KeyboardInterrupt:
        # SIGTERM: the server shuts its kernels down and exits (on SIGINT without a terminal
        # it would wait for an answer to "Shutdown this Jupyter server?")
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait()
    finally:
        _on_sigterm(previous)
        with contextlib.suppress(FileNotFoundError):
            token_file.unlink()
        with contextlib.suppress(FileNotFoundError):
            (folder / "open.html").unlink()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _on_sigterm(handler: Any) -> Any:
    """Handle SIGTERM with ``handler``; returns the handler it had (None off the main thread,
    where Python cannot set one)."""
    if handler is None or threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)
