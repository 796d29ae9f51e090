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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import channels, users
from .. import realm as realm_mod
from ..files import private_folder, write_private
from ..messages import READ, recipient_for_users
from ..rendering import MentionTargets, render
from ..store import Store
from .admin import add_admin_demo
from .bots import add_bots_demo
from .personal import add_personal_demo
from .presence import add_presence_demo
from .uploads import add_emoji_images, add_uploads
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
    with _bulk_load(store):
        _history(store, rng, plan, accounts, people, channel_ids[:-1], start, now)
    add_bots_demo(store, rng)
    add_personal_demo(store, rng, accounts, now)
    add_admin_demo(store, rng, accounts, now)
    add_presence_demo(store, rng, now)
    if upload_dir is not None:
        add_uploads(store, upload_dir, seed=seed)
        add_emoji_images(store, upload_dir)
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
    """The messages, read flags and reactions, then the edits and moves of :func:`_edits`.

    Every row is prepared in memory and bulk-inserted; the message indexes are built once the
    rows are in, so the work grows linearly with the number of messages.
    """
    names = {r["id"]: r["full_name"] for r in store.query("SELECT id, full_name FROM users")}
    targets = MentionTargets(names={n: i for i, n in names.items()}, full_names=names)
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
    rendered = _RenderCache(targets)
    dm_recipients: dict[tuple[int, ...], int] = {}
    # what the edits need, gathered on the way instead of queried back
    groups: dict[tuple[int, str], list[int]] = {}
    last_seen: dict[tuple[int, str], int] = {}
    to_edit: list[tuple[int, int, str, str, int]] = []
    with store.atomic():
        indexes = _drop_indexes(store, ("messages",))
        for n, ts in enumerate(times):
            mid = next_id + n
            if rng.random() < 0.08:
                a, b = rng.choice(dm_pairs)
                sender = rng.choice((a, b))
                rid = dm_recipients.get((a, b))
                if rid is None:
                    rid = dm_recipients[(a, b)] = recipient_for_users(store, (a, b))
                content = rng.choice(SENTENCES)
                rows.append((mid, sender, rid, None, "", content, rendered(content), "website", ts))
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
            html = rendered(content)
            rows.append(
                (
                    mid,
                    sender,
                    recipients[sid],
                    sid,
                    topic,
                    content,
                    html,
                    rng.choice(["website", "website", "ZulipMobile", "ZulipTerminal", "API"]),
                    ts,
                )
            )
            if topic != "":
                key = (sid, topic)
                members = groups.get(key)
                if members is None:
                    members = groups[key] = []
                members.append(mid)
                last_seen[key] = ts  # times are sorted: the last one seen is the latest
            if mid % 37 == 0:
                to_edit.append((mid, sender, content, html, ts))
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
        _edits(store, rng, now, groups, last_seen, to_edit, recipients, rendered)
        for sql in indexes:
            store.execute(sql)


class _RenderCache:
    """``render`` memoized: the demo draws its contents from a small vocabulary."""

    def __init__(self, mentions: MentionTargets) -> None:
        self._seen: dict[str, str] = {}
        self._mentions = mentions

    def __call__(self, content: str) -> str:
        html = self._seen.get(content)
        if html is None:
            html = self._seen[content] = render(content, mentions=self._mentions)
        return html


def _drop_indexes(store: Store, tables: tuple[str, ...]) -> list[str]:
    """Drop the explicit indexes of ``tables``; returns the SQL that builds them again."""
    marks = ", ".join("?" for _ in tables)
    found = store.query(
        f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
        f"AND tbl_name IN ({marks}) ORDER BY name",
        list(tables),
    )
    for row in found:
        store.execute(f'DROP INDEX "{row["name"]}"')
    return [str(row["sql"]) for row in found]


@contextmanager
def _bulk_load(store: Store) -> Iterator[None]:
    """No journal and no fsync while the demo is written; the previous settings after.

    A generation that stops half-way leaves a file that is thrown away (``open_data_dir``
    generates into a ``.partial`` file), so the journal would protect nothing.
    """
    journal = str(store.scalar("PRAGMA journal_mode"))
    synchronous = int(store.scalar("PRAGMA synchronous"))
    store.execute("PRAGMA journal_mode=MEMORY")
    store.execute("PRAGMA synchronous=OFF")
    try:
        yield
    finally:
        store.execute(f"PRAGMA synchronous={synchronous}")
        store.execute(f"PRAGMA journal_mode={journal}")


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


