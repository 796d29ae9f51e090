"""Where chatops's own files are: the notebooks (packaged in a wheel as ``chatops/_notebooks``,
in a checkout beside the package) and the folder that holds the package."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["notebooks_root", "package_parent"]

_PACKAGE = Path(__file__).resolve().parent


def package_parent() -> Path:
    """The folder that holds the ``chatops`` package (site-packages, or a checkout's root)."""
    return _PACKAGE.parent


def notebooks_root() -> Path:
    """The chatops notebooks: the copy packaged in a wheel, else the repository's ``notebooks/``."""
    packaged = resources.files("chatops").joinpath("_notebooks")
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    return package_parent() / "notebooks"
