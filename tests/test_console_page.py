"""``chatops console``: the page's notebook and the Voila command line.

The page itself is served by Voila and checked in Chromium by tests/browser/test_console_page.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from chatops import ConfigError
from chatops.console_page import PAGE_FOLDER, new_token, page_arguments, prepare_page
from chatops.lab import CONSOLE_NOTEBOOK, notebooks_root
from chatops.sandbox import Sandbox
from tests.test_cli import _one_line_error, chatops


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


def test_voila_listens_on_loopback_behind_the_token(tmp_path: Path) -> None:
    page = tmp_path / "page.ipynb"
    args = page_arguments(page, port=8877, token="t0k", open_browser=False, extra=["--x=1"])
    assert args[1:4] == ["-m", "voila", str(page.resolve())]
    assert "--Voila.ip=127.0.0.1" in args and "--port=8877" in args
    assert "--token=t0k" in args and "--no-browser" in args and args[-1] == "--x=1"
    assert len({new_token() for _ in range(3)}) == 3 and len(new_token()) >= 32


def test_cli_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    _one_line_error(
        chatops("console", "--dir", str(tmp_path / "nb"), "--zuliprc", str(tmp_path / "none")),
        "does not exist",
    )
    _one_line_error(chatops("console", "--port", "70000"), "70000")
    _one_line_error(
        chatops("console", "--dir", str(tmp_path / "nb2"), "--", "--token="),
        "empty token",
    )
