"""``chatops lab``: the notebook folder it prepares and the JupyterLab command it runs.

JupyterLab itself is started through ``chatops lab`` by the browser tests (tests/browser).
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from chatops import ConfigError
from chatops.jupyter.lab import (
    CONSOLE_NOTEBOOK,
    lab_arguments,
    lab_environment,
    notebooks_root,
    prepare,
)
from chatops.jupyter.lab_ready import RUN_VARIABLE
from chatops.sandbox import Sandbox
from tests.test_cli import _one_line_error, chatops_here


def test_prepare_copies_every_notebook(tmp_path: Path) -> None:
    console = prepare(tmp_path / "nb")
    assert console == tmp_path / "nb" / CONSOLE_NOTEBOOK
    shipped = sorted(p.relative_to(notebooks_root()) for p in notebooks_root().rglob("*.ipynb"))
    copied = sorted(p.relative_to(tmp_path / "nb") for p in (tmp_path / "nb").rglob("*.ipynb"))
    assert copied == shipped and Path("audits/org_overview.ipynb") in copied


def test_prepare_keeps_the_admins_own_copies(tmp_path: Path) -> None:
    folder = tmp_path / "nb"
    prepare(folder)
    mine = folder / "audits" / "bots.ipynb"
    mine.write_text('{"edited": true}')
    prepare(folder)
    assert mine.read_text() == '{"edited": true}'


def _as_copied_by_an_older_version(folder: Path, name: str) -> Path:
    """Make ``name`` in ``folder`` look as an older package's version copied it, unchanged."""
    import chatops.jupyter.lab as lab

    target = folder / name
    notebook = nbformat.read(target, as_version=4)
    notebook.cells[0].source += "\n\n(an older version's words)"
    nbformat.write(notebook, target)
    copied = json.loads((folder / ".chatops-lab" / "copied.json").read_text())
    copied[name] = lab.sources_digest(target)
    (folder / ".chatops-lab" / "copied.json").write_text(json.dumps(copied))
    return target


def test_a_newer_package_replaces_a_copy_nobody_changed_and_tells_of_one_changed(
    tmp_path: Path,
) -> None:
    """Console issue: JupyterLab's autosave put the console notebook in the admin's folder,
    after which a newer version of the package never replaced it."""
    folder = tmp_path / "nb"
    prepare(folder)
    shipped = (notebooks_root() / CONSOLE_NOTEBOOK).read_text()
    # saved by JupyterLab with outputs and counts: not a change of the admin's
    console = folder / CONSOLE_NOTEBOOK
    saved = nbformat.read(console, as_version=4)
    saved.cells[-1].outputs = [nbformat.v4.new_output("stream", text="hello")]
    saved.cells[-1].execution_count = 3
    nbformat.write(saved, console)
    old = _as_copied_by_an_older_version(folder, CONSOLE_NOTEBOOK)
    said: list[str] = []
    prepare(folder, say=said.append)
    assert old.read_text() == shipped and said == []  # replaced by this version's
    # changed by the admin: kept, and this version's put beside it
    edited = _as_copied_by_an_older_version(folder, "audits/bots.ipynb")
    mine = nbformat.read(edited, as_version=4)
    mine.cells.append(nbformat.v4.new_code_cell("my_own_check()"))
    nbformat.write(mine, edited)
    prepare(folder, say=said.append)
    assert "my_own_check()" in edited.read_text()
    newer = folder / ".chatops-lab" / "newer" / "audits" / "bots.ipynb"
    assert said == [f"Kept your changed audits/bots.ipynb; this version's is at {newer}"]
    assert newer.read_text() == (notebooks_root() / "audits" / "bots.ipynb").read_text()


