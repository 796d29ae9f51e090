"""The generated demo organization: deterministic from a seed, realistic enough to audit.

``generate(store, size=..., seed=...)`` builds an organization with months of history: Zipf-
distributed activity over channels, topics and people; resolved and unresolved topics; edits
and moves; reactions; uploads; user groups used by permission settings; custom profile fields
and custom emoji. It returns the demo accounts with their credentials.
"""

from __future__ import annotations

import bisect
import itertools
import json
import random
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import channels, users
from .. import realm as realm_mod
from ..files import private_folder, write_private
from ..messages import READ, recipient_for_users
from ..rendering import render
from ..store import Store
from .admin import add_admin_demo
from .bots import add_bots_demo
from .personal import add_personal_demo
from .uploads import add_uploads
from .words import CHANNELS, FIRST, LAST, REACTIONS, SENTENCES, TOPIC_WORDS

SIZES: dict[str, dict[str, int]] = {
    "small": {"messages": 2_000, "people": 40, "channels": 12, "days": 120},
    "medium": {"messages": 100_000, "people": 300, "channels": 40, "days": 365},
    "large": {"messages": 1_000_000, "people": 1_500, "channels": 120, "days": 730},
}
DEMO_ACCOUNTS = ("owner", "admin", "moderator", "member", "guest", "bot")
DOMAIN = "demo.chatops.test"


@dataclass(frozen=True)
class Account:
    """A demo account's credentials; the key and password never appear in its repr."""

    name: str
    user_id: int
    email: str
    full_name: str
    role: int
    api_key: str = ""
    password: str | None = None

    def __repr__(self) -> str:
        return f"Account(name={self.name!r}, user_id={self.user_id}, email={self.email!r})"


def _zipf_weights(n: int, s: float = 1.1) -> list[float]:
    return [1.0 / (k**s) for k in range(1, n + 1)]