# The columns an edit or move may change, in the order of _Change's first fields.
_CHANGED = (
    "stream_id",
    "recipient_id",
    "topic",
    "content",
    "rendered_content",
    "last_edit_timestamp",
    "last_moved_timestamp",
)


def _edits(
    store: Store,
    rng: random.Random,
    now: int,
    groups: dict[tuple[int, str], list[int]],
    last_seen: dict[tuple[int, str], int],
    to_edit: list[tuple[int, int, str, str, int]],
    recipients: dict[int, int],
    rendered: _RenderCache,
) -> None:
    """Edit some messages, move some topics, resolve some, each with its edit history.

    ``groups`` holds the ids of each named topic in order of its first message, ``last_seen``
    its latest timestamp; ``to_edit`` the channel messages whose content is edited. The changes
    are worked out in memory and written with one ``UPDATE`` per changed message.
    """
    prefix = realm_mod.RESOLVED_TOPIC_PREFIX
    changes: dict[int, list[Any]] = {}
    histories: dict[int, list[dict[str, Any]]] = {}

    def change(mid: int) -> list[Any]:
        found = changes.get(mid)
        if found is None:
            found = changes[mid] = [None] * len(_CHANGED)
        return found

    def add_history(mid: int, entry: dict[str, Any]) -> None:
        history = [entry, *histories.get(mid, ())]
        history.sort(key=lambda e: -int(e["timestamp"]))  # most recent first
        histories[mid] = history

    for mid, sender, content, html, ts in to_edit:
        new = content + " (edited)"
        when = ts + 120
        c = change(mid)
        c[3], c[4], c[5] = new, rendered(new), when
        add_history(
            mid,
            {
                "user_id": sender,
                "timestamp": when,
                "prev_content": content,
                "prev_rendered_content": html,
            },
        )
    stream_ids = sorted({sid for sid, _ in groups})
    moderators = [
        r["id"]
        for r in store.query(
            "SELECT id FROM users WHERE role <= 300 AND is_bot = 0 AND is_active = 1 ORDER BY id"
        )
    ]
    # where each topic's messages are now: a topic moved into a channel that already has a
    # topic of that name joins it, and moves with it if that one is moved later
    current: dict[tuple[int, str], list[int]] = {k: list(v) for k, v in groups.items()}
    for index, (key, _) in enumerate(groups.items()):
        sid, topic = key
        roll = rng.random()
        ids = sorted(current[key])
        mover = rng.choice(moderators)
        when = min(now - 60, last_seen[key] + 3600)
        # One topic in twenty-five moves to another channel and one is renamed, whatever the
        # size; about three in ten of the rest are resolved.
        if index % 25 == 3 and len(stream_ids) > 1:  # moved to another channel
            target = rng.choice([s for s in stream_ids if s != sid])
            entry: dict[str, Any] = {
                "user_id": mover,
                "timestamp": when,
                "prev_stream": sid,
                "stream": target,
            }
            for mid in ids:
                c = change(mid)
                c[0], c[1], c[6] = target, recipients[target], when
                add_history(mid, entry)
            del current[key]
            current.setdefault((target, topic), []).extend(ids)
        elif index % 25 == 11:  # renamed
            renamed = f"{topic} (renamed)"
            entry = {"user_id": mover, "timestamp": when, "prev_topic": topic, "topic": renamed}
            for mid in ids:
                c = change(mid)
                c[2], c[6] = renamed, when
                add_history(mid, entry)
            del current[key]
        elif roll < 0.3:  # resolved: not a move, so no last_moved_timestamp
            entry = {
                "user_id": mover,
                "timestamp": when,
                "prev_topic": topic,
                "topic": prefix + topic,
            }
            for mid in ids:
                change(mid)[2] = prefix + topic
                add_history(mid, entry)
            del current[key]
    # The messages of a moved or resolved topic share their history entries: encode each
    # distinct history once.
    encoded: dict[tuple[int, ...], str] = {}

    def encode(history: list[dict[str, Any]]) -> str:
        key = tuple(id(e) for e in history)
        text = encoded.get(key)
        if text is None:
            text = encoded[key] = json.dumps(history)
        return text

    store.executemany(
        "UPDATE messages SET stream_id = coalesce(?, stream_id), "
        "recipient_id = coalesce(?, recipient_id), topic = coalesce(?, topic), "
        "content = coalesce(?, content), rendered_content = coalesce(?, rendered_content), "
        "last_edit_timestamp = ?, last_moved_timestamp = ?, edit_history = ? WHERE id = ?",
        ((*c, encode(histories[mid]), mid) for mid, c in sorted(changes.items())),
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
