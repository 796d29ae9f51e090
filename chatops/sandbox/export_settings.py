"""The organization's configuration in a data export: its code playgrounds and the settings
new users start with.

Zulip's export writes both into ``realm.json`` as it writes every realm table
(``zerver/lib/export.py``: ``model_to_dict`` of each row, foreign keys as ids):

- ``zerver_realmplayground``: one row per playground, ``id``, ``realm``, ``name``,
  ``pygments_language``, ``url_template``;
- ``zerver_realmuserdefault``: the organization's one ``RealmUserDefault`` row, ``id``,
  ``realm`` and every personal setting field with the value a new user starts with (the ones
  an administrator changed, the others at their defaults), ``email_address_visibility``
  included.
"""

from __future__ import annotations

from typing import Any

from . import realm_playgrounds, user_settings
from .store import Store

__all__ = ["settings_tables"]


def settings_tables(store: Store, realm_id: int) -> dict[str, list[dict[str, Any]]]:
    """``zerver_realmplayground`` and ``zerver_realmuserdefault`` for ``realm.json``.

    Args:
        store: the sandbox's store.
        realm_id: the organization's id, which every row names as its ``realm``.

    Returns the two tables by name, each a list of rows keyed by Zulip's field names.

    Example:
        >>> settings_tables(store, 1)["zerver_realmuserdefault"][0]["emojiset"]  # doctest: +SKIP
        'google'
    """
    defaults = user_settings.realm_defaults(store)
    fields = (*user_settings.SETTINGS, "email_address_visibility")
    return {
        "zerver_realmplayground": [
            {"realm": realm_id, **p} for p in realm_playgrounds.list_playgrounds(store)
        ],
        "zerver_realmuserdefault": [
            {"id": 1, "realm": realm_id, **{name: defaults[name] for name in fields}}
        ],
    }
