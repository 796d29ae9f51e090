"""Moved to :mod:`chatops.jupyter.lab`; this name stays for code written against it, with a warning."""

from __future__ import annotations

import warnings

from chatops.jupyter.lab import *  # noqa: F403
from chatops.jupyter.lab import __all__  # noqa: F401

warnings.warn(
    "chatops.lab moved to chatops.jupyter.lab; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
