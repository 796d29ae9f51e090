"""The old name of :mod:`chatops.widgets.user_groups_fix`, kept for old imports."""

from __future__ import annotations

from ._moved import moved
from .user_groups_fix import *  # noqa: F403
from .user_groups_fix import __all__ as __all__

moved(__name__, "chatops.widgets.user_groups_fix")
