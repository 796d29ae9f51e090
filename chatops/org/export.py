"""The organization's setup as a document: by names and emails (never ids), in a stable order,
so that two exports of the same organization are equal.

    doc = export_document(client)        # a dict, as the organization file holds it
    text = to_yaml(doc)                  # what ``chatops org export`` writes

A group-valued permission is written as one group's name (``role:members``, ``backend``), or
as the people and groups it names together (``{groups: [backend], people: [ann@x.org]}``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .._exceptions import ChatopsError

if TYPE_CHECKING:
    from .._client import Client

__all__ = [
    "FORMAT_VERSION",
    "POLICIES",
    "PROFILE_FIELD_TYPES",
    "ROLES",
    "export_document",
    "to_yaml",
]

#: the organization file's format; a loader refuses a newer one
FORMAT_VERSION = 1

#: the organization's policies an admin sets (``PATCH /realm``), besides its permissions
POLICIES = (
    "invite_required",
    "waiting_period_threshold",
    "email_changes_disabled",
    "allow_message_editing",
    "allow_edit_history",
    "message_content_edit_limit_seconds",
    "message_content_delete_limit_seconds",
    "move_messages_within_stream_limit_seconds",
    "move_messages_between_streams_limit_seconds",
    "topics_policy",
    "enable_spectator_access",
    "message_retention_days",
)

#: roles in the file's words, by the API's number
ROLES = {100: "owner", 200: "administrator", 300: "moderator", 400: "member", 600: "guest"}

#: custom profile field types in the file's words, by the API's number
PROFILE_FIELD_TYPES = {
    1: "short text",
    2: "long text",
    3: "choice",
    4: "date",
    5: "link",
    6: "person",
    7: "external account",
    8: "pronouns",
}


class _Names:
    """Ids to the names the file uses: groups by name, people by email."""

    def __init__(self, groups: Iterable[Mapping[str, Any]], people: Iterable[Mapping[str, Any]]):
        self.groups = {int(g["id"]): str(g["name"]) for g in groups}
        self.people = {int(p["user_id"]): _email(p) for p in people}

    def group(self, gid: Any) -> str:
        return self.groups.get(int(gid), f"group {gid}")

    def person(self, uid: Any) -> str:
        return self.people.get(int(uid), f"user {uid}")

    def setting(self, value: Any) -> Any:
        """A group-setting value by name: one group, or people and groups together."""
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, int):
            return self.group(value)
        if isinstance(value, Mapping):
            groups = sorted(self.group(g) for g in value.get("direct_subgroups") or ())
            people = sorted(self.person(u) for u in value.get("direct_members") or ())
            if not people and len(groups) == 1:
                return groups[0]
            if not people and not groups:
                return "role:nobody"
            named: dict[str, list[str]] = {}
            if groups:
                named["groups"] = groups
            if people:
                named["people"] = people
            return named
        return None


def _email(person: Mapping[str, Any]) -> str:
    """The address an administrator sees (the real one when the organization hides it)."""
    return str(person.get("delivery_email") or person.get("email") or "")


def _permissions(
    record: Mapping[str, Any], names: _Names, only: Iterable[str] = ()
) -> dict[str, Any]:
    """Every group-valued setting of ``record`` (its keys ending in ``_group``, or ``only``)."""
    keys = sorted(only) if only else sorted(k for k in record if k.endswith("_group"))
    return {
        k: names.setting(record[k])
        for k in keys
        if k in record and record[k] is not None and not isinstance(record[k], bool)
    }


def _realm(client: Client) -> dict[str, Any]:
    state = client.server.register(fetch_event_types=["realm"], event_types=["realm"])
    if queue := state.get("queue_id"):
        with contextlib.suppress(ChatopsError):
            client.events.delete_queue(queue)
    return dict(state)


def _reach(group: Mapping[str, Any], by_id: Mapping[int, Mapping[str, Any]]) -> set[int]:
    """Everyone in ``group``: its direct members and its subgroups' members, all the way down."""
    people: set[int] = set()
    stack, seen = [group], set()
    while stack:
        g = stack.pop()
        if int(g["id"]) in seen:
            continue
        seen.add(int(g["id"]))
        people |= {int(u) for u in g.get("members") or ()}
        stack += [by_id[int(s)] for s in g.get("direct_subgroup_ids") or () if int(s) in by_id]
    return people


def _membership_rules(
    groups: list[Mapping[str, Any]],
    channels: list[Mapping[str, Any]],
    client: Client,
    also: Iterable[str] = (),
) -> list[dict[str, Any]]:
    """Every group (not a role) of two or more people, subgroups' members included, all of
    whom are subscribed to a channel that is not a default one: "members of X are in #a,
    #b". The groups named in ``also`` (a file's rules) are checked whatever their size, and
    against default channels too."""
    named = {n.casefold() for n in also}
    by_id = {int(g["id"]): g for g in groups}
    reach = {
        str(g["name"]): _reach(g, by_id)
        for g in groups
        if not g.get("is_system_group") and not g.get("deactivated")
    }
    candidates = {
        n: people
        for n, people in reach.items()
        if len(people) >= 2 or (people and n.casefold() in named)
    }
    if not candidates:
        return []
    subscribers = {
        str(c["name"]): (
            set(client.channels.members(int(c["stream_id"]))),
            bool(c.get("is_default")),
        )
        for c in channels
        if not c.get("is_archived")
    }
    rules = []
    for n in sorted(candidates, key=str.casefold):
        people = candidates[n]
        held = sorted(
            (
                c
                for c, (subs, default) in subscribers.items()
                if people <= subs and (not default or n.casefold() in named)
            ),
            key=str.casefold,
        )
        if held:
            rules.append({"group": n, "channels": held})
    return rules


