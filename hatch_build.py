"""How the repository's folders become the installed package (hatchling's custom build hook).

The wheel holds ``widgets/`` as ``chatops/widgets`` and ``notebooks/`` as ``chatops/_notebooks``
(force-include): nothing of the repository's layout shows in site-packages, and no top-level
``widgets`` is installed.

An editable install (``dev-mode-exact`` in pyproject.toml) does not put the repository's root on
sys.path, where ``widgets``, ``tests`` and ``bench`` would be importable too: it maps the one
name ``chatops`` to the repository, where ``chatops/widgets`` is a link to ``widgets/``. It takes
none of the folders above (copies in site-packages would go stale). hatchling maps the name with
editables' import hook, which Python's path finder comes before: any ``chatops`` folder without
``__init__.py`` on sys.path (an earlier install leaves an empty one in site-packages) is taken
for a namespace package instead. So the editable wheel carries a finder of its own, asked first:
a regular ``chatops`` package on sys.path (PYTHONPATH, the working folder) wins as it would over
any install, and otherwise ``chatops`` is the repository's.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.config import BuilderConfig
from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: repository folder -> where the wheel holds it
FOLDERS = {"widgets": "chatops/widgets", "notebooks": "chatops/_notebooks"}

FINDER_NAME = "_chatops_workbench_finder"
FINDER = '''"""Written by chatops-workbench's hatch_build.py for its editable install: ``chatops`` is the
repository's unless a regular ``chatops`` package comes first on sys.path."""

import sys
from importlib.machinery import PathFinder
from importlib.util import spec_from_file_location

INIT = {init!r}


class RepositoryFinder:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "chatops":
            return None
        found = PathFinder.find_spec(name)
        if found is not None and found.loader is not None:  # not a namespace package
            return found
        return spec_from_file_location(name, INIT)

    @classmethod
    def invalidate_caches(cls):
        pass


if RepositoryFinder not in sys.meta_path:
    sys.meta_path.insert(0, RepositoryFinder)
'''


class PackageFolders(BuildHookInterface[BuilderConfig]):
    """Adds :data:`FOLDERS` to a standard wheel and :data:`FINDER` to an editable one."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if version == "standard":
            build_data["force_include"].update(FOLDERS)
        elif version == "editable":
            self._made = tempfile.TemporaryDirectory(prefix="chatops-editable-")
            made = Path(self._made.name)
            init = Path(self.root).resolve() / "chatops" / "__init__.py"
            (made / f"{FINDER_NAME}.py").write_text(FINDER.format(init=str(init)))
            (made / f"{FINDER_NAME}.pth").write_text(f"import {FINDER_NAME}\n")
            build_data["force_include_editable"] = {
                str(made / f"{FINDER_NAME}.py"): f"{FINDER_NAME}.py",
                str(made / f"{FINDER_NAME}.pth"): f"{FINDER_NAME}.pth",
            }

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        made = getattr(self, "_made", None)
        if made is not None:
            made.cleanup()
