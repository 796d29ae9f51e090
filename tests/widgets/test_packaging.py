"""The panels' source is ``widgets/`` at the top of the repository, installed as ``chatops.widgets``
(in a wheel and in an editable install); no top-level ``widgets`` is installed.

The slow tests install a built wheel into a fresh virtual environment, whose dependencies are the
running environment's site-packages folder added as a plain path (so that whatever install of
chatops the running environment has plays no part), and probe it from a folder that is not the
repository's root.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: import widgets (fails), import the console (works), and where chatops.widgets comes from
PROBE = """
import importlib, sys
try:
    import widgets
except ModuleNotFoundError:
    print("no widgets")
else:
    print("widgets from", widgets.__file__)
from chatops.widgets import AdminConsole
print(AdminConsole.__module__)
print(importlib.import_module("chatops.widgets").__file__)
"""


def _build(version: str, out: Path) -> Path:
    from hatchling.builders.wheel import WheelBuilder

    built = list(WheelBuilder(str(REPO)).build(directory=str(out), versions=[version]))
    assert len(built) == 1
    return Path(built[0])


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build("standard", tmp_path_factory.mktemp("wheel"))


def _installed(wheel: Path, venv: Path) -> Path:
    """A fresh virtual environment with ``wheel`` installed; returns its site-packages folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # read before the install's own .pth files, which import editables when editable
    (site / "_0_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
        + ["--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)],
        check=True,
    )
    return site


def _probe(venv: Path, where: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", PROBE],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


def test_wheel_holds_only_the_chatops_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert top == {"chatops", "chatops_workbench-0.1.0.dist-info"}
    sources = sorted(p.relative_to(REPO / "widgets").as_posix() for p in REPO.glob("widgets/*.py"))
    assert sorted(n.removeprefix("chatops/widgets/") for n in names if "/widgets/" in n) == sources
    assert len(names) == len(set(names))  # taken once, not also through the link
    assert "chatops/_notebooks/admin_console.ipynb" in names
    # what chatops lab schedules, and the scheduler form's extension it loads from the package
    assert "chatops/_notebooks/scheduled/audit_suite.ipynb" in names
    ext = "chatops/jupyter/labextensions/chatops-scheduled-notebooks/"
    assert {ext + "package.json", ext + "static/remoteEntry.js"} <= set(names)


def test_a_wheel_built_from_the_sdist_is_the_same(wheel: Path, tmp_path: Path) -> None:
    """``python -m build`` makes the wheel from the sdist, which holds widgets/ and no link."""
    import tarfile

    from hatchling.builders.sdist import SdistBuilder
    from hatchling.builders.wheel import WheelBuilder

    (sdist,) = SdistBuilder(str(REPO)).build(directory=str(tmp_path))
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1]: m for m in archive.getmembers() if "/" in m.name}
        archive.extractall(tmp_path / "x", filter="data")
    assert "widgets/console.py" in members and "chatops/widgets" not in members
    assert not [n for n in members if n.startswith("chatops/widgets/")]
    (root,) = (tmp_path / "x").iterdir()
    (again,) = WheelBuilder(str(root)).build(directory=str(tmp_path / "w"), versions=["standard"])
    assert zipfile.ZipFile(again).namelist() == zipfile.ZipFile(wheel).namelist()


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


@pytest.mark.slow
def test_the_wheel_in_a_fresh_environment(wheel: Path, tmp_path: Path) -> None:
    site = _installed(wheel, tmp_path / "venv")
    assert _probe(tmp_path / "venv", tmp_path) == [
        "no widgets",
        "chatops.widgets.console",
        str(site / "chatops" / "widgets" / "__init__.py"),
    ]


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("editables") is None,
    reason="an editable install imports chatops through editables, not installed here",
)
def test_the_editable_install_in_a_fresh_environment(tmp_path: Path) -> None:
    editable = _build("editable", tmp_path / "dist")
    names = zipfile.ZipFile(editable).namelist()
    assert not [n for n in names if n.startswith(("chatops/", "widgets/"))]
    site = _installed(editable, tmp_path / "venv")
    # an empty chatops/ folder, as an earlier install leaves one, must not hide the repository's
    (site / "chatops").mkdir(exist_ok=True)
    out = _probe(tmp_path / "venv", tmp_path)
    assert out[:2] == ["no widgets", "chatops.widgets.console"]
    assert Path(out[2]).resolve() == REPO / "widgets" / "__init__.py"  # the source, live
    # a chatops package on PYTHONPATH (another checkout) comes first, as over any install
    other = tmp_path / "other" / "chatops"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("")
    which = subprocess.run(
        [
            str(tmp_path / "venv" / "bin" / "python"),
            "-c",
            "import chatops; print(chatops.__file__)",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(other.parent)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert which.stdout.strip() == str(other / "__init__.py")


def test_in_the_repository_chatops_widgets_is_the_widgets_folder() -> None:
    """mypy and the editable install know the panels by the path chatops/widgets."""
    link = REPO / "chatops" / "widgets"
    assert link.is_symlink() and os.readlink(link) == "../widgets"


def test_panels_import_from_chatops() -> None:
    from chatops.widgets import AdminConsole, ChannelFoldersPanel

    assert AdminConsole.__module__ == "chatops.widgets.console"
    assert ChannelFoldersPanel.__module__.startswith("chatops.widgets.")


def test_the_models_work_without_ipywidgets() -> None:
    """A script using a panel's logic imports no widget library."""
    probe = (
        "import sys\n"
        "import chatops.widgets.channel_folders_model, chatops.widgets.linkifiers_model\n"
        "import chatops.widgets.user_groups_model, chatops.widgets.invitations_model\n"
        "import chatops.widgets.status_model, chatops.widgets._people\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ipywidgets', 'IPython')))\n"
        "print(sorted(m for m in sys.modules if m.startswith('chatops.widgets.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "[]"
    # the models' collaborators came along, widget-free too
    for part in ("user_groups_edit", "user_groups_fix", "invitations_list", "invitations_options"):
        assert f"chatops.widgets.{part}" in out[1]


def test_a_model_acts_from_a_script(tmp_path: Path) -> None:
    """FoldersModel over a sandbox, with no panel: checks, request, outcome in words."""
    import chatops
    from chatops.sandbox import Sandbox
    from chatops.widgets._model import FieldError
    from chatops.widgets.channel_folders_model import FoldersModel

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
