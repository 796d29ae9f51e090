"""Permission posture: who each group-valued setting reaches, and how that changed.

Every group-valued setting of the organization (each ``realm_*`` key of ``POST /register``
whose name ends in ``_group`` or ``_groups`` and whose value is a group-setting value) and of
each non-archived channel (``can_*_group`` from ``GET /streams``) is resolved to the active
users it reaches, following subgroups (a deactivated group reaches nobody). One row per
setting: how many active humans it reaches, whether that is everyone, whether guests are
among them, and the share of the organization.

Flags:

- a setting named in ``sensitive_settings`` that reaches everyone or any guest (warning);
- a sensitive setting that reaches more than ``max_group_size_ratio`` of the active humans
  (warning; ``-1`` switches it off).

One threshold, with a default the demo organization passes:

- ``max_exposed_sensitive`` (0): fail when more sensitive settings than this reach everyone or
  guests; ``-1`` switches the check off.

With ``previous_snapshot`` (the JSON that :func:`write_snapshot` wrote after an earlier run)
the ``changes`` table lists the settings whose member set grew or shrank and who was added or
removed; the notebook writes the new snapshot as ``report_dir/permission_posture.snapshot.json``.

A sensitive setting that reaches guests has the unambiguous fix: ``role:members``
(``PATCH /realm`` or ``PATCH /streams/{id}``), which ``chatops audit plan`` / ``chatops audit
apply`` carry out; the audit itself only reads. For a setting that is only too broad, the
right smaller group is a person's choice (``{group_id}``).

Three steps: :func:`fetch` reads the users, groups, organization and channel settings and the
previous snapshot; :func:`judge` (pure) resolves each setting to the people it reaches;
:func:`conclude` turns that into findings, tables and the summary.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ..changes import Change
from ..changes.kinds import UpdateChannel, UpdateRealm
from ._common import api, crossed, fill, finding
from ._common import summary as summary_of
from ._params import Param
from ._result import ApiCall, AuditResult, Finding
from ._settings import describe_setting, group_settings, resolve_group_setting

if TYPE_CHECKING:
    from .._client import Client
    from ..types import User

__all__ = [
    "DEFAULT_SENSITIVE_SETTINGS",
    "SNAPSHOT_NAME",
    "JudgedSetting",
    "Judged",
    "Options",
    "Read",
    "conclude",
    "fetch",
    "findings",
    "group_settings",
    "judge",
    "permission_posture",
    "posture_snapshot",
    "write_snapshot",
]

#: Settings that grant power over other people's messages, channels, groups or membership.
DEFAULT_SENSITIVE_SETTINGS = (
    "can_create_web_public_channel_group,can_manage_all_groups,can_manage_billing_group,"
    "can_delete_any_message_group,can_invite_users_group,create_multiuse_invite_group,"
    "can_move_messages_between_channels_group,can_add_subscribers_group,"
    "can_administer_channel_group,can_remove_subscribers_group"
)
#: File name of the snapshot the notebook writes into ``report_dir``.
SNAPSHOT_NAME = "permission_posture.snapshot.json"

ROLE_GUEST = 600
SETTING_COLUMNS = [
    "key",
    "scope",
    "where",
    "stream_id",
    "setting",
    "value",
    "size",
    "share",
    "includes_everyone",
    "includes_guests",
    "guests",
    "sensitive",
    "member_ids",
]


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`permission_posture`, checked (ValueError naming the one out of
    range)."""

    sensitive_settings: str = DEFAULT_SENSITIVE_SETTINGS
    max_group_size_ratio: float = 0.5
    max_exposed_sensitive: int = 0
    previous_snapshot: str = ""

    def __post_init__(self) -> None:
        ratio = self.max_group_size_ratio
        if not (ratio == -1 or 0 <= ratio <= 1):
            raise ValueError(f"max_group_size_ratio must be between 0 and 1, or -1, not {ratio}")
        if self.max_exposed_sensitive < -1:
            raise ValueError(
                f"max_exposed_sensitive must be -1 or more, not {self.max_exposed_sensitive}"
            )

    @property
    def sensitive(self) -> set[str]:
        """The names of the settings judged strictly."""
        return {s.strip() for s in self.sensitive_settings.split(",") if s.strip()}


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    users: dict[int, User]
    #: every group as raw JSON by id (deactivated ones too)
    groups: dict[int, dict[str, Any]]
    #: the ``POST /register`` state, and the channels as raw ``GET /streams`` records
    realm: dict[str, Any]
    channels: list[dict[str, Any]]
    #: the snapshot of an earlier run (None: none given)
    previous: dict[str, Any] | None


