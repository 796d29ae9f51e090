"""Modules of the panels that were renamed still import, with a DeprecationWarning naming the
new module, and give what the new one gives."""

from __future__ import annotations

import importlib
import sys

import pytest

RENAMED = {
    "folders_model": "channel_folders_model",
    "groups_model": "user_groups_model",
    "groups_edit": "user_groups_edit",
    "groups_fix": "user_groups_fix",
}


@pytest.mark.parametrize(("old", "new"), sorted(RENAMED.items()))
def test_an_old_module_name_warns_and_gives_the_new_modules_names(old: str, new: str) -> None:
    sys.modules.pop(f"chatops.widgets.{old}", None)
    with pytest.warns(DeprecationWarning, match=f"import from chatops.widgets.{new} instead"):
        before = importlib.import_module(f"chatops.widgets.{old}")
    after = importlib.import_module(f"chatops.widgets.{new}")
    assert before.__all__ == after.__all__
    assert all(getattr(before, name) is getattr(after, name) for name in after.__all__)


def test_the_readmes_import_of_the_folders_model_still_works() -> None:
    sys.modules.pop("chatops.widgets.folders_model", None)
    with pytest.warns(DeprecationWarning):
        from chatops.widgets.folders_model import FoldersModel
    from chatops.widgets.channel_folders_model import FoldersModel as Moved

    assert FoldersModel is Moved
