"""Moved to :mod:`chatops.analytics.dataset.realm_export`; this path re-exports it, with a warning."""

from __future__ import annotations

import warnings

from .dataset.realm_export import MalformedExport, export_cache, import_export, read_export

__all__ = ["MalformedExport", "export_cache", "import_export", "read_export"]

warnings.warn(
    "chatops.analytics.realm_export moved to chatops.analytics.dataset.realm_export",
    DeprecationWarning,
    stacklevel=2,
)
