"""An organization's state as its administrator reads it through the API: what a plan can
touch (settings, groups, channels, folders, linkifiers, people, memberships, topics), in a form
two reads compare equal when nothing changed. Ids the server gives a re-created thing (a
linkifier added again) are left out; its content and place are kept."""

from __future__ import annotations

from typing import Any

import chatops

#: settings whose value changes on its own (a clock, a counter), not by a change of ours
VOLATILE = {"realm_date_created", "realm_push_notifications_enabled_end_timestamp"}


def _groups(admin: chatops.Client) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for g in admin.get("/user_groups", params={"include_deactivated_groups": True})["user_groups"]:
        record = {k: v for k, v in g.items() if k not in ("members", "direct_subgroup_ids")}
        record["members"] = sorted(g.get("members") or [])
        record["direct_subgroup_ids"] = sorted(g.get("direct_subgroup_ids") or [])
        out[str(g["id"])] = record
    return out


def _channels(admin: chatops.Client) -> dict[str, Any]:
    streams = admin.get("/streams", params={"include_all": True, "exclude_archived": False})[
        "streams"
    ]
    out: dict[str, Any] = {}
    for s in streams:
        record = {k: v for k, v in s.items() if k not in ("stream_weekly_traffic",)}
        record["subscribers"] = sorted(
            admin.get(f"/streams/{s['stream_id']}/members")["subscribers"]
        )
        topics = admin.get(f"/users/me/{s['stream_id']}/topics")["topics"]
        record["topics"] = sorted(t["name"] for t in topics)
        out[str(s["stream_id"])] = record
    return out


def organization_state(admin: chatops.Client) -> dict[str, Any]:
    """Everything a plan can change, read through the API."""
    realm = admin.server.register(fetch_event_types=["realm"], event_types=["realm"])
    admin.delete("/events", params={"queue_id": realm["queue_id"]})
    users = admin.get("/users", params={"include_custom_profile_fields": False})["members"]
    return {
        "realm": {k: v for k, v in realm.items() if k.startswith("realm_") and k not in VOLATILE},
        "groups": _groups(admin),
        "channels": _channels(admin),
        "folders": admin.get("/channel_folders", params={"include_archived": True})[
            "channel_folders"
        ],
        "linkifiers": [
            (x["pattern"], x["url_template"]) for x in admin.get("/realm/linkifiers")["linkifiers"]
        ],
        "people": {
            str(u["user_id"]): {
                k: u.get(k) for k in ("is_active", "role", "full_name", "bot_owner_id")
            }
            for u in users
        },
    }


def differences(before: dict[str, Any], after: dict[str, Any], path: str = "") -> list[str]:
    """Where two states differ, as paths (``channels/5/description``)."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = sorted(set(before) | set(after), key=str)
        return [d for k in keys for d in differences(before.get(k), after.get(k), f"{path}/{k}")]
    return [] if before == after else [f"{path}: {before!r} -> {after!r}"[:300]]