class _Picker:
    def __init__(self, rng: random.Random, items: list[Any], s: float = 1.1) -> None:
        self.rng = rng
        self.items = items
        self.cum = list(itertools.accumulate(_zipf_weights(len(items), s)))

    def __call__(self) -> Any:
        x = self.rng.random() * self.cum[-1]
        return self.items[bisect.bisect_left(self.cum, x)]


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
    accounts: dict[str, Account] = {}
    with store.atomic():
        roles = [
            ("owner", "Olivia Owner", realm_mod.ROLE_OWNER),
            ("admin", "Adam Admin", realm_mod.ROLE_ADMIN),
            ("moderator", "Mona Moderator", realm_mod.ROLE_MODERATOR),
            ("member", "Mei Member", realm_mod.ROLE_MEMBER),
            ("guest", "Gus Guest", realm_mod.ROLE_GUEST),
        ]
        for account, full_name, role in roles:
            password = secrets.token_urlsafe(12)
            email = f"{account}@{DOMAIN}"
            key = users.new_api_key()
            uid = users.create_user(
                store,
                email=email,
                full_name=full_name,
                role=role,
                password=password,
                api_key=key,
                date_joined=start - 86400,
                timezone="Europe/Berlin",
            )
            accounts[account] = Account(account, uid, email, full_name, role, key, password)
        key = users.new_api_key()
        bot_id = users.create_user(
            store,
            email=f"helper-bot@{DOMAIN}",
            full_name="Helper Bot",
            is_bot=True,
            bot_type=1,
            bot_owner_id=accounts["admin"].user_id,
            api_key=key,
            date_joined=start,
        )
        accounts["bot"] = Account(
            "bot", bot_id, f"helper-bot@{DOMAIN}", "Helper Bot", realm_mod.ROLE_MEMBER, key, None
        )
        users.create_user(
            store,
            email=f"webhook-bot@{DOMAIN}",
            full_name="Webhook Bot",
            is_bot=True,
            bot_type=3,
            bot_owner_id=accounts["admin"].user_id,
            date_joined=start,
        )

        # people, with a Zipf-shaped share of the talking
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

        # custom profile fields and emoji
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
        store.insert(
            "realm_emoji",
            {"name": "shipit", "author_id": accounts["admin"].user_id, "file_name": "shipit.png"},
        )
        store.insert(
            "realm_emoji",
            {
                "name": "old_logo",
                "author_id": accounts["admin"].user_id,
                "file_name": "old.png",
                "deactivated": 1,
            },
        )

        # user groups, some used by permission settings
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

        # channels: a few private with protected history; subscriber counts Zipf-like
        channel_ids: list[int] = []
        names = list(CHANNELS)
        while len(names) < plan["channels"]:
            names.append(f"{rng.choice(TOPIC_WORDS)}-{len(names)}")
        for i, cname in enumerate(names[: plan["channels"]]):
            private = i in (5, 9) or (i > 12 and rng.random() < 0.15)
            settings: dict[str, Any] = {}
            if cname == "support":
                settings["can_move_messages_within_channel_group"] = support
            sid = channels.create_stream(
                store,
                name=cname,
                description=f"Everything about {cname}.",
                invite_only=private,
                history_public_to_subscribers=not private,
                creator_id=accounts["owner"].user_id,
                date_created=start,
                is_default=cname in ("general", "announcements"),
                settings=settings,
            )
            channel_ids.append(sid)
            share = 1.0 if i < 2 else max(0.08, 0.9 / (1 + i * 0.3))
            members = [u for u in people if rng.random() < share]
            for a in ("owner", "admin", "moderator", "member"):
                if i < 8 or private and a in ("owner", "admin"):
                    members.append(accounts[a].user_id)
            if i in (0, 2):
                members.append(accounts["guest"].user_id)
            for uid in set(members):
                store.execute(
                    "INSERT OR IGNORE INTO subscriptions (user_id, stream_id, first_message_id) VALUES (?, ?, 0)",
                    [uid, sid],
                )
        store.execute("UPDATE streams SET is_archived = 1 WHERE id = ?", [channel_ids[-1]])
    _history(store, rng, plan, accounts, people, channel_ids[:-1], start, now)
    add_bots_demo(store, rng)
    add_personal_demo(store, rng, accounts, now)
    add_admin_demo(store, rng, accounts, now)
    if upload_dir is not None:
        add_uploads(store, upload_dir, seed=seed)
    return accounts


