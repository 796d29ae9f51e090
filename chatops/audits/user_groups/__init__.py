"""User groups: empty, small or unused groups, and deactivated users still in groups.

"Used" means what Zulip's deactivation ``objections`` list, computed locally (the deactivate
endpoint acts, so the audit never calls it): an organization setting (``realm_*_group``
from ``POST /register``), a channel setting (``can_*_group`` from ``GET /streams``), another
group's setting (``can_*_group``), or membership as a subgroup of another active group.

A group no setting or group uses may still be in use as a mention: the audit reads the
messages of the last ``stale_days`` days that its account can read (newest first, at most
``max_messages``; run it as an administrator subscribed to the channels) for ``@*group*`` and
silent ``@_*group*`` mentions. Only a group that is both unused and not mentioned in that
window is reported as unused (``info``, ``warning`` when it is also empty), with the call that
deactivates it; the ``groups`` table gives each group's last mention in the window.

A setting of the organization or of a channel granted to a custom group (directly or inside an
anonymous group) that reaches more than ``max_group_size_ratio`` of the active humans is
reported (``info``): the group no longer restricts much. The settings granted to the role
groups are :mod:`permission_posture`'s, which judges them by how sensitive they are; the
setting list and the resolution of a setting to its members are shared with it.

The ``graph`` table is the edge list of subgroup edges (supergroup -> subgroup) and permission
edges (group -> the organization, channel or group whose setting names it). The real server
refuses a subgroup that would make a cycle, so a cycle cannot occur in its data; the audit
checks anyway (:func:`subgroup_cycles`) and reports one as a ``warning``, since members of a
cycle resolve to each other's members and a data import or another server could bring one.

A group with active members may still list deactivated users (Zulip keeps them); each such
group is a finding whose call removes them (``POST /user_groups/{id}/members`` with
``delete``). With ``min_members`` above 1, a group with fewer active members than that is
reported as small (``info``).

One threshold, with a default the demo organization passes:

- ``max_empty_groups`` (1): fail when more active non-system groups than this have no active
  member (none at all, or only deactivated users). ``-1`` switches the check off.

An unused (and unmentioned) non-system group's finding carries the call that deactivates it
(``POST /user_groups/{id}/deactivate``); a group with active members that still lists
deactivated users carries the call that removes them; ``chatops audit plan`` / ``chatops audit
apply`` carry those out, and the audit itself only reads. An empty group that is still used
needs new members, which a person chooses (``{user_ids}``).

Three steps: :func:`fetch` reads the groups, users, organization and channel settings and the
messages of the mention window; :func:`judge` (pure) judges each group, the settings reaching
too many through custom groups, and the subgroup cycles; :func:`conclude` turns that into
findings, tables and the summary. The relations themselves (usages, mentions, the graph) are
in :mod:`._graph`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import pandas as pd

from ...changes import Change
from ...changes.kinds import DeactivateGroup, UpdateGroupMembers, UpdateGroupSubgroups
from ...types import UserGroup
from .._common import (
    DEFAULT_MAX_MESSAGES,
    api,
    crossed,
    fill,
    finding,
    group_members,
    recent_messages,
    utc,
)
from .._common import summary as summary_of
from .._params import Param
from .._result import ApiCall, AuditResult, Finding
from .._settings import Setting, describe_setting, group_settings, resolve_group_setting
from ._graph import (
    GRAPH_COLUMNS,
    GROUP_MENTION,
    edge_graph,
    graph_edges,
    group_mentions,
    group_usages,
    subgroup_cycles,
)

if TYPE_CHECKING:
    from ..._client import Client
    from ...types import Message, User

__all__ = [
    "GRAPH_COLUMNS",
    "GROUP_MENTION",
    "HugeSetting",
    "JudgedGroup",
    "Judged",
    "Options",
    "Read",
    "conclude",
    "edge_graph",
    "fetch",
    "findings",
    "graph_edges",
    "group_mentions",
    "group_usages",
    "judge",
    "subgroup_cycles",
    "user_groups",
]

GROUPS_COLUMNS = [
    "group_id",
    "name",
    "is_system_group",
    "direct_members",
    "members",
    "active_members",
    "deactivated_members",
    "subgroups",
    "uses",
    "used_in",
    "mentions",
    "last_mention",
]


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`user_groups`, checked (ValueError naming the one out of range)."""

    max_empty_groups: int = 1
    min_members: int = 1
    stale_days: int = 180
    max_messages: int = DEFAULT_MAX_MESSAGES
    max_group_size_ratio: float = 0.5

    def __post_init__(self) -> None:
        if self.min_members < 0:
            raise ValueError(f"min_members must be at least 0, not {self.min_members}")
        if self.stale_days < 1:
            raise ValueError(f"stale_days must be at least 1, not {self.stale_days}")
        if self.max_messages < 1:
            raise ValueError(f"max_messages must be at least 1, not {self.max_messages}")
        ratio = self.max_group_size_ratio
        if not (ratio == -1 or 0 <= ratio <= 1):
            raise ValueError(f"max_group_size_ratio must be between 0 and 1, or -1, not {ratio}")


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    #: every group as raw JSON (``GET /user_groups``), so that every setting counts
    raw_groups: list[dict[str, Any]]
    users: list[User]
    #: the ``POST /register`` state, and the channels as raw ``GET /streams`` records
    realm: dict[str, Any]
    channels: list[dict[str, Any]]
    #: the messages of the mention window the account can read, newest first
    messages: list[Message]
    #: whether ``max_messages`` cut the window short
    truncated: bool


