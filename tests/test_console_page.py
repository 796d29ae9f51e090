"""``chatops console``: the page's notebook and the Voila command line.

The page itself is served by Voila and checked in Chromium by tests/browser/test_console_page.py.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import nbformat
import pytest

from chatops import ConfigError
from chatops.jupyter.console_page import (
    PAGE_FOLDER,
    new_token,
    page_arguments,
    page_environment,
    prepare_page,
    template_root,
    write_token_file,
)
from chatops.jupyter.lab import CONSOLE_NOTEBOOK, notebooks_root
from chatops.sandbox import Sandbox
from tests.test_cli import _one_line_error, chatops_here


def test_the_page_is_the_console_code_with_the_zuliprc_path_never_the_key(
    tmp_path: Path, sandbox: Sandbox
) -> None:
    zuliprc = sandbox.zuliprc("admin")
    page = prepare_page(tmp_path / "nb", zuliprc=str(zuliprc))
    assert page == tmp_path / "nb" / PAGE_FOLDER / CONSOLE_NOTEBOOK
    notebook = nbformat.read(page, as_version=4)
    # no markdown: the console notebook's text speaks of Run All, which a page has no use for
    assert {c.cell_type for c in notebook.cells} == {"code"}
    injected = [c for c in notebook.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1
    assert f"zuliprc = {json.dumps(str(zuliprc.resolve()))}" in injected[0].source
    assert sandbox.credentials("admin").api_key not in page.read_text()
    shipped = nbformat.read(notebooks_root() / CONSOLE_NOTEBOOK, as_version=4)
    code = [c.source for c in shipped.cells if c.cell_type == "code"]
    assert [c.source for c in notebook.cells if c not in injected] == code


def test_a_page_without_credentials_is_the_demo_console(tmp_path: Path) -> None:
    page = prepare_page(tmp_path / "nb")
    notebook = nbformat.read(page, as_version=4)
    assert not [c for c in notebook.cells if "injected-parameters" in c.metadata.get("tags", [])]


def test_missing_zuliprc_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        prepare_page(tmp_path / "nb", zuliprc=str(tmp_path / "missing.zuliprc"))
    assert not (tmp_path / "nb").exists()


def test_voila_listens_on_loopback_and_takes_its_token_from_an_owner_only_file(
    tmp_path: Path,
) -> None:
    page = tmp_path / "page.ipynb"
    args = page_arguments(page, port=8877, extra=["--x=1"])
    assert args[1:4] == ["-m", "voila", str(page.resolve())]
    assert "--Voila.ip=127.0.0.1" in args and "--port=8877" in args and args[-1] == "--x=1"
    # no token on the command line: Voila reads it from JUPYTER_TOKEN_FILE
    assert not [a for a in args if "token=" in a and "auto_token" not in a]
    assert "--Voila.auto_token=True" in args
    assert "--no-browser" in args and "--template=chatops" in args
    assert "--MappingKernelManager.cull_idle_timeout=300" in args
    shorter = page_arguments(page, port=8877, idle_timeout=6)
    assert "--MappingKernelManager.cull_idle_timeout=6" in shorter
    assert "--MappingKernelManager.cull_interval=2" in shorter
    # an option given after -- replaces the default (traitlets refuses one given twice)
    replaced = page_arguments(page, port=1, extra=["--MappingKernelManager.cull_interval=9"])
    assert [a for a in replaced if "cull_interval" in a] == [
        "--MappingKernelManager.cull_interval=9"
    ]
    token_file = write_token_file(tmp_path, "t0k")
    assert token_file.read_text() == "t0k"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    env = page_environment(token_file)
    assert env["JUPYTER_TOKEN_FILE"] == str(token_file) and "JUPYTER_TOKEN" not in env
    assert env["JUPYTER_PATH"].split(os.pathsep)[0] == str(template_root())
    assert (template_root() / "voila" / "templates" / "chatops" / "index.html.j2").is_file()
    assert len({new_token() for _ in range(3)}) == 3 and len(new_token()) >= 32


def test_cli_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    _one_line_error(
        chatops_here("console", "--dir", str(tmp_path / "nb"), "--zuliprc", str(tmp_path / "none")),
        "does not exist",
    )
    _one_line_error(chatops_here("console", "--port", "70000"), "70000")
    _one_line_error(
        chatops_here("console", "--dir", str(tmp_path / "nb2"), "--", "--token="),
        "empty token",
    )
