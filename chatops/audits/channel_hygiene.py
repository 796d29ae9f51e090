"""Channel hygiene: descriptions, folders, names, near-duplicates and channels nobody is in.

Every non-archived channel the account can see is judged on:

- no description (``require_description``), no folder (``require_folder``);
- a name that does not match ``name_regex`` (a full match; empty: no check);
- a name close to another channel's: the same after folding case, separators (``-``, ``_``,
  ``.``, spaces) and a plural ``s``, or a ``difflib`` ratio of at least ``similarity``;
- no subscribers; subscribers who are all deactivated; a private channel with one member.

``GET /streams/{id}/members`` lists active users only, so a channel whose people were all
deactivated shows no subscribers. The audit asks ``GET /users/{user_id}/subscriptions/{id}``
for each deactivated user to tell the two apart; a server that will not answer for deactivated
users leaves them as "no subscribers", and the summary's ``coverage`` says so.

One threshold, with a default the demo organization passes:

- ``max_hygiene_findings`` (5): fail when there are more findings than this; ``-1`` switches
  the check off.

Each finding carries the call that fixes it: ``PATCH /api/v1/streams/{id}`` with
``description``, ``folder_id`` or ``new_name`` (a value in braces is one a person must choose;
a new name that matches ``name_regex`` is proposed when folding the old one gives one), or
``DELETE /api/v1/streams/{id}`` to archive. A near-duplicate pair's call names no channel
(``{stream_id_to_archive}``): which of the two to keep, and moving its topics first, is a
person's choice, and the advice says who is in each. With ``dry_run=False`` only the
unambiguous calls run: channels with no subscribers at all are archived.
"""

from __future__ import annotations

import difflib
import re
from datetime import datetime
from itertools import combinations
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from .._exceptions import ApiError
from ._common import api, fill, finding, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Channel

__all__ = ["channel_hygiene", "normalise_channel_name"]

TABLE_COLUMNS = (
    "stream_id",
    "name",
    "privacy",
    "description",
    "folder",
    "subscribers",
    "active_subscribers",
    "deactivated_subscribers",
    "flags",
)
_SEPARATORS = re.compile(r"[\s\-_.]+")


def normalise_channel_name(name: str) -> str:
    """A channel name folded for comparison: lower case, no separators, no plural ``s``.

    >>> normalise_channel_name("Release_Notes") == normalise_channel_name("release-note")
    True
    """
    words = [w for w in _SEPARATORS.split(name.casefold()) if w]
    return "".join(
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words
    )


