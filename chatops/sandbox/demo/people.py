"""The demo's people: names from a small list, mostly members, some deactivated; and the
custom profile fields they fill in."""

from __future__ import annotations

import json
import random

from .. import realm as realm_mod
from .. import users
from ..store import Store
from .accounts import DOMAIN, Account
from .words import CHANNELS, FIRST, LAST


def add_people(
    store: Store,
    rng: random.Random,
    plan: dict[str, int],
    accounts: dict[str, Account],
    start: int,
) -> list[int]:
    """Add ``plan["people"]`` people; returns the ids of those who talk: the demo accounts but
    the guest and the bot, then each new person who is active and not a guest."""
    people: list[int] = [a.user_id for k, a in accounts.items() if k not in ("guest", "bot")]
    names_used = {a.full_name for a in accounts.values()}
    for i in range(plan["people"]):
        while True:
            full = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            if full not in names_used:
                break
            full = f"{full} {i}"
            if full not in names_used:
                break
        names_used.add(full)
        role = rng.choices(
            [
                realm_mod.ROLE_MEMBER,
                realm_mod.ROLE_MODERATOR,
                realm_mod.ROLE_ADMIN,
                realm_mod.ROLE_GUEST,
            ],
            [85, 5, 3, 7],
        )[0]
        uid = users.create_user(
            store,
            email=f"{full.lower().replace(' ', '.')}@{DOMAIN}",
            full_name=full,
            role=role,
            date_joined=start + rng.randrange(plan["days"] * 86400 // 2),
            timezone=rng.choice(["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"]),
            email_address_visibility=rng.choice([1, 1, 1, 2, 3]),
            api_key=users.new_api_key(),
        )
        if i % 23 == 22:
            store.execute("UPDATE users SET is_active = 0 WHERE id = ?", [uid])
        elif role != realm_mod.ROLE_GUEST:
            people.append(uid)
    return people


def add_profile_fields(store: Store, rng: random.Random, people: list[int]) -> None:
    """Team, pronouns and office fields, and the values ``people`` gave them."""
    team_field = store.insert(
        "custom_profile_fields",
        {"name": "Team", "field_type": 1, "hint": "Your team", "field_order": 1},
    )
    pron_field = store.insert(
        "custom_profile_fields",
        {"name": "Pronouns", "field_type": 1, "hint": "", "field_order": 2},
    )
    for uid in people:
        users.set_profile_value(store, uid, team_field, rng.choice(CHANNELS[:8]).title())
        if rng.random() < 0.4:
            users.set_profile_value(
                store, uid, pron_field, rng.choice(["she/her", "he/him", "they/them"])
            )
    offices = {"0": "Berlin", "1": "New York", "2": "Tokyo"}
    office_field = store.insert(
        "custom_profile_fields",
        {
            "name": "Office",
            "field_type": 3,
            "hint": "Where you usually work",
            "field_order": 3,
            "field_data": json.dumps(
                {k: {"text": v, "order": str(int(k) + 1)} for k, v in offices.items()}
            ),
        },
    )
    for uid in people[::3]:
        users.set_profile_value(store, uid, office_field, str(uid % 3))
