"""Moved to :mod:`chatops.audit`; this name stays for code written against it, with a warning."""

from __future__ import annotations

import warnings

from chatops.audit import *  # noqa: F403
from chatops.audit import __all__  # noqa: F401

warnings.warn(
    "chatops.runner moved to chatops.audit; import it from there", DeprecationWarning, stacklevel=2
)
