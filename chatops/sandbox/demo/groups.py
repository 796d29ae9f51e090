"""The demo's user groups: two used by permission settings, one used by nothing."""

from __future__ import annotations

import random

from .. import realm as realm_mod
from ..store import Store
from .accounts import Account


def add_groups(
    store: Store, rng: random.Random, accounts: dict[str, Account], people: list[int], start: int
) -> int:
    """``leads`` (who may mention many people), ``support-team`` (holding ``leads``) and
    ``alumni``; returns the id of ``support-team``, which a channel's setting names."""
    leads = store.insert(
        "user_groups",
        {
            "name": "leads",
            "description": "Team leads",
            "creator_id": accounts["owner"].user_id,
            "date_created": start,
        },
    )
    support = store.insert(
        "user_groups",
        {
            "name": "support-team",
            "description": "Support rotation",
            "creator_id": accounts["admin"].user_id,
            "date_created": start,
        },
    )
    store.insert(
        "user_groups",
        {
            "name": "alumni",
            "description": "Not used by any setting",
            "creator_id": accounts["admin"].user_id,
            "date_created": start,
        },
    )
    for uid in rng.sample(people, min(6, len(people))):
        store.execute("INSERT OR IGNORE INTO group_members VALUES (?, ?)", [leads, uid])
    for uid in rng.sample(people, min(8, len(people))):
        store.execute("INSERT OR IGNORE INTO group_members VALUES (?, ?)", [support, uid])
    store.execute(
        "INSERT OR IGNORE INTO group_members VALUES (?, ?)",
        [leads, accounts["moderator"].user_id],
    )
    store.execute("INSERT INTO group_subgroups VALUES (?, ?)", [support, leads])
    ids = realm_mod.system_group_ids(store)
    realm_mod.update_settings(
        store,
        {
            "can_mention_many_users_group": {
                "direct_members": [],
                "direct_subgroups": [ids["role:administrators"], leads],
            },
            "create_multiuse_invite_group": ids["role:administrators"],
        },
    )
    return support
