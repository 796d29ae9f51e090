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
person's choice, and the advice says who is in each. ``chatops audit plan`` / ``chatops audit
apply`` carry out the calls; the audit itself only reads.

Three steps: :func:`fetch` reads the users, channels, folders and each channel's subscribers;
:func:`judge` (pure) flags each channel and finds near-duplicate names; :func:`conclude` turns
that into findings, tables and the summary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ..._exceptions import ApiError
from ...changes.kinds import ArchiveChannel
from .._common import api, crossed, fill, finding, utc
from .._common import summary as summary_of
from .._params import Param
from .._result import AuditResult, Finding
from ._names import Pair, merge_advice, near_duplicates, normalise_channel_name, proposed_name

if TYPE_CHECKING:
    from ..._client import Client
    from ...types import Channel, ChannelFolder, User

__all__ = [
    "JudgedChannel",
    "Judged",
    "Options",
    "Pair",
    "Read",
    "channel_hygiene",
    "conclude",
    "fetch",
    "findings",
    "judge",
    "normalise_channel_name",
]

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
#: what a channel's members say, as its flag
NO_SUBSCRIBERS = "no subscribers"
ALL_DEACTIVATED = "all subscribers deactivated"
SINGLE_MEMBER = "private with one member"


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`channel_hygiene`, checked (ValueError naming the one out of
    range, or a ``name_regex`` that does not compile)."""

    require_description: bool = True
    require_folder: bool = False
    name_regex: str = ""
    similarity: float = 0.85
    max_hygiene_findings: int = 5

    def __post_init__(self) -> None:
        if not 0 < self.similarity <= 1:
            raise ValueError(f"similarity must be above 0 and at most 1, not {self.similarity}")
        if self.max_hygiene_findings < -1:
            raise ValueError(
                "max_hygiene_findings must be -1 (off) or at least 0, not "
                f"{self.max_hygiene_findings}"
            )
        try:
            self.pattern  # noqa: B018 - compiling is the check
        except re.error as exc:
            raise ValueError(f"name_regex is not a valid regular expression: {exc}") from exc

    @property
    def pattern(self) -> re.Pattern[str] | None:
        """``name_regex`` compiled (None: no naming rule)."""
        return re.compile(self.name_regex) if self.name_regex else None


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    users: dict[int, User]
    #: every channel the account can see, archived ones too
    listed: list[Channel]
    #: the folders that are not archived, by id
    folders: dict[int, ChannelFolder]
    #: stream id -> its active subscribers, sorted (None: the server would not say)
    members: dict[int, list[int] | None]
    #: stream id -> deactivated users still subscribed, for the channels with no active one
    deactivated_subscribers: dict[int, list[int]]
    #: the server would not say whether deactivated users are subscribed
    status_unanswered: bool

    @property
    def channels(self) -> list[Channel]:
        """The channels judged: the ones not archived, by id."""
        return sorted((c for c in self.listed if not c.is_archived), key=lambda c: c.stream_id)


@dataclass(frozen=True)
class JudgedChannel:
    """One channel, judged."""

    channel: Channel
    no_description: bool
    no_folder: bool
    #: its name does not match ``name_regex``; the name proposed instead, if any
    bad_name: bool
    proposed_name: str | None
    #: its active subscribers (None: not known) and the deactivated ones still subscribed
    active: list[int] | None
    deactivated: list[int]
    #: ``NO_SUBSCRIBERS``, ``ALL_DEACTIVATED``, ``SINGLE_MEMBER`` or None
    membership: str | None
    #: its flags in words, one ``near-duplicate`` per pair it is in
    flags: list[str]

    @property
    def subject(self) -> str:
        """``#design (4)``."""
        return f"#{self.channel.name} ({self.channel.stream_id})"

    @property
    def problems(self) -> int:
        """How many findings it has of its own (pairs aside)."""
        flags = (self.no_description, self.no_folder, self.bad_name, self.membership is not None)
        return sum(flags)


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    at: pd.Timestamp
    #: the channels judged, by id
    channels: list[JudgedChannel]
    pairs: list[Pair]

    @property
    def hygiene(self) -> int:
        """How many hygiene findings there are (the threshold's finding aside)."""
        return sum(c.problems for c in self.channels) + len(self.pairs)

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        return crossed("max_hygiene_findings", self.options.max_hygiene_findings, self.hygiene)


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

    Tables: ``channels`` (one row per channel with its flags), ``near_duplicates`` (pairs of
    names with their ratio).
    """
    options = Options(
        require_description=require_description,
        require_folder=require_folder,
        name_regex=name_regex,
        similarity=similarity,
        max_hygiene_findings=max_hygiene_findings,
    )
    return conclude(judge(fetch(client), options, at=utc(now)))


def fetch(client: Client) -> Read:
    """Read the users, every channel, the folders and the subscribers of each live channel
    (asking for deactivated users' subscriptions where a channel has no active one)."""
    users = {u.user_id: u for u in client.users.list()}
    listed = client.channels.list(include_all=True, exclude_archived=False)
    folders = {f.id: f for f in client.channels.folders() if not f.is_archived}
    deactivated = sorted(uid for uid, u in users.items() if not u.is_active)
    members: dict[int, list[int] | None] = {}
    gone: dict[int, list[int]] = {}
    unanswered = False
    for channel in sorted((c for c in listed if not c.is_archived), key=lambda c: c.stream_id):
        try:
            active: list[int] | None = sorted(client.channels.members(channel.stream_id))
        except ApiError:
            active = None
        members[channel.stream_id] = active
        if active is not None and not active and deactivated and not unanswered:
            gone[channel.stream_id], unanswered = _deactivated_subscribers(
                client, channel, deactivated
            )
    return Read(client.site, users, listed, folders, members, gone, unanswered)


def judge(read: Read, options: Options, *, at: pd.Timestamp) -> Judged:
    """Flag each live channel and find the near-duplicate names; no I/O."""
    # an archived channel keeps its name, so a rename cannot take it
    taken = {c.name.casefold() for c in read.listed}
    channels = read.channels
    pairs = near_duplicates(channels, options.similarity)
    in_pairs = [ch.stream_id for a, b, _r, _s in pairs for ch in (a, b)]
    pattern = options.pattern
    judged: list[JudgedChannel] = []
    for channel in channels:
        active = read.members.get(channel.stream_id)
        gone = read.deactivated_subscribers.get(channel.stream_id, [])
        no_description = options.require_description and not channel.description.strip()
        no_folder = options.require_folder and (
            channel.folder_id is None or channel.folder_id not in read.folders
        )
        bad_name = pattern is not None and not pattern.fullmatch(channel.name)
        proposal = proposed_name(channel.name, pattern, taken) if pattern and bad_name else None
        membership = None
        if active is None:
            pass
        elif not active:
            membership = ALL_DEACTIVATED if gone else NO_SUBSCRIBERS
        elif channel.invite_only and len(active) == 1:
            membership = SINGLE_MEMBER
        flags = [
            *(["no description"] if no_description else []),
            *(["no folder"] if no_folder else []),
            *(["name does not match name_regex"] if bad_name else []),
            *([membership] if membership else []),
            *["near-duplicate"] * in_pairs.count(channel.stream_id),
        ]
        judged.append(
            JudgedChannel(
                channel=channel,
                no_description=no_description,
                no_folder=no_folder,
                bad_name=bad_name,
                proposed_name=proposal,
                active=active,
                deactivated=gone if active is not None else [],
                membership=membership,
                flags=flags,
            )
        )
    return Judged(read, options, at, judged, pairs)


def findings(judged: Judged) -> list[Finding]:
    """The findings of a judgement, each with the call that fixes it (a value in braces is a
    person's to choose)."""
    rows: list[Finding] = []
    for c in judged.channels:
        rows += _channel_rows(c, judged)
    members = {
        c.channel.stream_id: None if c.active is None else set(c.active) for c in judged.channels
    }
    for a, b, ratio, same in judged.pairs:
        why = (
            "the same name once case, separators and plurals are folded"
            if same
            else f"names {ratio:.0%} alike"
        )
        rows.append(
            finding(
                "warning",
                f"#{a.name} ({a.stream_id}) / #{b.name} ({b.stream_id})",
                f"near-duplicate channel names: {why}",
                merge_advice(a, b, members),
                # which one goes is a person's choice: the plan never runs this as written
                api("DELETE", "/streams/{stream_id_to_archive}"),
            )
        )
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "channels",
                f"{judged.hygiene} channel hygiene findings; the threshold is "
                f"{judged.options.max_hygiene_findings}",
                "Work through the findings listed",
                api("PATCH", "/streams/{stream_id}", or_=api("DELETE", "/streams/{stream_id}")),
            )
        )
    return rows