@dataclass(frozen=True)
class JudgedSetting:
    """One group-valued setting and whom it reaches."""

    scope: str
    where: str
    stream_id: int | None
    setting: str
    value: Any
    #: the active users it reaches, and the active humans among them
    reached: set[int]
    humans: set[int]
    share: float
    everyone: bool
    guests: list[int]
    sensitive: bool

    @property
    def key(self) -> str:
        """``organization/<setting>`` or ``channel:<stream id>/<setting>``: stable between
        runs."""
        if self.stream_id is None:
            return f"organization/{self.setting}"
        return f"channel:{self.stream_id}/{self.setting}"

    @property
    def exposed(self) -> bool:
        """A sensitive setting that reaches everyone or a guest."""
        return self.sensitive and (self.everyone or bool(self.guests))


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    at: pd.Timestamp
    #: every group-valued setting, the organization's first, then by channel
    settings: list[JudgedSetting]
    #: the active humans, and the id of ``role:members`` (None: no such group)
    humans: set[int]
    members_id: int | None

    @property
    def exposed(self) -> list[JudgedSetting]:
        """The sensitive settings that reach everyone or guests."""
        return [s for s in self.settings if s.exposed]

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        limit = self.options.max_exposed_sensitive
        return crossed("max_exposed_sensitive", limit, len(self.exposed))


def permission_posture(
    client: Client,
    *,
    sensitive_settings: Annotated[
        str,
        Param("comma-separated setting names to judge strictly"),
    ] = DEFAULT_SENSITIVE_SETTINGS,
    max_group_size_ratio: Annotated[
        float,
        Param(
            "flag sensitive settings reaching more than this share of the organization (-1: off)",
            off=-1,
            low=0,
            high=1,
        ),
    ] = 0.5,
    max_exposed_sensitive: Annotated[
        int,
        Param(
            "fail when more sensitive settings than this reach everyone or guests (-1: off)",
            low=-1,
        ),
    ] = 0,
    previous_snapshot: Annotated[
        str,
        Param("snapshot JSON of an earlier run to compare with; empty for none"),
    ] = "",
    now: datetime | None = None,
) -> AuditResult:
    """Resolve every group-valued setting to its members and judge the sensitive ones.

    Args:
        client: a client of an administrator.
        sensitive_settings: comma-separated setting names (``can_invite_users_group,...``);
            organization and channel settings share the names.
        max_group_size_ratio: flag sensitive settings reaching more than this share (0 to 1)
            of the active humans; ``-1`` disables the flag.
        max_exposed_sensitive: fail when more sensitive settings than this reach everyone or
            guests; ``-1`` disables the check.
        previous_snapshot: path of a snapshot JSON from an earlier run, to list what changed;
            empty for none.
        now: when the audit is dated; default the current time.

    Tables: ``settings`` (one row per setting), ``changes`` (settings whose members changed
    since ``previous_snapshot``).
    """
    options = Options(
        sensitive_settings=sensitive_settings,
        max_group_size_ratio=max_group_size_ratio,
        max_exposed_sensitive=max_exposed_sensitive,
        previous_snapshot=previous_snapshot,
    )
    read = fetch(client, options)
    return conclude(judge(read, options, at=pd.Timestamp(now or datetime.now(UTC))))


def fetch(client: Client, options: Options) -> Read:
    """Read the previous snapshot (ValueError when it is missing), the users, the groups and
    the organization's and channels' settings."""
    previous: dict[str, Any] | None = None
    if options.previous_snapshot:
        snapshot = Path(options.previous_snapshot).expanduser()
        if not snapshot.is_file():
            raise ValueError(f"previous_snapshot {snapshot} does not exist")
        previous = json.loads(snapshot.read_text(encoding="utf-8"))
    users = {u.user_id: u for u in client.users.list()}
    raw_groups = client.get("/user_groups", params={"include_deactivated_groups": True})
    groups = {int(g["id"]): g for g in raw_groups.get("user_groups", [])}
    realm = client.server.register()
    channels = client.get("/streams", params={"include_all": True}).get("streams", [])
    return Read(client.site, users, groups, realm, channels, previous)


