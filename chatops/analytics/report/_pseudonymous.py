"""The report's frames with nobody named: ``chatops report analytics --pseudonymise``.

A report to hand to someone else shows people only as the keyed pseudonyms of
:mod:`chatops.analytics.pseudonyms` (the same ones ``anonymize=True`` and a
``--pseudonymise`` export give under the same key): names and emails become pseudonyms before
any view, sentence, figure or table sees them, topic names become keyed labels ``t-…`` (as in a
shared dataset: a topic is often named after a person), message text and links taken from topic
names are left out, and the coverage note and the sentences name no account.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from ..coverage import unnamed
from ..dataset._share import _topic
from ..dataset.records import AnalyticsFrames
from ..pseudonyms import PseudonymKey

__all__ = ["pseudonymous_frames"]


def _renamed(s: pd.Series, rename: dict[str, str]) -> pd.Series:
    """``s`` (text or categorical) with each value replaced through ``rename``."""
    out: pd.Series = s.astype("string").map(rename).astype("category")
    return out


def _topics(key: PseudonymKey, *columns: pd.Series) -> dict[str, str]:
    names = {str(v) for s in columns for v in s.dropna().unique()}
    return {n: _topic(key, n) for n in names}


def pseudonymous_frames(frames: AnalyticsFrames, key: PseudonymKey) -> AnalyticsFrames:
    """``frames`` with every name and email a pseudonym, every topic a keyed label, no text.

    Args:
        frames: the dataset's frames.
        key: the pseudonym key.
    """
    m = frames.messages.copy()
    attrs = dict(frames.messages.attrs)
    names: dict[int, str] = {}
    users = frames.users
    if users is not None:
        users = users.copy()
        ids = users["user_id"]
        names = {int(u): key.pseudonym(int(u)) for u in ids.dropna()}
        users["full_name"] = ids.map(lambda u: names.get(int(u)) if pd.notna(u) else None)
        users["full_name"] = users["full_name"].astype("string")
        users["email"] = pd.Series(pd.NA, index=users.index, dtype="string")
    senders = m["sender_id"].dropna().astype("int64").unique()
    names.update({int(u): key.pseudonym(int(u)) for u in senders if int(u) not in names})
    if "sender" in m.columns:
        m["sender"] = (
            m["sender_id"]
            .map(lambda u: names.get(int(u)) if pd.notna(u) else None)
            .astype("category")
        )
    for col in ("sender_email", "content"):
        if col in m.columns:
            m = m.drop(columns=col)
    edits = frames.edits.copy()
    topics = _topics(key, m["topic"], *(edits[c] for c in ("prev_topic", "topic") if c in edits))
    m["topic"] = _renamed(m["topic"], topics)
    for col in ("prev_topic", "topic"):
        if col in edits.columns:
            edits[col] = _renamed(edits[col], topics)
    coverage = str(attrs.get("coverage") or "")
    detail = attrs.get("coverage_detail")
    email = getattr(detail, "email", None)
    site = getattr(detail, "site", None)
    if email and site:
        coverage = coverage.replace(f"{email} on {site}", f"synced from {site}")
    if email:
        coverage = coverage.replace(str(email), "the synced account")
    viewpoint = unnamed(attrs.get("viewpoint") or getattr(detail, "viewpoint", None), True)
    m.attrs = {"coverage": coverage, "viewpoint": viewpoint} if coverage else {}
    if viewpoint is not None:
        m.attrs["viewpoint"] = viewpoint
    t = frames.topics
    if t is not None:
        t = t.copy()
        t["topic"] = _renamed(t["topic"], _topics(key, t["topic"]) | topics)
        t.attrs = {"viewpoint": viewpoint} if viewpoint is not None else {}
    channels = frames.channels
    if channels is not None and "description" in channels.columns:
        channels = channels.assign(description=pd.Series(pd.NA, index=channels.index))
    return dataclasses.replace(
        frames,
        messages=m,
        users=users,
        channels=channels,
        edits=edits,
        topics=t,
        topic_links=None,
    )