@dataclass(frozen=True)
class JudgedGroup:
    """One active group, judged."""

    group: UserGroup
    #: its members with its subgroups', and the active ones among them
    members: set[int]
    active: set[int]
    #: where it is used, in words (``#design:can_send_message_group``, ``subgroup of leads``)
    used_in: list[str]
    #: (mentions in the window, time of the last) or None when not mentioned
    mentioned: tuple[int, int] | None
    #: no active member (none at all, or only deactivated ones); used by nothing, mentioned
    #: nowhere; fewer active members than ``min_members``
    empty: bool
    unused: bool
    small: bool
    #: deactivated users still direct members of a group with active members
    deactivated_members: list[int]
    #: why it is empty or unused, in words
    flags: list[str]


@dataclass(frozen=True)
class HugeSetting:
    """A setting granted to a custom group that reaches more than ``max_group_size_ratio``."""

    setting: Setting
    reached: set[int]
    share: float


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    at: pd.Timestamp
    #: the active groups (system ones too), by id
    groups: list[JudgedGroup]
    usages: list[dict[str, Any]]
    mentions: dict[str, tuple[int, int]]
    huge: list[HugeSetting]
    #: cycles of subgroup edges, as group ids
    cycles: list[list[int]]

    @property
    def cutoff(self) -> pd.Timestamp:
        """The start of the mention window."""
        return self.at - timedelta(days=self.options.stale_days)

    @property
    def by_id(self) -> dict[int, UserGroup]:
        """The active groups by id."""
        return {g.group.id: g.group for g in self.groups}

    @property
    def empty(self) -> list[JudgedGroup]:
        """The non-system groups with no active member."""
        return [g for g in self.groups if g.empty]

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        return crossed("max_empty_groups", self.options.max_empty_groups, len(self.empty))