def _channel_rows(c: JudgedChannel, judged: Judged) -> list[Finding]:
    """The findings of one channel, in the order of its flags."""
    subject, patch = c.subject, f"/streams/{c.channel.stream_id}"
    archive = ArchiveChannel(stream_id=c.channel.stream_id)
    rows: list[Finding] = []
    if c.no_description:
        rows.append(
            finding(
                "warning",
                subject,
                "has no description",
                "Say what the channel is for",
                api("PATCH", patch, description=fill("{description}")),
            )
        )
    if c.no_folder:
        rows.append(
            finding(
                "info",
                subject,
                "is in no channel folder",
                _folder_advice(judged.read.folders),
                api("PATCH", patch, folder_id=fill("{folder_id}")),
            )
        )
    if c.bad_name:
        rows.append(
            finding(
                "warning",
                subject,
                f"name does not match {judged.options.name_regex!r}",
                "Rename the channel to follow the naming convention",
                api("PATCH", patch, new_name=c.proposed_name or fill("{new_name}")),
            )
        )
    users = judged.read.users
    if c.membership == NO_SUBSCRIBERS:
        rows.append(
            finding(
                "warning",
                subject,
                "has no subscribers",
                "Archive the channel (its history stays)",
                archive,
            )
        )
    elif c.membership == ALL_DEACTIVATED:
        names = ", ".join(users[u].full_name for u in c.deactivated if u in users)
        rows.append(
            finding(
                "warning",
                subject,
                f"every subscriber is deactivated ({names})",
                "Archive the channel, or subscribe the people who took over its work",
                archive,
            )
        )
    elif c.membership == SINGLE_MEMBER and c.active:
        only = users.get(c.active[0])
        who = only.full_name if only else str(c.active[0])
        rows.append(
            finding(
                "info",
                subject,
                f"is private with a single member ({who})",
                "Subscribe the people who need it, or archive it if it is no longer used",
                archive,
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    rows = findings(judged)
    options, read = judged.options, judged.read
    table = pd.DataFrame(
        [
            {
                "stream_id": c.channel.stream_id,
                "name": c.channel.name,
                "privacy": _privacy(c.channel),
                "description": c.channel.description,
                "folder": _folder_name(c.channel.folder_id, read.folders),
                "subscribers": None if c.active is None else len(c.active) + len(c.deactivated),
                "active_subscribers": None if c.active is None else len(c.active),
                "deactivated_subscribers": None if c.active is None else len(c.deactivated),
                "flags": "; ".join(c.flags),
            }
            for c in judged.channels
        ],
        columns=list(TABLE_COLUMNS),
    ).set_index("stream_id")
    pair_table = pd.DataFrame(
        [
            {"channel": a.name, "other": b.name, "ratio": round(r, 3), "same_when_folded": s}
            for a, b, r, s in judged.pairs
        ],
        columns=["channel", "other", "ratio", "same_when_folded"],
    )
    counts = {
        "channels": len(judged.channels),
        "no_description": _flagged(table, "no description"),
        "no_folder": _flagged(table, "no folder"),
        "bad_name": _flagged(table, "name does not match name_regex"),
        "near_duplicate_pairs": len(judged.pairs),
        "no_subscribers": _flagged(table, NO_SUBSCRIBERS),
        "all_subscribers_deactivated": _flagged(table, ALL_DEACTIVATED),
        "private_single_member": _flagged(table, SINGLE_MEMBER),
        "findings": judged.hygiene,
    }
    channels = [c.channel for c in judged.channels]
    # every channel judged, each near-duplicate pair found (a pair stops being one only when a
    # channel of it is archived or renamed, and then the pair is not there in these words) and
    # the threshold's "channels"
    subjects = [f"#{c.name} ({c.stream_id})" for c in channels]
    subjects += [
        f"#{a.name} ({a.stream_id}) / #{b.name} ({b.stream_id})" for a, b, _r, _s in judged.pairs
    ]
    summary = summary_of(
        "channel_hygiene",
        subjects=[*subjects, "channels"],
        # renaming is the fix of a bad name: the channel, under its new name, is still there
        subject_keys={f"#{c.name} ({c.stream_id})": f"stream {c.stream_id}" for c in channels},
        failed=judged.failed,
        counts=counts,
        thresholds={
            "max_hygiene_findings": options.max_hygiene_findings,
            "require_description": options.require_description,
            "require_folder": options.require_folder,
            "name_regex": options.name_regex,
            "similarity": options.similarity,
        },
        coverage=_coverage(judged),
        site=read.site,
        generated_at=judged.at.isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={"channels": table, "near_duplicates": pair_table},
    )


def _coverage(judged: Judged) -> dict[str, Any]:
    coverage: dict[str, Any] = {
        "channels": "non-archived channels the account can see (GET /streams include_all)",
    }
    hidden = [c.channel.name for c in judged.channels if c.active is None]
    if hidden:
        coverage["members_hidden"] = (
            f"subscribers of {len(hidden)} channels could not be read: " + ", ".join(hidden)
        )
    if judged.read.status_unanswered:
        coverage["deactivated_subscribers"] = (
            "the server does not say whether deactivated users are subscribed, so a channel "
            "whose people were all deactivated is reported as having no subscribers"
        )
    return coverage


def _privacy(channel: Channel) -> str:
    if channel.invite_only:
        return "private"
    return "web-public" if channel.is_web_public else "public"


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
