"""Moved to :mod:`chatops.audit.report`; this name stays for code written against it, with a warning."""

from __future__ import annotations

import warnings

from chatops.audit.report import *  # noqa: F403
from chatops.audit.report import __all__  # noqa: F401

warnings.warn(
    "chatops.report moved to chatops.audit.report; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
