"""The old name of :mod:`chatops.widgets.channel_folders_model`, kept for old imports."""

from __future__ import annotations

from ._moved import moved
from .channel_folders_model import *  # noqa: F403
from .channel_folders_model import __all__ as __all__

moved(__name__, "chatops.widgets.channel_folders_model")