def _history(
    store: Store,
    rng: random.Random,
    plan: dict[str, int],
    accounts: dict[str, Account],
    people: list[int],
    channel_ids: list[int],
    start: int,
    now: int,
) -> None:
    names = {r["id"]: r["full_name"] for r in store.query("SELECT id, full_name FROM users")}
    recipients = {
        r["stream_id"]: r["id"]
        for r in store.query("SELECT id, stream_id FROM recipients WHERE stream_id IS NOT NULL")
    }
    subs = {
        sid: [
            r["user_id"]
            for r in store.query("SELECT user_id FROM subscriptions WHERE stream_id = ?", [sid])
        ]
        for sid in channel_ids
    }
    pick_channel = _Picker(rng, channel_ids, 1.0)
    topics: dict[int, list[str]] = {sid: [] for sid in channel_ids}
    total = plan["messages"]
    span = now - 3600 - start
    times = sorted(start + int(span * (rng.random() ** 0.7)) for _ in range(total))
    dm_pairs = [tuple(sorted(rng.sample(people, 2))) for _ in range(max(3, len(people) // 3))]
    dm_pairs.append(tuple(sorted((accounts["member"].user_id, accounts["admin"].user_id))))
    rows: list[tuple[Any, ...]] = []
    flags: list[tuple[int, int, int]] = []
    reactions: list[tuple[int, int, str, str, str]] = []
    next_id = int(store.scalar("SELECT coalesce(max(id), 0) FROM messages")) + 1
    recent_cut = total - min(total, 400)
    pick_person = {sid: _Picker(rng, subs[sid] or people, 1.2) for sid in channel_ids}
    emoji_pick = _Picker(rng, REACTIONS, 1.3)
    with store.atomic():
        for n, ts in enumerate(times):
            mid = next_id + n
            if rng.random() < 0.08:
                a, b = rng.choice(dm_pairs)
                sender = rng.choice((a, b))
                rid = recipient_for_users(store, (a, b))
                content = rng.choice(SENTENCES)
                rows.append((mid, sender, rid, None, "", content, render(content), "website", ts))
                if n >= recent_cut:
                    other = b if sender == a else a
                    flags.append((other, mid, 0))
                continue
            sid = pick_channel()
            tlist = topics[sid]
            if not tlist or rng.random() < 0.04:
                word = rng.choice(TOPIC_WORDS)
                topic = f"{word} {len(tlist) + 1}" if rng.random() < 0.9 else ""
                tlist.append(topic)
            topic = tlist[-1] if rng.random() < 0.6 else rng.choice(tlist[-8:])
            sender = pick_person[sid]()
            content = rng.choice(SENTENCES)
            if rng.random() < 0.03:
                target = rng.choice(people)
                content = f"@**{names[target]}** {content}"
            rows.append(
                (
                    mid,
                    sender,
                    recipients[sid],
                    sid,
                    topic,
                    content,
                    render(content),
                    rng.choice(["website", "website", "ZulipMobile", "ZulipTerminal", "API"]),
                    ts,
                )
            )
            if n >= recent_cut:
                for uid in subs[sid][:30]:
                    flags.append((uid, mid, READ if uid == sender or rng.random() < 0.5 else 0))
            if rng.random() < 0.12:
                for _ in range(rng.choice([1, 1, 2, 3])):
                    name, code = emoji_pick()
                    reactions.append(
                        (mid, rng.choice(subs[sid] or people), name, code, "unicode_emoji")
                    )
            if len(rows) >= 20_000:
                _flush(store, rows, flags, reactions)
        _flush(store, rows, flags, reactions)
        _resolve_and_edit(store, rng, start, now)


def _flush(
    store: Store,
    rows: list[tuple[Any, ...]],
    flags: list[tuple[int, int, int]],
    reactions: list[tuple[int, int, str, str, str]],
) -> None:
    store.executemany(
        "INSERT INTO messages (id, sender_id, recipient_id, stream_id, topic, content, rendered_content, client, timestamp) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    store.executemany(
        "INSERT OR IGNORE INTO message_flags (user_id, message_id, flags) VALUES (?, ?, ?)", flags
    )
    store.executemany(
        "INSERT OR IGNORE INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type) "
        "VALUES (?, ?, ?, ?, ?)",
        reactions,
    )
    rows.clear()
    flags.clear()
    reactions.clear()


def _add_history(store: Store, message_id: int, entry: dict[str, Any]) -> None:
    """Put ``entry`` first in a message's edit history (most recent first)."""
    current = store.scalar("SELECT edit_history FROM messages WHERE id = ?", [message_id])
    history = [entry, *json.loads(current or "[]")]
    history.sort(key=lambda e: -int(e["timestamp"]))
    store.execute(
        "UPDATE messages SET edit_history = ? WHERE id = ?", [json.dumps(history), message_id]
    )


def _resolve_and_edit(store: Store, rng: random.Random, start: int, now: int) -> None:
    """Edit some messages, move some topics, resolve some, each with its edit history."""
    prefix = realm_mod.RESOLVED_TOPIC_PREFIX
    edited = store.query(
        "SELECT id, sender_id, content, rendered_content, timestamp FROM messages "
        "WHERE stream_id IS NOT NULL AND id % 37 = 0"
    )
    for m in edited:
        new = m["content"] + " (edited)"
        when = m["timestamp"] + 120
        store.execute(
            "UPDATE messages SET content = ?, rendered_content = ?, last_edit_timestamp = ? "
            "WHERE id = ?",
            [new, render(new), when, m["id"]],
        )
        _add_history(
            store,
            m["id"],
            {
                "user_id": m["sender_id"],
                "timestamp": when,
                "prev_content": m["content"],
                "prev_rendered_content": m["rendered_content"],
            },
        )
    topic_rows = store.query(
        "SELECT stream_id, topic, max(timestamp) AS last, min(id) AS first_id FROM messages "
        "WHERE stream_id IS NOT NULL AND topic != '' GROUP BY stream_id, topic ORDER BY first_id"
    )
    stream_ids = sorted({t["stream_id"] for t in topic_rows})
    moderators = [
        r["id"]
        for r in store.query(
            "SELECT id FROM users WHERE role <= 300 AND is_bot = 0 AND is_active = 1 ORDER BY id"
        )
    ]
    for index, t in enumerate(topic_rows):
        roll = rng.random()
        ids = [
            r["id"]
            for r in store.query(
                "SELECT id FROM messages WHERE stream_id = ? AND topic = ? ORDER BY id",
                [t["stream_id"], t["topic"]],
            )
        ]
        mover = rng.choice(moderators)
        when = min(now - 60, t["last"] + 3600)
        # One topic in twenty-five moves to another channel and one is renamed, whatever the
        # size; about three in ten of the rest are resolved.
        if index % 25 == 3 and len(stream_ids) > 1:  # moved to another channel
            target = rng.choice([s for s in stream_ids if s != t["stream_id"]])
            recipient = store.scalar("SELECT id FROM recipients WHERE stream_id = ?", [target])
            store.execute(
                f"UPDATE messages SET stream_id = ?, recipient_id = ?, last_moved_timestamp = ? "
                f"WHERE id IN ({','.join(str(i) for i in ids)})",
                [target, recipient, when],
            )
            for mid in ids:
                _add_history(
                    store,
                    mid,
                    {
                        "user_id": mover,
                        "timestamp": when,
                        "prev_stream": t["stream_id"],
                        "stream": target,
                    },
                )
        elif index % 25 == 11:  # renamed
            renamed = f"{t['topic']} (renamed)"
            store.execute(
                f"UPDATE messages SET topic = ?, last_moved_timestamp = ? "
                f"WHERE id IN ({','.join(str(i) for i in ids)})",
                [renamed, when],
            )
            for mid in ids:
                _add_history(
                    store,
                    mid,
                    {
                        "user_id": mover,
                        "timestamp": when,
                        "prev_topic": t["topic"],
                        "topic": renamed,
                    },
                )
        elif roll < 0.3:  # resolved: not a move, so no last_moved_timestamp
            store.execute(
                f"UPDATE messages SET topic = ? WHERE id IN ({','.join(str(i) for i in ids)})",
                [prefix + t["topic"]],
            )
            for mid in ids:
                _add_history(
                    store,
                    mid,
                    {
                        "user_id": mover,
                        "timestamp": when,
                        "prev_topic": t["topic"],
                        "topic": prefix + t["topic"],
                    },
                )


def write_credentials(accounts: dict[str, Account], site: str, directory: Path) -> None:
    """``DIR/<account>.zuliprc`` (standard ``[api]`` section) and ``<account>.password``."""
    private_folder(directory)
    for name, acc in accounts.items():
        rc = directory / f"{name}.zuliprc"
        write_private(rc, f"[api]\nemail={acc.email}\nkey={acc.api_key}\nsite={site}\n")
        if acc.password is not None:
            write_private(directory / f"{name}.password", acc.password + "\n")


def save_accounts(accounts: dict[str, Account], path: Path) -> None:
    data = {
        k: {
            "name": a.name,
            "user_id": a.user_id,
            "email": a.email,
            "full_name": a.full_name,
            "role": a.role,
            "api_key": a.api_key,
            "password": a.password,
        }
        for k, a in accounts.items()
    }
    write_private(path, json.dumps(data, indent=1))


def load_accounts(path: Path) -> dict[str, Account]:
    data = json.loads(path.read_text())
    return {k: Account(**v) for k, v in data.items()}