def judge(read: Read, options: Options, *, at: pd.Timestamp) -> Judged:
    """Resolve each group-valued setting to the people it reaches; no I/O. ``at`` dates the
    audit."""
    users = read.users
    active = {uid for uid, u in users.items() if u.is_active}
    humans = {uid for uid in active if not users[uid].is_bot}
    guests = {uid for uid in humans if users[uid].role == ROLE_GUEST}
    sensitive = options.sensitive
    settings: list[JudgedSetting] = []
    for scope, where, stream_id, name, value in group_settings(read.realm, read.channels):
        reached = resolve_group_setting(value, read.groups) & active
        human = reached & humans
        settings.append(
            JudgedSetting(
                scope=scope,
                where=where,
                stream_id=stream_id,
                setting=name,
                value=value,
                reached=reached,
                humans=human,
                share=len(human) / len(humans) if humans else 0.0,
                everyone=bool(humans) and humans <= reached,
                guests=sorted(reached & guests),
                sensitive=name in sensitive,
            )
        )
    members_id = next(
        (gid for gid, g in read.groups.items() if g.get("name") == "role:members"), None
    )
    return Judged(read, options, at, settings, humans, members_id)


def findings(judged: Judged) -> list[Finding]:
    """The findings of a judgement, each with the call that fixes it."""
    groups, ratio = judged.read.groups, judged.options.max_group_size_ratio
    rows: list[Finding] = []
    for s in judged.settings:
        if not s.sensitive:
            continue
        subject = f"{s.where}: {s.setting}"
        path = "/realm" if s.stream_id is None else f"/streams/{s.stream_id}"
        described = f"{describe_setting(s.value, groups)}, {len(s.humans)} people"
        if s.exposed:
            n = len(s.guests)
            who = "everyone" if s.everyone else f"{n} guest{'' if n == 1 else 's'}"
            if s.guests and judged.members_id is not None:
                setting = {s.setting: {"new": judged.members_id}}
                call: Change | ApiCall = (
                    UpdateRealm(settings=setting)
                    if s.stream_id is None
                    else UpdateChannel(stream_id=s.stream_id, settings=setting)
                )
                action = "Set the setting to role:members so guests lose it"
            else:
                call = api("PATCH", path, {s.setting: {"new": fill("{group_id}")}})
                action = "Set the setting to a smaller group, e.g. role:administrators"
            text = f"sensitive setting reaches {who} ({described})"
            rows.append(finding("warning", subject, text, action, call))
        elif ratio >= 0 and s.share > ratio:
            rows.append(
                finding(
                    "warning",
                    subject,
                    f"sensitive setting reaches {s.share:.0%} of the organization ({described}); "
                    f"the limit is {ratio:.0%}",
                    "Set the setting to a smaller group, e.g. role:moderators",
                    api("PATCH", path, {s.setting: {"new": fill("{group_id}")}}),
                )
            )
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "settings",
                f"{len(judged.exposed)} sensitive settings reach everyone or guests; the "
                f"threshold is {judged.options.max_exposed_sensitive}",
                "Restrict the sensitive settings listed to smaller groups",
                api(
                    "PATCH",
                    "/realm",
                    setting={"new": fill("{group_id}")},
                    or_=api("PATCH", "/streams/{stream_id}", setting={"new": fill("{group_id}")}),
                ),
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    rows = findings(judged)
    options, read = judged.options, judged.read
    settings = pd.DataFrame(
        [
            {
                "key": s.key,
                "scope": s.scope,
                "where": s.where,
                "stream_id": s.stream_id,
                "setting": s.setting,
                "value": describe_setting(s.value, read.groups),
                "size": len(s.humans),
                "share": s.share,
                "includes_everyone": s.everyone,
                "includes_guests": bool(s.guests),
                "guests": ", ".join(read.users[g].full_name for g in s.guests),
                "sensitive": s.sensitive,
                "member_ids": sorted(s.reached),
            }
            for s in judged.settings
        ],
        columns=SETTING_COLUMNS,
    )
    settings["stream_id"] = settings["stream_id"].astype("Int64")  # none for the organization
    changes = _changes(read.previous, settings, read.users)
    summary = summary_of(
        "permission_posture",
        # every group-valued setting read (of the organization and of each live channel) and
        # the threshold's "settings"
        subjects=[f"{s.where}: {s.setting}" for s in judged.settings] + ["settings"],
        failed=judged.failed,
        counts={
            "settings": len(settings),
            "organization_settings": int((settings["scope"] == "organization").sum()),
            "channel_settings": int((settings["scope"] == "channel").sum()),
            "sensitive_settings": int(settings["sensitive"].sum()),
            "reaching_everyone": int(settings["includes_everyone"].sum()),
            "reaching_guests": int(settings["includes_guests"].sum()),
            "exposed_sensitive": len(judged.exposed),
            "changed_since_snapshot": len(changes),
            "findings": len(rows),
        },
        thresholds={
            "max_exposed_sensitive": options.max_exposed_sensitive,
            "max_group_size_ratio": options.max_group_size_ratio,
            "sensitive_settings": sorted(options.sensitive),
        },
        active_humans=len(judged.humans),
        previous_snapshot=options.previous_snapshot or None,
        previous_generated_at=read.previous.get("generated_at") if read.previous else None,
        coverage={
            "settings": "organization settings from POST /register and settings of every "
            "non-archived channel (GET /streams include_all); group settings of user groups "
            "are not included",
        },
        site=read.site,
        generated_at=judged.at.isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={"settings": settings, "changes": changes},
    )


