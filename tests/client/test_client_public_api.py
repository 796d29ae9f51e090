from __future__ import annotations
import __future__

import types

import chatops


def test_all_is_sorted_and_lists_every_public_name() -> None:
    """As httpx's exported-members test: ``__all__`` is exactly the package's public names."""
    public = [
        name
        for name, value in vars(chatops).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)  # submodules, imported as a side effect
        and value is not __future__.annotations  # ``from __future__ import annotations``
    ]
    assert chatops.__all__ == sorted(public)


def test_sandbox_not_imported_by_package() -> None:
    source = chatops.__file__
    assert source is not None
    with open(source, encoding="utf-8") as f:
        assert "sandbox" not in f.read().split('"""', 2)[2]


def test_not_given_is_a_singleton() -> None:
    assert chatops.NotGiven() is chatops.NOT_GIVEN
    assert not chatops.NOT_GIVEN
    assert repr(chatops.NOT_GIVEN) == "NOT_GIVEN"