def user_groups(
    client: Client,
    *,
    max_empty_groups: Annotated[
        int,
        Param(
            "fail when more non-system groups than this have no active member (-1: off)",
            low=-1,
        ),
    ] = 1,
    min_members: Annotated[
        int,
        Param(
            "report groups with fewer active members than this as small (0 or 1: off)",
            low=0,
        ),
    ] = 1,
    stale_days: Annotated[
        int,
        Param(
            "a group no setting uses is unused when no message of this many days mentions it",
            low=1,
        ),
    ] = 180,
    max_messages: Annotated[
        int,
        Param("read at most this many messages for mentions, newest first", low=1),
    ] = DEFAULT_MAX_MESSAGES,
    max_group_size_ratio: Annotated[
        float,
        Param(
            "report settings granted to a custom group reaching more than this "
            "share of active humans (-1: off)",
            off=-1,
            low=0,
            high=1,
        ),
    ] = 0.5,
    now: datetime | None = None,
) -> AuditResult:
    """Fetch groups, users, organization and channel settings, and judge the groups.

    Args:
        client: a client of an administrator.
        max_empty_groups: fail when more active non-system groups than this have no active
            member; ``-1`` disables the check.
        min_members: report non-system groups with at least one but fewer than this many
            active members as small; 0 or 1 switches the check off.
        stale_days: a group no setting or group uses is unused when no message of this many
            days mentions it.
        max_messages: read at most this many messages of history for mentions, newest first.
        max_group_size_ratio: report organization and channel settings granted to a custom
            group that reach more than this share (0 to 1) of the active humans; ``-1``
            disables the check.
        now: when the audit is dated; default the current time.

    Tables: ``groups`` (one row per active group), ``usages`` (where each group is used),
    ``graph`` (subgroup and permission edges, see :func:`graph_edges`).
    """
    options = Options(
        max_empty_groups=max_empty_groups,
        min_members=min_members,
        stale_days=stale_days,
        max_messages=max_messages,
        max_group_size_ratio=max_group_size_ratio,
    )
    at = utc(now)
    return conclude(judge(fetch(client, options, at=at), options, at=at))


def fetch(client: Client, options: Options, *, at: pd.Timestamp) -> Read:
    """Read the groups, users, organization and channel settings, and the messages of the
    ``stale_days`` before ``at``."""
    raw_groups = _raw(client, "/user_groups", "user_groups", {})
    users = client.users.list()
    realm = client.server.register()
    channels = _raw(client, "/streams", "streams", {"include_all": True})
    cutoff = at - timedelta(days=options.stale_days)
    messages, truncated = recent_messages(
        client, since=cutoff, until=at, limit=options.max_messages
    )
    return Read(client.site, raw_groups, users, realm, channels, messages, truncated)


def judge(read: Read, options: Options, *, at: pd.Timestamp) -> Judged:
    """Judge each active group, the settings that reach too many through custom groups and
    the subgroup cycles, as of ``at`` (an aware UTC time); no I/O."""
    raw = read.raw_groups
    groups = [msgspec.convert(g, UserGroup) for g in raw if not g.get("deactivated", False)]
    by_id = {g.id: g for g in groups}
    raw_by_id = {int(g["id"]): g for g in raw}
    active_users = {u.user_id for u in read.users if u.is_active}
    humans = {u.user_id for u in read.users if u.is_active and not u.is_bot}
    usages = [u for u in group_usages(raw, read.realm, read.channels) if u["group_id"] in by_id]
    mentions = group_mentions(
        ((m.timestamp, m.content) for m in read.messages if m.timestamp <= at.timestamp()),
        [g.name for g in groups],
    )
    used_in: dict[int, list[str]] = {}
    for u in usages:
        label = f"{u['where']}:{u['setting']}" if u["setting"] else f"subgroup of {u['where']}"
        used_in.setdefault(int(u["group_id"]), []).append(label)
    judged = [
        _judge_group(g, by_id, active_users, used_in.get(g.id, []), mentions, options)
        for g in sorted(groups, key=lambda x: x.id)
    ]
    huge = _huge_settings(
        group_settings(read.realm, read.channels),
        by_id,
        raw_by_id,
        humans,
        options.max_group_size_ratio,
    )
    cycles = subgroup_cycles([raw_by_id[g.id] for g in groups])
    return Judged(read, options, at, judged, usages, mentions, huge, cycles)


def _judge_group(
    g: UserGroup,
    by_id: Mapping[int, UserGroup],
    active_users: set[int],
    where: list[str],
    mentions: Mapping[str, tuple[int, int]],
    options: Options,
) -> JudgedGroup:
    members = group_members(g.id, by_id)
    active = members & active_users
    flags: list[str] = []
    if not members:
        flags.append("has no members")
    elif not active:
        flags.append(f"has only deactivated members ({len(members)})")
    empty = bool(flags)
    unused = not where and g.name not in mentions
    if unused:
        flags.append(
            "is not used by any setting or group, nor mentioned in the last "
            f"{options.stale_days} days"
        )
    gone = sorted(set(g.members) - active_users) if active else []
    system = g.is_system_group
    return JudgedGroup(
        group=g,
        members=members,
        active=active,
        used_in=where,
        mentioned=mentions.get(g.name),
        empty=empty and not system,
        unused=unused and not system,
        small=bool(active) and len(active) < options.min_members and not system,
        deactivated_members=[] if system else gone,
        flags=[] if system else flags,
    )


