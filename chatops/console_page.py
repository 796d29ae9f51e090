"""Moved to :mod:`chatops.jupyter.console_page`; this name stays for code written against it, with a warning."""

from __future__ import annotations

import warnings

from chatops.jupyter.console_page import *  # noqa: F403
from chatops.jupyter.console_page import __all__  # noqa: F401

warnings.warn(
    "chatops.console_page moved to chatops.jupyter.console_page; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
