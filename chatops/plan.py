"""Moved to :mod:`chatops.audit.plan`; this name stays for code written against it, with a warning."""

from __future__ import annotations

import warnings

from chatops.audit.plan import *  # noqa: F403
from chatops.audit.plan import __all__  # noqa: F401

warnings.warn(
    "chatops.plan moved to chatops.audit.plan; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
