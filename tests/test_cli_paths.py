"""Every file-system mistake on the command line: one line naming the path, exit 2, nothing written.

A read-only folder is a read-only tmpfs mounted in a mount namespace of the command's own when
the tests run as root (root writes through file modes), and a folder without write permission
otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_cli import ROOT, _one_line_error, chatops, chatops_here

IS_ROOT = os.geteuid() == 0


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "read-only"
    folder.mkdir()
    if not IS_ROOT:
        folder.chmod(0o555)
    elif shutil.which("unshare") is None:
        pytest.fail("running as root needs unshare (util-linux) to make a read-only folder")
    yield folder
    folder.chmod(0o755)


def in_read_only(
    folder: Path, *args: str, empty_file: str = ""
) -> subprocess.CompletedProcess[str]:
    """``chatops ARGS`` with ``folder`` read-only for it (and only for it).

    ``empty_file``: a file name that exists, empty, in the read-only folder.
    """
    if not IS_ROOT:
        if empty_file:
            folder.chmod(0o755)
            (folder / empty_file).write_text("")
            folder.chmod(0o555)
        return chatops(*args)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "EMPTY_FILE": empty_file}
    script = (
        'mount -t tmpfs -o size=64k none "$0" && '
        '{ [ -z "$EMPTY_FILE" ] || : > "$0/$EMPTY_FILE"; } && '
        'mount -o remount,ro "$0" && exec "$@"'
    )
    return subprocess.run(
        [
            "unshare",
            "--mount",
            "sh",
            "-c",
            script,
            str(folder),
            sys.executable,
            "-m",
            "chatops.cli",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def latin1_zuliprc(tmp_path: Path) -> Path:
    path = tmp_path / "latin1.zuliprc"
    path.write_bytes(
        "[api]\nemail=josé@example.com\nkey=x\nsite=http://127.0.0.1:9\n".encode("latin-1")
    )
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["whoami"],
        ["audit", "run", "--all"],
        ["data", "sync"],
        ["audit", "apply", "PLAN", "--yes"],
    ],
)
def test_a_zuliprc_that_is_not_utf8(
    command: list[str], latin1_zuliprc: Path, tmp_path: Path
) -> None:
    plan = tmp_path / "plan.jsonl"
    plan.write_text("")
    args = [str(plan) if a == "PLAN" else a for a in command]
    if command[0] == "data":
        args += ["--cache", str(tmp_path / "cache")]
    if command[:2] == ["audit", "run"]:
        args += ["--report-dir", str(tmp_path / "reports")]
    _one_line_error(
        chatops_here(*args, "--zuliprc", str(latin1_zuliprc)),
        f"zuliprc {latin1_zuliprc} is not UTF-8 text",
        "byte 0xe9",
    )
    assert not (tmp_path / "cache").exists()
    assert not (tmp_path / "reports").exists()


def test_an_impossible_report_folder() -> None:
    _one_line_error(
        chatops_here("audit", "run", "--all", "--report-dir", "/dev/null/x"),
        "--report-dir",
        "/dev/null/x: cannot write there: /dev/null is not a folder",
    )


def test_a_report_folder_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    _one_line_error(
        chatops_here("audit", "run", "--all", "--report-dir", str(tmp_path / "file" / "reports")),
        f"{tmp_path / 'file'} is not a folder",
    )


READ_ONLY_CASES = {
    "report": ["audit", "run", "--all", "--report-dir", "{ro}/reports"],
    "cache": ["data", "sync", "--cache", "{ro}/cache", "--site", "http://127.0.0.1:9"],
    "export": ["data", "export", "--format", "csv", "--out", "{ro}/out", "--cache", "{tmp}"],
    "plan": ["audit", "plan", "{tmp}", "-o", "{ro}/plan.jsonl"],
    "apply": ["audit", "apply", "{ro}/plan.jsonl", "--yes"],
    "import": ["data", "import-export", "{tmp}/export.tar.gz", "--cache", "{ro}/data"],
    "sandbox serve": ["sandbox", "serve", "--data", "{ro}/sandbox", "--port", "0"],
    "sandbox demo": ["sandbox", "demo", "--data", "{ro}"],
    "sandbox export": ["sandbox", "export", "--data", "{tmp}", "--out", "{ro}/org.tar.gz"],
    "lab": ["lab", "--dir", "{ro}/notebooks", "--no-browser"],
    "console": ["console", "--dir", "{ro}/notebooks", "--no-browser"],
    "analytics report": ["report", "analytics", "--out", "{ro}/report.html"],
    "analytics cache": [
        "report",
        "analytics",
        "--cache",
        "{ro}/cache",
        "--site",
        "http://127.0.0.1:9",
    ],
}


@pytest.mark.parametrize("case", sorted(READ_ONLY_CASES))
def test_an_unwritable_folder_is_named_before_anything_starts(
    case: str, read_only: Path, tmp_path: Path
) -> None:
    args = [
        a.replace("{ro}", str(read_only)).replace("{tmp}", str(tmp_path))
        for a in READ_ONLY_CASES[case]
    ]
    # apply: a plan that exists, in a folder its results cannot be written to
    proc = in_read_only(read_only, *args, empty_file="plan.jsonl" if case == "apply" else "")
    problem = "read-only file system" if IS_ROOT else "no permission to write"
    _one_line_error(proc, str(read_only), problem)


def test_an_unknown_option_is_named() -> None:
    _one_line_error(chatops_here("--bogus"), "unrecognized arguments: --bogus")
    _one_line_error(chatops_here("audit", "--bogus"), "--bogus")
    _one_line_error(chatops_here("data", "sync", "--bogus"), "--bogus")


def test_a_missing_command_lists_the_commands() -> None:
    _one_line_error(
        chatops_here(), "name a command: sandbox, audit, undo, lab, console, schedule, whoami, data"
    )
    _one_line_error(chatops_here("audit"), "name a command: list, run, plan, apply")
