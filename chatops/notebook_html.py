"""Moved to :mod:`chatops.jupyter.notebook_html`; this name stays for code written against it, with a warning."""

from __future__ import annotations

import warnings

from chatops.jupyter.notebook_html import *  # noqa: F403
from chatops.jupyter.notebook_html import __all__  # noqa: F401

warnings.warn(
    "chatops.notebook_html moved to chatops.jupyter.notebook_html; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
