"""What an old module name does when imported: it says where its contents went."""

from __future__ import annotations

import warnings


def moved(old: str, new: str) -> None:
    """Warn that module ``old`` is now ``new`` (a :class:`DeprecationWarning`)."""
    warnings.warn(
        f"{old} is deprecated: import from {new} instead", DeprecationWarning, stacklevel=3
    )
