"""igraph, imported without importing ``matplotlib.pyplot``.

igraph's drawing modules import ``matplotlib.pyplot`` when igraph is imported, which would
switch a notebook's matplotlib to pyplot's state behind the analyst's back (the analytics draw on
their own figures and never need pyplot). While igraph is imported, ``matplotlib.pyplot`` is a
stand-in that imports the real pyplot only when igraph's own plotting first uses it.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from typing import Any

# what igraph's drawing modules read from matplotlib at import (they import no pyplot of their own)
import matplotlib.artist
import matplotlib.collections
import matplotlib.transforms  # noqa: F401

__all__ = ["igraph"]

_LOCK = threading.Lock()


class _Pyplot(types.ModuleType):
    """``matplotlib.pyplot`` imported at its first use."""

    def __getattr__(self, name: str) -> Any:
        if sys.modules.get("matplotlib.pyplot") is self:
            del sys.modules["matplotlib.pyplot"]
        return getattr(importlib.import_module("matplotlib.pyplot"), name)


def igraph() -> Any:
    """The ``igraph`` module, imported on first call without importing ``matplotlib.pyplot``."""
    with _LOCK:
        if "igraph" in sys.modules:
            return sys.modules["igraph"]
        if "matplotlib.pyplot" in sys.modules:
            return importlib.import_module("igraph")
        stand_in = _Pyplot("matplotlib.pyplot")
        sys.modules["matplotlib.pyplot"] = stand_in
        try:
            return importlib.import_module("igraph")
        finally:
            if sys.modules.get("matplotlib.pyplot") is stand_in:
                del sys.modules["matplotlib.pyplot"]