def export_document(client: Client, *, rules_for: Iterable[str] = ()) -> dict[str, Any]:
    """The organization's setup as the organization file holds it (see the module's doc); the
    membership rules of the groups named in ``rules_for`` are found whatever their size (a
    file's rules are checked that way)."""
    realm = _realm(client)
    people = client.get("/users")["members"]
    groups = client.get("/user_groups", params={"include_deactivated_groups": True})["user_groups"]
    channels = client.get(
        "/streams",
        params={"include_all": True, "exclude_archived": False, "include_default": True},
    )["streams"]
    for c in channels:  # GET /streams says which are default channels (include_default)
        c["is_default"] = bool(c.get("is_default"))
    folders = client.get("/channel_folders", params={"include_archived": True})["channel_folders"]
    folders.sort(key=lambda f: f.get("order") if f.get("order") is not None else 1 << 30)
    folder_names = {int(f["id"]): str(f["name"]) for f in folders}
    names = _Names(groups, people)
    every = realm.get("server_supported_permission_settings") or {}
    supported = every.get("realm") or {}
    humans = [p for p in people if not p.get("is_bot")]
    return {
        "version": FORMAT_VERSION,
        "feature_level": int(
            realm.get("zulip_feature_level") or client.get_capabilities().feature_level
        ),
        "organization": {
            "name": realm.get("realm_name", ""),
            "description": realm.get("realm_description", ""),
            "policies": {k: realm[f"realm_{k}"] for k in POLICIES if f"realm_{k}" in realm},
            "permissions": {
                k: names.setting(realm[f"realm_{k}"])
                for k in sorted(supported or (k[6:] for k in realm if k.endswith("_group")))
                if f"realm_{k}" in realm
            },
        },
        "channel_folders": [
            {
                "name": f["name"],
                "description": f.get("description", ""),
                "archived": bool(f.get("is_archived")),
            }
            for f in folders
        ],
        "channels": [
            {
                "name": c["name"],
                "description": c.get("description", ""),
                "private": bool(c.get("invite_only")),
                "web_public": bool(c.get("is_web_public")),
                "history_public_to_subscribers": bool(c.get("history_public_to_subscribers")),
                "folder": folder_names.get(c["folder_id"]) if c.get("folder_id") else None,
                "default": bool(c["is_default"]),
                "archived": bool(c.get("is_archived")),
                "message_retention_days": c.get("message_retention_days"),
                "permissions": _permissions(c, names, every.get("stream") or ()),
            }
            for c in sorted(channels, key=lambda c: str(c["name"]).casefold())
        ],
        "user_groups": [
            {
                "name": g["name"],
                "description": g.get("description", ""),
                "members": sorted(names.person(u) for u in g.get("direct_members", g["members"])),
                "subgroups": sorted(names.group(s) for s in g.get("direct_subgroup_ids") or ()),
                "deactivated": bool(g.get("deactivated")),
                "permissions": _permissions(g, names, every.get("group") or ()),
            }
            for g in sorted(groups, key=lambda g: str(g["name"]).casefold())
            if not g.get("is_system_group")
        ],
        "linkifiers": [
            {"pattern": lf["pattern"], "url_template": lf.get("url_template", "")}
            for lf in client.get("/realm/linkifiers")["linkifiers"]
        ],
        "custom_profile_fields": [
            _profile_field(f) for f in client.get("/realm/profile_fields")["custom_fields"]
        ],
        "people": [
            {
                "email": _email(p),
                "name": p["full_name"],
                "role": ROLES.get(int(p.get("role", 400)), str(p.get("role"))),
                "active": bool(p.get("is_active", True)),
            }
            for p in sorted(humans, key=lambda p: _email(p).casefold())
        ],
        "membership_rules": _membership_rules(groups, channels, client, rules_for),
    }


def _profile_field(field: Mapping[str, Any]) -> dict[str, Any]:
    made: dict[str, Any] = {
        "name": field["name"],
        "type": PROFILE_FIELD_TYPES.get(int(field["type"]), str(field["type"])),
        "hint": field.get("hint", ""),
        "required": bool(field.get("required")),
        "editable_by_user": bool(field.get("editable_by_user", True)),
        "display_in_profile_summary": bool(field.get("display_in_profile_summary")),
    }
    data = field.get("field_data")
    if data:
        parsed = json.loads(data) if isinstance(data, str) else data
        if isinstance(parsed, Mapping) and parsed:
            if int(field["type"]) == 3:  # options, in their order, by their words
                options = sorted(parsed.values(), key=lambda o: int(o.get("order", 0)))
                made["options"] = [str(o.get("text", "")) for o in options]
            else:
                made["field_data"] = dict(sorted(parsed.items()))
    return made


def to_yaml(document: Mapping[str, Any]) -> str:
    """The document as the organization file's YAML: keys in the document's order, text as
    typed (Unicode kept), one item per line."""
    import yaml

    header = (
        "# The organization's setup, by names and emails. Its JSON Schema: `chatops org schema`\n"
        "# (editors that read `# yaml-language-server: $schema=FILE` check the file as you type).\n"
    )
    body = yaml.safe_dump(
        dict(document), sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
    )
    return header + str(body)
