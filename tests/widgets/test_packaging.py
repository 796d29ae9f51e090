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


def test_the_models_work_without_ipywidgets() -> None:
    """A script using a panel's logic imports no widget library."""
    probe = (
        "import sys\n"
        "import chatops.widgets.folders_model, chatops.widgets.linkifiers_model\n"
        "import chatops.widgets.groups_model, chatops.widgets.invitations_model\n"
        "import chatops.widgets.status_model\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ipywidgets', 'IPython')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"


def test_a_model_acts_from_a_script(tmp_path: Path) -> None:
    """FoldersModel over a sandbox, with no panel: checks, request, outcome in words."""
    import chatops
    from chatops.sandbox import Sandbox
    from chatops.widgets._model import FieldError
    from chatops.widgets.folders_model import FoldersModel

    with Sandbox.start(tmp_path / "org", size="small", seed=5) as sandbox:
        with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
            model = FoldersModel(client)
            model.fetch()
            with pytest.raises(FieldError, match="needs a name"):
                model.create_folder("  ")
            folder_id = model.create_folder("Scripted", description="From a script")
            assert model.status.kind == "ok"
            assert model.status.text == "Created the channel folder 'Scripted'."
            assert model.find(folder_id) is not None  # fetched again after the change
            assert {f.name for f in client.channels.folders()} >= {"Scripted"}
