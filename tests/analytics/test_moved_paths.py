"""Modules that moved keep their old import path: the same names, with a DeprecationWarning."""

from __future__ import annotations

import importlib
import sys

import pytest

MOVED = [
    ("chatops.analytics.records", "chatops.analytics.dataset.records"),
    ("chatops.analytics.realm_export", "chatops.analytics.dataset.realm_export"),
]


@pytest.mark.parametrize(("old", "new"), MOVED)
def test_an_old_path_still_works_and_warns(
    old: str, new: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        shim = importlib.import_module(old)
    moved = importlib.import_module(new)
    assert shim.__all__ == moved.__all__
    assert all(getattr(shim, name) is getattr(moved, name) for name in moved.__all__)