def channel_hygiene(
    client: Client,
    *,
    require_description: Annotated[
        bool,
        Param("flag channels with an empty description"),
    ] = True,
    require_folder: Annotated[
        bool,
        Param("flag channels that are in no channel folder"),
    ] = False,
    name_regex: Annotated[
        str,
        Param(
            "regular expression every channel name must match in full; empty: no check",
        ),
    ] = "",
    similarity: Annotated[
        float,
        Param(
            "flag two channel names at least this alike (difflib ratio, 0 to 1)",
            low=0,
            high=1,
            low_open=True,
        ),
    ] = 0.85,
    max_hygiene_findings: Annotated[
        int,
        Param("fail when there are more findings than this (-1: off)", low=-1),
    ] = 5,
    now: datetime | None = None,
    dry_run: Annotated[
        bool,
        Param("when False, archive the channels that have no subscribers"),
    ] = True,
) -> AuditResult:
    """Fetch channels, folders, users and each channel's subscribers, and judge the channels.

    Args:
        client: a client of an administrator (others see fewer channels and members).
        require_description: flag channels whose description is empty.
        require_folder: flag channels that are in no channel folder.
        name_regex: a regular expression every channel name must match in full; empty: none.
        similarity: flag two names whose ``difflib`` ratio is at least this (0 < x <= 1).
        max_hygiene_findings: fail when there are more findings than this; ``-1`` disables it.
        now: the time stamped on the summary; default the current time.
        dry_run: when False, archive the channels that have no subscribers.

    Tables: ``channels`` (one row per channel with its flags), ``near_duplicates`` (pairs of
    names with their ratio).
    """
    if not 0 < similarity <= 1:
        raise ValueError(f"similarity must be above 0 and at most 1, not {similarity}")
    if max_hygiene_findings < -1:
        raise ValueError(
            f"max_hygiene_findings must be -1 (off) or at least 0, not {max_hygiene_findings}"
        )
    try:
        pattern = re.compile(name_regex) if name_regex else None
    except re.error as exc:
        raise ValueError(f"name_regex is not a valid regular expression: {exc}") from exc
    at = utc(now)

    users = {u.user_id: u for u in client.users.list()}
    listed = client.channels.list(include_all=True, exclude_archived=False)
    # an archived channel keeps its name, so a rename cannot take it
    taken = {c.name.casefold() for c in listed}
    channels = sorted((c for c in listed if not c.is_archived), key=lambda c: c.stream_id)
    folders = {f.id: f for f in client.channels.folders() if not f.is_archived}
    deactivated = sorted(uid for uid, u in users.items() if not u.is_active)
    coverage: dict[str, Any] = {
        "channels": "non-archived channels the account can see (GET /streams include_all)",
    }

    rows: list[Finding] = []
    table_rows: list[dict[str, Any]] = []
    empty: list[int] = []
    members_hidden: list[str] = []
    status_unanswered = False
    flags_by_id: dict[int, list[str]] = {}
    members: dict[int, set[int] | None] = {}
    for channel in channels:
        flags: list[str] = []
        privacy = (
            "private"
            if channel.invite_only
            else "web-public"
            if channel.is_web_public
            else "public"
        )
        subject = f"#{channel.name} ({channel.stream_id})"
        patch = f"/streams/{channel.stream_id}"
        archive = api("DELETE", f"/streams/{channel.stream_id}")
        if require_description and not channel.description.strip():
            flags.append("no description")
            rows.append(
                finding(
                    "warning",
                    subject,
                    "has no description",
                    "Say what the channel is for",
                    api("PATCH", patch, description=fill("{description}")),
                )
            )
        if require_folder and (channel.folder_id is None or channel.folder_id not in folders):
            flags.append("no folder")
            rows.append(
                finding(
                    "info",
                    subject,
                    "is in no channel folder",
                    _folder_advice(folders),
                    api("PATCH", patch, folder_id=fill("{folder_id}")),
                )
            )
        if pattern is not None and not pattern.fullmatch(channel.name):
            flags.append("name does not match name_regex")
            proposal = _proposed_name(channel.name, pattern, taken)
            rows.append(
                finding(
                    "warning",
                    subject,
                    f"name does not match {name_regex!r}",
                    "Rename the channel to follow the naming convention",
                    api("PATCH", patch, new_name=proposal or fill("{new_name}")),
                )
            )

        try:
            active = sorted(client.channels.members(channel.stream_id))
        except ApiError:
            members_hidden.append(channel.name)
            active = None
        gone: list[int] = []
        if active is not None and not active and deactivated and not status_unanswered:
            gone, status_unanswered = _deactivated_subscribers(client, channel, deactivated)
        if active is None:
            pass
        elif not active and not gone:
            flags.append("no subscribers")
            empty.append(channel.stream_id)
            rows.append(
                finding(
                    "warning",
                    subject,
                    "has no subscribers",
                    "Archive the channel (its history stays)",
                    archive,
                )
            )
        elif not active:
            names = ", ".join(users[u].full_name for u in gone if u in users)
            flags.append("all subscribers deactivated")
            rows.append(
                finding(
                    "warning",
                    subject,
                    f"every subscriber is deactivated ({names})",
                    "Archive the channel, or subscribe the people who took over its work",
                    archive,
                )
            )
        elif channel.invite_only and len(active) == 1:
            only = users.get(active[0])
            who = only.full_name if only else str(active[0])
            flags.append("private with one member")
            rows.append(
                finding(
                    "info",
                    subject,
                    f"is private with a single member ({who})",
                    "Subscribe the people who need it, or archive it if it is no longer used",
                    archive,
                )
            )
        table_rows.append(
            {
                "stream_id": channel.stream_id,
                "name": channel.name,
                "privacy": privacy,
                "description": channel.description,
                "folder": _folder_name(channel.folder_id, folders),
                "subscribers": None if active is None else len(active) + len(gone),
                "active_subscribers": None if active is None else len(active),
                "deactivated_subscribers": None if active is None else len(gone),
            }
        )
        flags_by_id[channel.stream_id] = flags
        members[channel.stream_id] = None if active is None else set(active)

    pairs = _near_duplicates(channels, similarity)
    for a, b, ratio, same in pairs:
        why = (
            "the same name once case, separators and plurals are folded"
            if same
            else f"names {ratio:.0%} alike"
        )
        for ch in (a, b):
            flags_by_id[ch.stream_id].append("near-duplicate")
        rows.append(
            finding(
                "warning",
                f"#{a.name} ({a.stream_id}) / #{b.name} ({b.stream_id})",
                f"near-duplicate channel names: {why}",
                _merge_advice(a, b, members),
                # which one goes is a person's choice: the plan never runs this as written
                api("DELETE", "/streams/{stream_id_to_archive}"),
            )
        )
    for entry in table_rows:
        entry["flags"] = "; ".join(flags_by_id[entry["stream_id"]])
    table = pd.DataFrame(table_rows, columns=list(TABLE_COLUMNS)).set_index("stream_id")
    pair_table = pd.DataFrame(
        [
            {"channel": a.name, "other": b.name, "ratio": round(r, 3), "same_when_folded": s}
            for a, b, r, s in pairs
        ],
        columns=["channel", "other", "ratio", "same_when_folded"],
    )

    hygiene = len(rows)
    failed: list[str] = []
    if 0 <= max_hygiene_findings < hygiene:
        failed.append("max_hygiene_findings")
        rows.append(
            finding(
                "critical",
                "channels",
                f"{hygiene} channel hygiene findings; the threshold is {max_hygiene_findings}",
                "Work through the findings listed",
                api("PATCH", "/streams/{stream_id}", or_=api("DELETE", "/streams/{stream_id}")),
            )
        )

    archived: list[int] = []
    if not dry_run:
        for stream_id in empty:
            client.channels.archive(stream_id)
            archived.append(stream_id)

    if members_hidden:
        coverage["members_hidden"] = (
            f"subscribers of {len(members_hidden)} channels could not be read: "
            + ", ".join(members_hidden)
        )
    if status_unanswered:
        coverage["deactivated_subscribers"] = (
            "the server does not say whether deactivated users are subscribed, so a channel "
            "whose people were all deactivated is reported as having no subscribers"
        )
    counts = {
        "channels": len(channels),
        "no_description": _flagged(table, "no description"),
        "no_folder": _flagged(table, "no folder"),
        "bad_name": _flagged(table, "name does not match name_regex"),
        "near_duplicate_pairs": len(pairs),
        "no_subscribers": _flagged(table, "no subscribers"),
        "all_subscribers_deactivated": _flagged(table, "all subscribers deactivated"),
        "private_single_member": _flagged(table, "private with one member"),
        "findings": hygiene,
        "archived_now": len(archived),
    }
    # every channel judged, each near-duplicate pair found (a pair stops being one only when a
    # channel of it is archived or renamed, and then the pair is not there in these words) and
    # the threshold's "channels"
    subjects = [f"#{c.name} ({c.stream_id})" for c in channels]
    subjects += [f"#{a.name} ({a.stream_id}) / #{b.name} ({b.stream_id})" for a, b, _r, _s in pairs]
    summary = summary_of(
        "channel_hygiene",
        subjects=[*subjects, "channels"],
        # renaming is the fix of a bad name: the channel, under its new name, is still there
        subject_keys={f"#{c.name} ({c.stream_id})": f"stream {c.stream_id}" for c in channels},
        failed=failed,
        counts=counts,
        thresholds={
            "max_hygiene_findings": max_hygiene_findings,
            "require_description": require_description,
            "require_folder": require_folder,
            "name_regex": name_regex,
            "similarity": similarity,
        },
        coverage=coverage,
        dry_run=dry_run,
        archived_stream_ids=archived,
        site=client.site,
        generated_at=at.isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={"channels": table, "near_duplicates": pair_table},
    )


