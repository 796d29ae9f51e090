"""Organization settings (``PATCH /realm``), linkifiers (spec 4.15) and custom emoji.

Written in ``chatops/_async/resources/realm.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.realm import AsyncRealm, format_string_from_template
from .._sync.resources.realm import Realm

__all__ = ["AsyncRealm", "Realm", "format_string_from_template"]
