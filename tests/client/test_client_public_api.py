from __future__ import annotations

import chatops


def test_all_is_sorted_and_complete() -> None:
    assert chatops.__all__ == sorted(chatops.__all__)
    for name in chatops.__all__:
        assert hasattr(chatops, name), name


def test_sandbox_not_imported_by_package() -> None:
    source = chatops.__file__
    assert source is not None
    with open(source, encoding="utf-8") as f:
        assert "sandbox" not in f.read().split('"""', 2)[2]


def test_not_given_is_a_singleton() -> None:
    assert chatops.NotGiven() is chatops.NOT_GIVEN
    assert not chatops.NOT_GIVEN
    assert repr(chatops.NOT_GIVEN) == "NOT_GIVEN"