def _deactivated_subscribers(
    client: Client, channel: Channel, deactivated: list[int]
) -> tuple[list[int], bool]:
    """Deactivated users still subscribed; True as second item when the server will not say."""
    found: list[int] = []
    for user_id in deactivated:
        try:
            body = client.get(f"/users/{user_id}/subscriptions/{channel.stream_id}")
        except ApiError:
            return [], True
        if body.get("is_subscribed"):
            found.append(user_id)
    return found, False


def _merge_advice(a: Channel, b: Channel, members: dict[int, set[int] | None]) -> str:
    """What a person weighs before merging two channels: who is in each, who would lose access."""
    parts = []
    for ch in (a, b):
        people = members.get(ch.stream_id)
        count = "subscribers unknown" if people is None else _people(len(people))
        parts.append(f"#{ch.name} ({'private, ' if ch.invite_only else ''}{count})")
    advice = (
        f"Choose which of {parts[0]} and {parts[1]} to keep, move the other's topics into it, "
        "then archive the other"
    )
    for ch, other in ((a, b), (b, a)):
        inside, outside = members.get(ch.stream_id), members.get(other.stream_id)
        if ch.invite_only and inside is not None and outside:
            missing = len(outside - inside)
            if missing:
                advice += (
                    f"; {_people(missing)} of #{other.name} {'is' if missing == 1 else 'are'} "
                    f"not in private #{ch.name} and would lose its history"
                )
    return advice


def _people(n: int) -> str:
    return f"{n} subscriber" if n == 1 else f"{n} subscribers"


def _near_duplicates(
    channels: list[Channel], similarity: float
) -> list[tuple[Channel, Channel, float, bool]]:
    out = []
    for a, b in combinations(channels, 2):
        same = normalise_channel_name(a.name) == normalise_channel_name(b.name)
        ratio = difflib.SequenceMatcher(None, a.name.casefold(), b.name.casefold()).ratio()
        if same or ratio >= similarity:
            out.append((a, b, ratio, same))
    return out


def _proposed_name(name: str, pattern: re.Pattern[str], taken: set[str]) -> str | None:
    """The name folded to lower-case words joined by ``-``, when that matches and is free."""
    candidate = "-".join(w for w in _SEPARATORS.split(name.casefold()) if w)
    if candidate and pattern.fullmatch(candidate) and candidate not in taken:
        return candidate
    return None


def _folder_advice(folders: dict[int, Any]) -> str:
    if not folders:
        return "Create a channel folder (POST /channel_folders/create), then put the channel in it"
    names = ", ".join(f"{f.name} ({f.id})" for f in folders.values())
    return f"Put the channel in a folder: {names}"


def _folder_name(folder_id: int | None, folders: dict[int, Any]) -> str | None:
    if folder_id is None:
        return None
    folder = folders.get(folder_id)
    return folder.name if folder is not None else str(folder_id)


def _flagged(table: pd.DataFrame, flag: str) -> int:
    return int(sum(flag in str(f).split("; ") for f in table["flags"]))
