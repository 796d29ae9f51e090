"""The panels ship inside the ``chatops`` package: the wheel installs no top-level ``widgets``."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from hatchling.builders.wheel import WheelBuilder

    out = tmp_path_factory.mktemp("wheel")
    built = list(WheelBuilder(str(REPO)).build(directory=str(out), versions=["standard"]))
    assert len(built) == 1
    return Path(built[0])


def test_wheel_holds_only_the_chatops_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert top == {"chatops", "chatops_workbench-0.1.0.dist-info"}
    assert "chatops/widgets/__init__.py" in names
    assert "chatops/widgets/console.py" in names
    assert not [n for n in names if n.startswith("widgets/")]


def test_only_the_wheel_on_the_path_has_no_widgets_module(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    # -I -S: no PYTHONPATH, no site-packages (the development checkout is on those)
    probe = (
        "import importlib.util, sys; sys.path.insert(0, sys.argv[1]); "
        "print(importlib.util.find_spec('widgets')); "
        "print(importlib.util.find_spec('chatops').origin)"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe, str(site)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    assert out[0] == "None"
    assert out[1] == str(site / "chatops" / "__init__.py")


def test_panels_import_from_chatops() -> None:
    from chatops.widgets import AdminConsole, ChannelFoldersPanel

    assert AdminConsole.__module__ == "chatops.widgets.console"
    assert ChannelFoldersPanel.__module__.startswith("chatops.widgets.")
