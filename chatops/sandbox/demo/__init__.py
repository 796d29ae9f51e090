"""The generated demo organization: deterministic from a seed, realistic enough to audit.

``generate(store, size=..., seed=...)`` builds an organization with months of history: Zipf-
distributed activity over channels, topics and people; resolved and unresolved topics; edits
and moves; reactions; uploads; user groups used by permission settings; custom profile fields
and custom emoji. It returns the demo accounts with their credentials.

Each part is a module of its own, called in a fixed order with one random generator: the
accounts, the people and their profile fields, the groups, the channels, the history, then the
bots, personal tools, administration, presence and uploads.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from ..._demo_sizes import SIZES
from .. import realm as realm_mod
from .. import users
from ..store import Store
from .accounts import (
    DEMO_ACCOUNTS,
    DOMAIN,
    Account,
    add_accounts,
    add_owner,
    load_accounts,
    save_accounts,
    write_credentials,
)
from .admin import add_admin_demo
from .bots import add_bots_demo
from .channels import add_channels
from .groups import add_groups
from .history import add_history, bulk_load
from .people import add_people, add_profile_fields
from .personal import add_personal_demo
from .presence import add_presence_demo
from .uploads import add_custom_emoji, add_emoji_images, add_uploads

__all__ = [
    "DEMO_ACCOUNTS",
    "DOMAIN",
    "SIZES",
    "Account",
    "bootstrap",
    "generate",
    "load_accounts",
    "save_accounts",
    "write_credentials",
]


def bootstrap(store: Store, *, name: str = "Chatops Demo", now: int | None = None) -> int:
    """The empty organization: realm row, system groups and the notification bot."""
    now = now or int(time.time())
    with store.atomic():
        store.insert(
            "realm",
            {
                "id": 1,
                "name": name,
                "string_id": "demo",
                "date_created": now,
                "description": "A generated organization for trying chatops.",
            },
        )
        realm_mod.create_system_groups(store)
        return users.create_user(
            store,
            email=f"notification-bot@{DOMAIN}",
            full_name="Notification Bot",
            role=realm_mod.ROLE_MEMBER,
            is_bot=True,
            bot_type=1,
            is_system_bot=True,
            date_joined=now,
        )


def generate(
    store: Store,
    *,
    size: str = "small",
    seed: int = 1,
    now: int | None = None,
    upload_dir: Path | None = None,
) -> dict[str, Account]:
    """Fill an empty store with a demo organization; returns the demo accounts.

    With ``upload_dir`` the organization also gets uploaded files, most of them shared in
    messages.
    """
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; choose one of {', '.join(SIZES)}")
    plan = SIZES[size]
    rng = random.Random(seed)
    now = now or int(time.time())
    start = now - plan["days"] * 86400
    bootstrap(store, now=start - 86400)
    if size == "empty":
        with store.atomic():
            return {"owner": add_owner(store, start)}
    # the parts draw from one generator: their order is part of what a seed means
    with store.atomic():
        accounts = add_accounts(store, start)
        people = add_people(store, rng, plan, accounts, start)
        add_profile_fields(store, rng, people)
        add_custom_emoji(store, accounts["admin"].user_id)
        support = add_groups(store, rng, accounts, people, start)
        channel_ids = add_channels(store, rng, plan, accounts, people, start, support)
    with bulk_load(store):
        add_history(store, rng, plan, accounts, people, channel_ids[:-1], start, now)
    add_bots_demo(store, rng)
    add_personal_demo(store, rng, accounts, now)
    add_admin_demo(store, rng, accounts, now)
    add_presence_demo(store, rng, now)
    if upload_dir is not None:
        add_uploads(store, upload_dir, seed=seed)
        add_emoji_images(store, upload_dir)
    return accounts