def test_zuliprc_is_injected_as_a_parameter_never_the_key(tmp_path: Path, sandbox: Sandbox) -> None:
    zuliprc = sandbox.zuliprc("admin")
    console = prepare(tmp_path / "nb", zuliprc=str(zuliprc))
    notebook = nbformat.read(console, as_version=4)
    injected = [c for c in notebook.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1
    assert f"zuliprc = {json.dumps(str(zuliprc.resolve()))}" in injected[0].source
    text = console.read_text()
    assert sandbox.credentials("admin").api_key not in text
    # a later start with other values writes the console notebook again
    prepare(tmp_path / "nb", site="http://127.0.0.1:9")
    again = nbformat.read(console, as_version=4)
    sources = [c.source for c in again.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert sources == ['# Parameters\nsite = "http://127.0.0.1:9"\n']


def test_missing_zuliprc_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        prepare(tmp_path / "nb", zuliprc=str(tmp_path / "missing.zuliprc"))
    assert not (tmp_path / "nb").exists()


def test_cli_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    _one_line_error(
        chatops_here("lab", "--dir", str(tmp_path / "nb"), "--zuliprc", str(tmp_path / "none")),
        "does not exist",
    )
    _one_line_error(chatops_here("lab", "--port", "70000"), "70000")
    afile = tmp_path / "file"
    afile.write_text("")
    _one_line_error(chatops_here("lab", "--dir", str(afile)), "is not a folder")


def test_lab_listens_on_loopback_and_opens_the_console(tmp_path: Path) -> None:
    args = lab_arguments(tmp_path, port=8899, open_browser=False, extra=["--x=1"])
    assert args[1:3] == ["-m", "jupyterlab"]
    assert "--ServerApp.ip=127.0.0.1" in args and "--ServerApp.port=8899" in args
    assert f"--LabApp.default_url=/lab/tree/{CONSOLE_NOTEBOOK}" in args
    assert "--no-browser" in args and args[-1] == "--x=1"
    # the console notebook is run by the server's own kernel before the page opens it
    assert "--ServerApp.jpserver_extensions=chatops.jupyter.lab_ready=True" in args
    assert lab_environment()[RUN_VARIABLE] == CONSOLE_NOTEBOOK
    assert RUN_VARIABLE not in lab_environment(run_console=False)
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in args


def test_the_lab_starts_without_the_news_toast(tmp_path: Path) -> None:
    prepare(tmp_path / "nb")
    args = lab_arguments(tmp_path / "nb", port=8899, open_browser=False)
    settings = tmp_path.resolve() / "nb" / ".chatops-lab" / "settings"
    assert f"--LabApp.app_settings_dir={settings}" in args
    overrides = json.loads((settings / "overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    # the hidden settings folder is not copied as a notebook nor shown as one
    assert not list((tmp_path / "nb" / ".chatops-lab").rglob("*.ipynb"))


@pytest.mark.slow
def test_the_console_notebook_is_run_before_it_opens(tmp_path: Path, sandbox: Sandbox) -> None:
    """``chatops lab`` runs the console in a kernel of the server's own session and writes the
    outputs (signed as trusted, so JupyterLab shows live widgets) before opening the page."""
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    token = os.urandom(8).hex()
    root = tmp_path / "nb"
    log = (tmp_path / "lab.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chatops.cli",
            "lab",
            "--dir",
            str(root),
            "--port",
            str(port),
            "--no-browser",
            "--zuliprc",
            str(sandbox.zuliprc("admin")),
            "--",
            f"--IdentityProvider.token={token}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "MPLBACKEND": "agg"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        outputs: list[dict[str, object]] = []
        while not outputs:
            assert process.poll() is None, (tmp_path / "lab.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "the console notebook was not run within 180 s"
            time.sleep(0.5)
            try:
                answer = httpx.get(
                    f"{url}/api/contents/{CONSOLE_NOTEBOOK}", params={"token": token}
                )
            except httpx.TransportError:
                continue
            if answer.status_code == 200:
                cells = answer.json()["content"]["cells"]
                outputs = [o for c in cells if c["cell_type"] == "code" for o in c["outputs"]]
        kinds = [o["output_type"] for o in outputs]
        assert kinds == ["execute_result"], outputs
        assert "application/vnd.jupyter.widget-view+json" in outputs[0]["data"]  # type: ignore[operator]
        sessions = httpx.get(f"{url}/api/sessions", params={"token": token}).json()
        assert [s["path"] for s in sessions] == [CONSOLE_NOTEBOOK]
        notebook = nbformat.read(root / CONSOLE_NOTEBOOK, as_version=4)
        from nbformat.sign import NotebookNotary

        # trusted, as if run in the browser: JupyterLab renders the widgets, not their text
        assert NotebookNotary().check_signature(notebook)
        assert "ran admin_console.ipynb" in (tmp_path / "lab.log").read_text()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.mark.slow
def test_no_command_line_holds_the_lab_token(tmp_path: Path) -> None:
    """The token JupyterLab makes for itself is in its log (and the browser's redirect file),
    never on a command line: ``ps`` shows every account on the machine every command line."""
    import os
    import re
    import signal
    import subprocess
    import sys
    import time

    import psutil

    from tests.browser.conftest import free_port

    log_path = tmp_path / "lab.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "chatops.cli",
                "lab",
                "--dir",
                str(tmp_path / "nb"),
                "--port",
                str(free_port()),
                "--no-browser",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "MPLBACKEND": "agg"},
        )
        try:
            deadline = time.monotonic() + 120
            found = None
            while found is None:
                assert process.poll() is None, log_path.read_text()[-2000:]
                assert time.monotonic() < deadline, "JupyterLab did not print its address"
                time.sleep(0.3)
                found = re.search(r"\?token=([0-9a-f]{16,})", log_path.read_text())
            token = found.group(1)
            lines = []
            for p in psutil.process_iter():
                try:
                    lines.append(" ".join(p.cmdline()))
                except (psutil.AccessDenied, psutil.NoSuchProcess, psutil.ZombieProcess):
                    continue
            assert any("jupyterlab" in line or "jupyter-lab" in line for line in lines)
            assert [line for line in lines if token in line] == []
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()


def test_the_console_notebook_shows_the_console_not_its_code(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    """Console issue: the console sat under its code cells. Every code cell of the console
    notebook, the injected parameters too, opens with its source hidden."""
    console = prepare(tmp_path / "nb", zuliprc=str(sandbox.zuliprc("admin")))
    notebook = nbformat.read(console, as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert len(code) == 3  # the injected parameters, the parameters, the console
    assert [c.metadata.get("jupyter", {}).get("source_hidden") for c in code] == [True] * 3
