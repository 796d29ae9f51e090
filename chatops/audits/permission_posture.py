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

With ``dry_run=False`` only the unambiguous fix is made: a sensitive setting that reaches
guests is set to ``role:members`` (``PATCH /realm`` or ``PATCH /streams/{id}``). Settings that
are only too broad are reported: the right smaller group is for a person to choose.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from .._exceptions import ApiError
from ._common import api, fill, finding
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding
from .guest_access import resolve_group_setting

if TYPE_CHECKING:
    from .._client import Client

__all__ = [
    "DEFAULT_SENSITIVE_SETTINGS",
    "SNAPSHOT_NAME",
    "group_settings",
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


def _is_group_value(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, Mapping) and ("direct_members" in value or "direct_subgroups" in value)


def _describe(value: Any, groups: Mapping[int, Mapping[str, Any]]) -> str:
    if isinstance(value, int):
        group = groups.get(value)
        if group is None:
            return f"group {value} (missing)"
        name = str(group.get("name", value))
        return f"{name} (deactivated)" if group.get("deactivated") else name
    parts = [f"user {u}" for u in value.get("direct_members", []) or []]
    parts += [_describe(int(g), groups) for g in value.get("direct_subgroups", []) or []]
    return "{" + ", ".join(parts) + "}"


def group_settings(
    realm: Mapping[str, Any], channels: Sequence[Mapping[str, Any]]
) -> list[tuple[str, str, int | None, str, Any]]:
    """Every group-valued setting of the organization and of each non-archived channel.

    ``realm`` is the ``POST /register`` state, ``channels`` raw ``GET /streams`` records. One
    ``(scope, where, stream_id, setting, value)`` per setting: scope ``organization`` (where
    ``organization``, stream_id None, the name without ``realm_``) or ``channel`` (where
    ``#name``), channels by name.
    """
    found: list[tuple[str, str, int | None, str, Any]] = []
    for key, value in sorted(realm.items()):
        if key.startswith("realm_") and key.endswith(("_group", "_groups")):
            if _is_group_value(value):
                found.append(("organization", "organization", None, key[len("realm_") :], value))
    for ch in sorted(channels, key=lambda c: str(c["name"]).lower()):
        if ch.get("is_archived"):
            continue
        for key, value in sorted(ch.items()):
            if key.startswith("can_") and key.endswith("_group") and _is_group_value(value):
                found.append(("channel", f"#{ch['name']}", int(ch["stream_id"]), key, value))
    return found


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
    dry_run: Annotated[
        bool,
        Param("when False, set sensitive settings that reach guests to role:members"),
    ] = True,
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
        dry_run: when False, set sensitive settings that reach guests to ``role:members``.

    Tables: ``settings`` (one row per setting), ``changes`` (settings whose members changed
    since ``previous_snapshot``).
    """
    if not (max_group_size_ratio == -1 or 0 <= max_group_size_ratio <= 1):
        raise ValueError(
            f"max_group_size_ratio must be between 0 and 1, or -1, not {max_group_size_ratio}"
        )
    if max_exposed_sensitive < -1:
        raise ValueError(f"max_exposed_sensitive must be -1 or more, not {max_exposed_sensitive}")
    previous: dict[str, Any] | None = None
    if previous_snapshot:
        snapshot = Path(previous_snapshot).expanduser()
        if not snapshot.is_file():
            raise ValueError(f"previous_snapshot {snapshot} does not exist")
        previous = json.loads(snapshot.read_text(encoding="utf-8"))
    sensitive = {s.strip() for s in sensitive_settings.split(",") if s.strip()}
    generated = pd.Timestamp(now or datetime.now(UTC))

    users = {u.user_id: u for u in client.users.list()}
    active = {uid for uid, u in users.items() if u.is_active}
    humans = {uid for uid in active if not users[uid].is_bot}
    guests = {uid for uid in humans if users[uid].role == ROLE_GUEST}
    raw_groups = client.get("/user_groups", params={"include_deactivated_groups": True})
    groups = {int(g["id"]): g for g in raw_groups.get("user_groups", [])}
    members_id = next((gid for gid, g in groups.items() if g.get("name") == "role:members"), None)
    realm = client.server.register()
    channels = client.get("/streams", params={"include_all": True}).get("streams", [])

    found = group_settings(realm, channels)
    table_rows: list[dict[str, Any]] = []
    rows: list[Finding] = []
    exposed: list[str] = []
    fixes: list[tuple[str, int | None, str]] = []
    for scope, where, stream_id, name, value in found:
        reached = resolve_group_setting(value, groups) & active
        human = reached & humans
        key = f"organization/{name}" if stream_id is None else f"channel:{stream_id}/{name}"
        share = len(human) / len(humans) if humans else 0.0
        everyone = bool(humans) and humans <= reached
        reaches_guests = sorted(reached & guests)
        is_sensitive = name in sensitive
        table_rows.append(
            {
                "key": key,
                "scope": scope,
                "where": where,
                "stream_id": stream_id,
                "setting": name,
                "value": _describe(value, groups),
                "size": len(human),
                "share": share,
                "includes_everyone": everyone,
                "includes_guests": bool(reaches_guests),
                "guests": ", ".join(users[g].full_name for g in reaches_guests),
                "sensitive": is_sensitive,
                "member_ids": sorted(reached),
            }
        )
        if not is_sensitive:
            continue
        subject = f"{where}: {name}"
        path = "/realm" if stream_id is None else f"/streams/{stream_id}"
        if everyone or reaches_guests:
            exposed.append(key)
            n = len(reaches_guests)
            who = "everyone" if everyone else f"{n} guest{'' if n == 1 else 's'}"
            if reaches_guests and members_id is not None:
                fixes.append((name, stream_id, key))
                call = api("PATCH", path, {name: {"new": members_id}})
                action = "Set the setting to role:members so guests lose it"
            else:
                call = api("PATCH", path, {name: {"new": fill("{group_id}")}})
                action = "Set the setting to a smaller group, e.g. role:administrators"
            rows.append(
                finding(
                    "warning",
                    subject,
                    f"sensitive setting reaches {who} ({_describe(value, groups)}, "
                    f"{len(human)} people)",
                    action,
                    call,
                )
            )
        elif max_group_size_ratio >= 0 and share > max_group_size_ratio:
            rows.append(
                finding(
                    "warning",
                    subject,
                    f"sensitive setting reaches {share:.0%} of the organization "
                    f"({_describe(value, groups)}, {len(human)} people); the limit is "
                    f"{max_group_size_ratio:.0%}",
                    "Set the setting to a smaller group, e.g. role:moderators",
                    api("PATCH", path, {name: {"new": fill("{group_id}")}}),
                )
            )

    failed: list[str] = []
    if max_exposed_sensitive >= 0 and len(exposed) > max_exposed_sensitive:
        failed.append("max_exposed_sensitive")
        rows.append(
            finding(
                "critical",
                "settings",
                f"{len(exposed)} sensitive settings reach everyone or guests; the threshold is "
                f"{max_exposed_sensitive}",
                "Restrict the sensitive settings listed to smaller groups",
                api(
                    "PATCH",
                    "/realm",
                    setting={"new": fill("{group_id}")},
                    or_=api("PATCH", "/streams/{stream_id}", setting={"new": fill("{group_id}")}),
                ),
            )
        )

    settings = pd.DataFrame(table_rows, columns=SETTING_COLUMNS)
    settings["stream_id"] = settings["stream_id"].astype("Int64")  # none for the organization
    changes = _changes(previous, settings, users)

    changed: list[str] = []
    fix_errors: list[str] = []
    if not dry_run:
        for name, stream_id, key in fixes:
            target = "/realm" if stream_id is None else f"/streams/{stream_id}"
            try:
                client.patch(target, params={name: {"new": members_id}})
            except ApiError as exc:
                fix_errors.append(f"{key}: {exc}")
            else:
                changed.append(key)

    summary = summary_of(
        "permission_posture",
        # every group-valued setting read (of the organization and of each live channel) and
        # the threshold's "settings"
        subjects=[f"{where}: {name}" for _s, where, _id, name, _v in found] + ["settings"],
        failed=failed,
        counts={
            "settings": len(settings),
            "organization_settings": int((settings["scope"] == "organization").sum()),
            "channel_settings": int((settings["scope"] == "channel").sum()),
            "sensitive_settings": int(settings["sensitive"].sum()),
            "reaching_everyone": int(settings["includes_everyone"].sum()),
            "reaching_guests": int(settings["includes_guests"].sum()),
            "exposed_sensitive": len(exposed),
            "changed_since_snapshot": len(changes),
            "findings": len(rows),
            "fixed_now": len(changed),
        },
        thresholds={
            "max_exposed_sensitive": max_exposed_sensitive,
            "max_group_size_ratio": max_group_size_ratio,
            "sensitive_settings": sorted(sensitive),
        },
        active_humans=len(humans),
        previous_snapshot=previous_snapshot or None,
        previous_generated_at=previous.get("generated_at") if previous else None,
        coverage={
            "settings": "organization settings from POST /register and settings of every "
            "non-archived channel (GET /streams include_all); group settings of user groups "
            "are not included",
        },
        dry_run=dry_run,
        fixed_settings=changed,
        fix_errors=fix_errors,
        site=client.site,
        generated_at=generated.isoformat(),
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