def findings(judged: Judged) -> list[Finding]:
    """The findings of a judgement, each with the call that fixes it (``{user_ids}``: the
    members a person chooses)."""
    options = judged.options
    rows: list[Finding] = []
    for g in judged.groups:
        rows += _group_rows(g, options)
    groups = judged.read.raw_groups
    raw_by_id = {int(g["id"]): g for g in groups}
    for h in judged.huge:
        _scope, where, stream_id, name, value = h.setting
        path = "/realm" if stream_id is None else f"/streams/{stream_id}"
        rows.append(
            finding(
                "info",
                f"{where}: {name}",
                f"setting reaches {h.share:.0%} of the organization through custom groups "
                f"({describe_setting(value, raw_by_id)}, {len(h.reached)} people); the limit "
                f"is {options.max_group_size_ratio:.0%}",
                "Check that the group is meant to be this broad, or set the setting to a "
                "smaller group",
                api("PATCH", path, {name: {"new": fill("{group_id}")}}),
            )
        )
    names = {g.group.id: g.group.name for g in judged.groups}
    for cycle in judged.cycles:
        path = " -> ".join(f"@{names[c]}" for c in [*cycle, cycle[0]])
        rows.append(
            finding(
                "warning",
                path,
                "subgroups form a cycle, so each group's members include all the others'",
                "Remove one of the subgroup links of the cycle",
                UpdateGroupSubgroups(group_id=cycle[-1], delete=[cycle[0]]),
            )
        )
    if judged.read.truncated:
        rows.append(
            finding(
                "warning",
                "coverage",
                f"mention scan stopped at max_messages={options.max_messages} before the window "
                f"of {options.stale_days} days began; some groups may look unmentioned",
                "Raise max_messages for complete mentions",
                api("GET", "/messages", anchor="newest"),
            )
        )
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "groups",
                f"{len(judged.empty)} groups have no active member; the threshold is "
                f"{options.max_empty_groups}",
                "Give the groups active members or deactivate the unused ones",
                api("POST", "/user_groups/{group_id}/deactivate"),
            )
        )
    return rows


