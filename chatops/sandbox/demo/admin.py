"""The administration part of the demo organization: linkifiers, invitations, statuses, devices."""

from __future__ import annotations

import base64
import json
import random
from typing import Any

from .. import realm as realm_mod
from ..store import Store


def add_admin_demo(store: Store, rng: random.Random, accounts: dict[str, Any], now: int) -> None:
    """Deterministic from ``rng``; cheap enough for the ``small`` size."""
    with store.atomic():
        for order, (pattern, template) in enumerate(
            [
                (r"#(?P<id>[0-9]+)", "https://github.com/chatops-demo/app/issues/{id}"),
                (
                    r"CVE-(?P<year>[0-9]{4})-(?P<num>[0-9]+)",
                    "https://cve.org/CVERecord?id=CVE-{year}-{num}",
                ),
            ]
        ):
            store.insert("linkifiers", {"pattern": pattern, "url_template": template, "ord": order})
        admin = accounts["admin"].user_id
        default_channels = [
            int(r["id"]) for r in store.query("SELECT id FROM streams WHERE is_default = 1")
        ]
        roles = [realm_mod.ROLE_MEMBER, realm_mod.ROLE_GUEST, realm_mod.ROLE_MODERATOR]
        for i in range(6):
            invited = now - rng.randrange(1, 20) * 86400
            minutes = rng.choice([None, 1440, 14400, 43200])
            multiuse = i % 3 == 0
            store.insert(
                "invites",
                {
                    "is_multiuse": int(multiuse),
                    "email": None if multiuse else f"invitee{i}@example.org",
                    "invite_key": base64.b32encode(rng.randbytes(15)).decode().lower(),
                    "referrer_id": admin,
                    "invited": invited,
                    "expiry": None if minutes is None else invited + minutes * 60,
                    "invited_as": rng.choice(roles),
                    "stream_ids": json.dumps(default_channels),
                },
            )
        texts = ["In a meeting", "On vacation", "Working remotely", "Out sick", "Focus time"]
        emoji = [("calendar", "1f4c5"), ("palm_tree", "1f334"), ("house", "1f3e0"), ("", "")]
        people = [
            int(r["id"])
            for r in store.query("SELECT id FROM users WHERE is_active = 1 AND is_bot = 0")
        ]
        for uid in rng.sample(people, min(8, len(people))):
            name, code = rng.choice(emoji)
            store.insert(
                "user_status",
                {
                    "user_id": uid,
                    "status_text": rng.choice(texts),
                    "emoji_name": name,
                    "emoji_code": code,
                    "reaction_type": "unicode_emoji" if name else "",
                    "timestamp": now - rng.randrange(86400),
                },
            )
