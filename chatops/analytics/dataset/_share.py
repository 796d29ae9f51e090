"""A dataset's frames made fit to hand to someone else: ``chatops data export --pseudonymise``.

Each frame keeps only the columns listed in :data:`SHARED`, each as the table says:

- every column naming a person (``sender_id``, ``user_id`` of reactions, direct-message
  recipients, subscriptions, group members and edits, ``bot_owner_id``, ``creator_id``)
  becomes the person's keyed pseudonym (:mod:`chatops.analytics.pseudonyms`), the same one
  ``anonymize=True`` gives in the views under the same key;
- names, emails and the message text are left out (the text's length stays, as
  ``content_length``); so are channel descriptions (free text) and ``topic_links`` (links
  taken from topic names);
- topic names become keyed pseudonyms ``t-…`` (the resolved mark ``✔`` kept): a topic is often
  named after a person, a customer or an incident, while analyses need only tell topics apart;
- a direct-message conversation (``recipient_id``) becomes a keyed pseudonym ``c-…``: the
  server's recipient ids follow account creation, so a raw one points at its people;
- when an account joined is kept to the day;
- channel names, group names, emoji, clients, times, counts and flags stay as they are.

A column the table does not list is left out, so a column added to the frames later is not
shared until it is listed here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

import pandas as pd

from ..coverage import Coverage
from ..pseudonyms import PseudonymKey
from ..schema import RESOLVED_PREFIX

__all__ = ["SHARED", "shared_frames", "shared_note"]

KEEP, PERSON, TOPIC, CONVERSATION, DAY = "keep", "person", "topic", "conversation", "day"

#: frame -> column -> what the shared copy holds of it (columns not listed are left out)
SHARED: dict[str, dict[str, str]] = {
    "messages": {
        "id": KEEP,
        "timestamp": KEEP,
        "type": KEEP,
        "stream_id": KEEP,
        "channel": KEEP,
        "topic": TOPIC,
        "sender_id": PERSON,
        "client": KEEP,
        "content_length": KEEP,
        "is_edited": KEEP,
        "is_moved": KEEP,
        "reaction_count": KEEP,
        "recipient_id": CONVERSATION,
        "last_edit_timestamp": KEEP,
        "last_moved_timestamp": KEEP,
    },
    "reactions": {
        "message_id": KEEP,
        "user_id": PERSON,
        "emoji_name": KEEP,
        "emoji_code": KEEP,
        "reaction_type": KEEP,
    },
    "edits": {
        "message_id": KEEP,
        "timestamp": KEEP,
        "user_id": PERSON,
        "kind": KEEP,
        "prev_topic": TOPIC,
        "topic": TOPIC,
        "prev_stream_id": KEEP,
        "stream_id": KEEP,
    },
    "dm_recipients": {"message_id": KEEP, "user_id": PERSON},
    "topics": {
        "stream_id": KEEP,
        "channel": KEEP,
        "topic": TOPIC,
        "messages": KEEP,
        "senders": KEEP,
        "first_message_id": KEEP,
        "last_message_id": KEEP,
        "first_timestamp": KEEP,
        "last_timestamp": KEEP,
        "resolved": KEEP,
    },
    "users": {
        "user_id": PERSON,
        "role": KEEP,
        "role_name": KEEP,
        "is_active": KEEP,
        "is_bot": KEEP,
        "bot_type": KEEP,
        "bot_owner_id": PERSON,
        "is_system_bot": KEEP,
        "date_joined": DAY,
        "timezone": KEEP,
    },
    "channels": {
        "stream_id": KEEP,
        "name": KEEP,
        "invite_only": KEEP,
        "is_web_public": KEEP,
        "is_archived": KEEP,
        "is_default": KEEP,
        "subscriber_count": KEEP,
        "stream_weekly_traffic": KEEP,
        "date_created": KEEP,
        "creator_id": PERSON,
        "first_message_id": KEEP,
        "folder_id": KEEP,
    },
    "subscriptions": {"stream_id": KEEP, "user_id": PERSON},
    "user_groups": {"name": KEEP, "user_id": PERSON},
}


def _text_map(s: pd.Series, rename: Callable[[str], str]) -> pd.Series:
    """``s`` with each distinct value renamed once, through its categories (missing values
    stay missing; no Python step per row)."""
    cat = s.astype("category").cat.remove_unused_categories()
    renamed = cat.cat.rename_categories([rename(str(v)) for v in cat.cat.categories])
    out: pd.Series = renamed.astype("string")
    return out


def _topic(key: PseudonymKey, name: str) -> str:
    resolved = name.startswith(RESOLVED_PREFIX)
    bare = name[len(RESOLVED_PREFIX) :] if resolved else name
    return (RESOLVED_PREFIX if resolved else "") + key.label("t", bare)


def _column(s: pd.Series, how: str, key: PseudonymKey) -> pd.Series:
    if how == PERSON:
        return _text_map(s, lambda v: key.pseudonym(int(v)))
    if how == TOPIC:
        return _text_map(s, lambda v: _topic(key, v))
    if how == CONVERSATION:
        return _text_map(s, lambda v: key.label("c", str(int(v))))
    if how == DAY:
        day: pd.Series = s.dt.floor("D")
        return day
    return s


def shared_frames(
    frames: Mapping[str, pd.DataFrame | None], key: PseudonymKey
) -> dict[str, pd.DataFrame]:
    """The frames of :data:`SHARED` as a shared copy holds them (see the module's notes).

    Args:
        frames: frame name -> frame (None for one the dataset does not have); frames not in
            :data:`SHARED` (``topic_links``) are left out.
        key: the pseudonym key.
    """
    out: dict[str, pd.DataFrame] = {}
    for name, columns in SHARED.items():
        df = frames.get(name)
        if df is None:
            continue
        out[name] = pd.DataFrame(
            {col: _column(df[col], how, key) for col, how in columns.items() if col in df.columns}
        )
    return out


def shared_note(coverage: Coverage) -> str:
    """The coverage note of a shared copy: the site, not the account that synced it.

    Args:
        coverage: the dataset's coverage.
    """
    text = dataclasses.replace(coverage, content=False).note()
    if coverage.source == "sync":
        text = text.removeprefix(f"{coverage.email} on {coverage.site}")
        where = f"copy of {coverage.site}"
    else:
        text = text.removeprefix("organization export (every channel and direct message)")
        where = "copy of an organization export"
    return f"pseudonymised {where} (keyed pseudonyms, no names, emails or message text){text}"