def _group_rows(g: JudgedGroup, options: Options) -> list[Finding]:
    """The findings of one group: deactivated members, small, then empty or unused."""
    subject, gid = f"@{g.group.name}", g.group.id
    add_members = api("POST", f"/user_groups/{gid}/members", add=[fill("{user_ids}")])
    rows: list[Finding] = []
    if g.deactivated_members:
        rows.append(
            finding(
                "warning",
                subject,
                f"{len(g.deactivated_members)} deactivated users are still direct members",
                "Remove the deactivated users from the group",
                UpdateGroupMembers(group_id=gid, delete=list(g.deactivated_members)),
            )
        )
    if g.small:
        rows.append(
            finding(
                "info",
                subject,
                f"has {len(g.active)} active members, fewer than min_members={options.min_members}",
                "Add the people the group stands for, or deactivate it if it is not needed",
                add_members,
            )
        )
    if not g.flags:
        return rows
    text = "; ".join(g.flags)
    if g.unused:
        action = "Deactivate the group (nothing uses it)"
        call: Change | ApiCall = DeactivateGroup(group_id=gid)
    elif g.used_in:
        text += f"; used in {', '.join(g.used_in)}"
        action = "Add active members, or replace the group in the settings that use it"
        call = add_members
    else:
        count, last = g.mentioned or (0, 0)
        day = pd.Timestamp(last, unit="s", tz="UTC").strftime("%Y-%m-%d")
        text += f"; mentioned {count} times in the last {options.stale_days} days, last on {day}"
        action = "Add active members, since people mention the group"
        call = add_members
    rows.append(finding("warning" if g.empty else "info", subject, text, action, call))
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    rows = findings(judged)
    options, read, groups = judged.options, judged.read, judged.groups
    groups_table = pd.DataFrame(
        [_group_row(g) for g in groups],
        columns=GROUPS_COLUMNS,
    ).set_index("group_id")
    groups_table["last_mention"] = pd.to_datetime(groups_table["last_mention"], utc=True)
    by_id = judged.by_id
    usage_table = pd.DataFrame(judged.usages, columns=["group_id", "kind", "where", "setting"])
    usage_table.insert(1, "group", [by_id[int(i)].name for i in usage_table["group_id"]])
    present = [f"@{g.group.name}" for g in groups] + ["coverage", "groups"]
    settings = group_settings(read.realm, read.channels)
    present += [f"{where}: {name}" for _s, where, _id, name, _v in settings]
    present += [r.subject for r in rows]
    summary = summary_of(
        "user_groups",
        subjects=present,
        failed=judged.failed,
        counts={
            "groups": len(groups),
            "system_groups": sum(1 for g in groups if g.group.is_system_group),
            "custom_groups": sum(1 for g in groups if not g.group.is_system_group),
            "empty_groups": len(judged.empty),
            "unused_groups": sum(g.unused for g in groups),
            "small_groups": sum(g.small for g in groups),
            "groups_with_deactivated_members": sum(bool(g.deactivated_members) for g in groups),
            "usages": len(judged.usages),
            "mentioned_groups": len(judged.mentions),
            "messages_scanned": len(read.messages),
            "huge_group_settings": len(judged.huge),
            "subgroup_cycles": len(judged.cycles),
            "findings": len(rows),
        },
        thresholds={
            "max_empty_groups": options.max_empty_groups,
            "min_members": options.min_members,
            "stale_days": options.stale_days,
            "max_group_size_ratio": options.max_group_size_ratio,
        },
        mention_window={"since": judged.cutoff.isoformat(), "until": judged.at.isoformat()},
        truncated=read.truncated,
        site=read.site,
        generated_at=judged.at.isoformat(),
    )
    names = {g.group.id: g.group.name for g in groups}
    return AuditResult.of(
        rows,
        summary=summary,
        tables={
            "groups": groups_table,
            "usages": usage_table,
            "graph": graph_edges(judged.usages, names),
        },
    )


def _group_row(g: JudgedGroup) -> dict[str, Any]:
    where = g.used_in
    return {
        "group_id": g.group.id,
        "name": g.group.name,
        "is_system_group": g.group.is_system_group,
        "direct_members": len(g.group.members),
        "members": len(g.members),
        "active_members": len(g.active),
        "deactivated_members": len(g.members - g.active),
        "subgroups": len(g.group.direct_subgroup_ids),
        "uses": len(where),
        "used_in": ", ".join(where[:5]) + (f", ... (+{len(where) - 5})" if len(where) > 5 else ""),
        "mentions": g.mentioned[0] if g.mentioned else 0,
        "last_mention": (pd.Timestamp(g.mentioned[1], unit="s", tz="UTC") if g.mentioned else None),
    }


def _huge_settings(
    settings: Sequence[Setting],
    by_id: Mapping[int, UserGroup],
    raw_by_id: Mapping[int, Mapping[str, Any]],
    humans: set[int],
    ratio: float,
) -> list[HugeSetting]:
    """The settings granted to a custom group that reach more than ``ratio`` of ``humans``
    (the measure of :mod:`permission_posture`'s size check)."""
    found: list[HugeSetting] = []
    if ratio < 0 or not humans:
        return found
    for setting in settings:
        value = setting[4]
        named = [value] if isinstance(value, int) else value.get("direct_subgroups", []) or []
        custom = [int(g) for g in named if int(g) in by_id and not by_id[int(g)].is_system_group]
        if not custom:
            continue
        reached = resolve_group_setting(value, raw_by_id) & humans
        share = len(reached) / len(humans)
        if share > ratio:
            found.append(HugeSetting(setting, reached, share))
    return found


def _raw(client: Client, path: str, key: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Records as plain JSON objects, as :func:`group_usages` reads them (every setting)."""
    result = client.get(path, params=params)
    return [dict(r) for r in result.get(key, [])]