def _changes(
    previous: Mapping[str, Any] | None, settings: pd.DataFrame, users: Mapping[int, Any]
) -> pd.DataFrame:
    columns = ["key", "where", "setting", "change", "before", "after", "added", "removed"]
    if previous is None:
        return pd.DataFrame([], columns=columns)
    before: dict[str, dict[str, Any]] = dict(previous.get("settings", {}))
    now_rows = {str(r["key"]): r for r in settings.to_dict("records")}

    def names(ids: set[int]) -> str:
        return ", ".join(sorted(users[i].full_name if i in users else f"user {i}" for i in ids))

    out: list[dict[str, Any]] = []
    for key in sorted(set(before) | set(now_rows)):
        old = before.get(key)
        new = now_rows.get(key)
        old_ids = {int(i) for i in old["member_ids"]} if old else set()
        new_ids = {int(i) for i in new["member_ids"]} if new else set()
        if old is not None and new is not None and old_ids == new_ids:
            continue
        ref = new if new is not None else old
        assert ref is not None
        added, removed = new_ids - old_ids, old_ids - new_ids
        if old is None:
            change = "new setting"
        elif new is None:
            change = "setting gone"
        elif not removed:
            change = "grew"
        elif not added:
            change = "shrank"
        else:
            change = "changed"
        out.append(
            {
                "key": key,
                "where": ref["where"],
                "setting": ref["setting"],
                "change": change,
                "before": len(old_ids),
                "after": len(new_ids),
                "added": names(added),
                "removed": names(removed),
            }
        )
    return pd.DataFrame(out, columns=columns)


def posture_snapshot(result: AuditResult) -> dict[str, Any]:
    """The snapshot of a ``permission_posture`` result: each setting's member ids, by key."""
    settings = result.tables["settings"]
    return {
        "name": "permission_posture",
        "site": result.summary.get("site"),
        "generated_at": result.summary.get("generated_at"),
        "settings": {
            str(r["key"]): {
                "where": r["where"],
                "setting": r["setting"],
                "value": r["value"],
                "member_ids": [int(i) for i in r["member_ids"]],
            }
            for r in settings.to_dict("records")
        },
    }


def write_snapshot(result: AuditResult, report_dir: str | os.PathLike[str] | None) -> Path | None:
    """Write the snapshot as ``report_dir/permission_posture.snapshot.json``; nothing if empty.

    Returns the path written, or None.
    """
    if not report_dir:
        return None
    target = Path(report_dir) / SNAPSHOT_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(posture_snapshot(result), indent=2) + "\n", encoding="utf-8")
    return target
