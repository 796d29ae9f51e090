"""The changes that make the file's objects exist as it names them: people, channel folders,
user groups, channels and custom profile fields (created, renamed, described, reordered).

Each function is one stage of an apply: given the file and what the organization has now, the
steps that bring that part of it to the file. Objects a stage creates get a provisional id, so
that a plan made before anything is sent can name the changes later stages make to them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..changes import Change
from ..changes.kinds import (
    CreateChannel,
    CreateFolder,
    CreateGroup,
    CreateProfileField,
    CreateUser,
    ReactivateGroup,
    ReactivateUser,
    ReorderFolders,
    ReorderProfileFields,
    SetDefaultChannel,
    UnarchiveChannel,
    UpdateChannel,
    UpdateFolder,
    UpdateGroup,
    UpdateProfileField,
    UpdateUser,
)
from ..changes.kinds.channels import retention_param
from .diff import who
from .export import PROFILE_FIELD_TYPES, _email, _Names
from .state import Names, refused_value

__all__ = ["Step", "matched"]


@dataclass(frozen=True)
class Step:
    """One change of a plan, with the stage it belongs to and what it does in the file's words."""

    stage: str
    words: str
    change: Change


def matched(
    wanted: Mapping[str, Any], have: list[dict[str, Any]], key: str
) -> dict[str, Any] | None:
    """The organization's object the file's ``wanted`` names (by ``key``, or its
    ``renamed_from``)."""
    for name in (wanted.get(key), wanted.get("renamed_from")):
        if name is None:
            continue
        for obj in have:
            if str(obj.get(key, "")).casefold() == str(name).casefold():
                return obj
    return None


def people(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """New accounts (with a password nobody knows), names, and accounts to reactivate."""
    have = names.server.people
    for person in doc.get("people") or ():
        email = str(person["email"])
        found = next((p for p in have if _email(p).casefold() == email.casefold()), None)
        if found is None:
            if not person.get("name"):
                names.note(f"{email}: a new account needs a name (name: ...)")
                continue
            names.people[email.casefold()] = names.provisional()
            yield Step("people", f"{email}: a new account, “{person['name']}”",
                       CreateUser(email=email, full_name=str(person["name"])))  # fmt: skip
            continue
        uid = int(found["user_id"])
        if "name" in person and str(person["name"]) != found.get("full_name"):
            yield Step("people", f"{email}: name “{found.get('full_name')}” → “{person['name']}”",
                       UpdateUser(user_id=uid, settings={"full_name": str(person["name"])}))  # fmt: skip
        if person.get("active") is True and found.get("is_active") is False:
            yield Step("people", f"{email}: reactivated", ReactivateUser(user_id=uid))


def folders(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """Channel folders created, renamed, described, archived or brought back."""
    have = names.server.folders
    for folder in doc.get("channel_folders") or ():
        name = str(folder["name"])
        found = matched(folder, have, "name")
        if found is None:
            names.folders[name.casefold()] = names.provisional()
            yield Step("folders", f"folder “{name}”: created",
                       CreateFolder(name=name, description=str(folder.get("description", ""))))  # fmt: skip
            if folder.get("archived"):
                yield Step("folders", f"folder “{name}”: archived",
                           UpdateFolder(folder_id=names.folders[name.casefold()],
                                        settings={"is_archived": True}))  # fmt: skip
            continue
        settings: dict[str, Any] = {}
        if str(found["name"]) != name:
            settings["name"] = name
            names.folders[name.casefold()] = int(found["id"])
        if "description" in folder and folder["description"] != found.get("description", ""):
            settings["description"] = folder["description"]
        if "archived" in folder and bool(folder["archived"]) != bool(found.get("is_archived")):
            settings["is_archived"] = bool(folder["archived"])
        if settings:
            yield Step("folders", f"folder “{found['name']}”: {_words(settings, folder)}",
                       UpdateFolder(folder_id=int(found["id"]), settings=settings))  # fmt: skip


def folder_order(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """The folders in the file's order (those the file does not list keep their place after)."""
    if "channel_folders" not in doc:
        return
    listed = [names.folders.get(str(f["name"]).casefold()) for f in doc["channel_folders"]]
    order = [i for i in listed if i is not None]
    rest = [int(f["id"]) for f in names.server.folders if int(f["id"]) not in order]
    now = [int(f["id"]) for f in names.server.folders]
    if order + rest != now:
        shown = ", ".join(str(f["name"]) for f in doc["channel_folders"])
        yield Step("folder order", f"the channel folders in the order {shown}",
                   ReorderFolders(order=order + rest))  # fmt: skip


def groups(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """Groups created (members only: their subgroups and permissions come later, once every
    group exists), renamed, described, reactivated."""
    have = [g for g in names.server.groups if not g.get("is_system_group")]
    for group in doc.get("user_groups") or ():
        name = str(group["name"])
        found = matched(group, have, "name")
        if found is None:
            members = [names.person(m) for m in group.get("members") or ()]
            names.groups[name.casefold()] = names.provisional()
            yield Step("groups", f"@{name}: created with {len(members)} members",
                       CreateGroup(name=name, description=str(group.get("description", "")),
                                   members=[m for m in members if m is not None]))  # fmt: skip
            continue
        settings: dict[str, Any] = {}
        if str(found["name"]) != name:
            settings["name"] = name
            names.groups[name.casefold()] = int(found["id"])
        if "description" in group and group["description"] != found.get("description", ""):
            settings["description"] = group["description"]
        if settings:
            yield Step("groups", f"@{found['name']}: {_words(settings, group, 'group')}",
                       UpdateGroup(group_id=int(found["id"]), settings=settings))  # fmt: skip
        if group.get("deactivated") is False and found.get("deactivated"):
            yield Step(
                "groups", f"@{name}: reactivated", ReactivateGroup(group_id=int(found["id"]))
            )


def channels(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """Channels created with their settings, or changed to the file's: name, description,
    privacy, history, folder, retention, every permission; default channels; unarchived."""
    server = names.server
    for channel in doc.get("channels") or ():
        name = str(channel["name"])
        found = matched(channel, server.channels, "name")
        wanted = _channel_settings(channel, names)
        perms = _permission_changes(
            "stream", channel, found, names, where=f"#{name}", raw=found is None
        )
        if found is None:
            names.channels[name.casefold()] = sid = names.provisional()
            principals = _first_subscribers(doc, name, names)
            yield Step("channels", f"#{name}: created ({_words({**wanted, **perms}, channel, 'channel')})",
                       CreateChannel(name=name, description=str(channel.get("description", "")),
                                     principals=principals,
                                     settings={**_create_settings(wanted), **perms}))  # fmt: skip
            continue
        sid = int(found["stream_id"])
        if found.get("is_archived") and channel.get("archived") is False:
            yield Step("channels", f"#{found['name']}: unarchived", UnarchiveChannel(stream_id=sid))
        changes = {k: v for k, v in wanted.items() if not _same_channel_value(found, k, v)}
        if str(found["name"]) != name:
            changes["new_name"] = name
            names.channels[name.casefold()] = sid
        changes.update(perms)
        if changes:
            yield Step("channels", f"#{found['name']}: {_words(changes, channel, 'channel')}",
                       UpdateChannel(stream_id=sid, settings=changes))  # fmt: skip


def default_channels(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """Which channels new members join: the file's ``default`` of each channel it lists."""
    have = {int(c["stream_id"]): c for c in names.server.channels}
    for channel in doc.get("channels") or ():
        if "default" not in channel:
            continue
        sid = names.channels.get(str(channel["name"]).casefold())
        if sid is None:
            continue
        now = bool(have[sid].get("is_default")) if sid in have else False
        if bool(channel["default"]) != now:
            word = "a default channel" if channel["default"] else "no longer a default channel"
            yield Step("default channels", f"#{channel['name']}: {word}",
                       SetDefaultChannel(stream_id=sid, default=bool(channel["default"])))  # fmt: skip


#: a channel's fields in the file, as ``PATCH /streams/{id}`` names them, and as GET shows them
_CHANNEL_FIELDS = {
    "description": ("description", "description"),
    "private": ("is_private", "invite_only"),
    "web_public": ("is_web_public", "is_web_public"),
    "history_public_to_subscribers": (
        "history_public_to_subscribers",
        "history_public_to_subscribers",
    ),
    "message_retention_days": ("message_retention_days", "message_retention_days"),
}


def _channel_settings(channel: Mapping[str, Any], names: Names) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field, (param, _shown) in _CHANNEL_FIELDS.items():
        if field in channel:
            value = channel[field]
            if field == "message_retention_days":
                value = retention_param(value)
            out[param] = value
    if "folder" in channel:
        folder = channel["folder"]
        out["folder_id"] = None if folder is None else names.folder(str(folder))
    return out


def _create_settings(wanted: Mapping[str, Any]) -> dict[str, Any]:
    """A new channel's settings as the create call takes them."""
    out = {("invite_only" if k == "is_private" else k): v for k, v in wanted.items()}
    out.pop("description", None)
    if out.get("message_retention_days") == "realm_default":
        del out["message_retention_days"]
    if out.get("folder_id") is None:
        out.pop("folder_id", None)
    return out


def _same_channel_value(found: Mapping[str, Any], param: str, value: Any) -> bool:
    shown = {p: s for p, s in _CHANNEL_FIELDS.values()}.get(param, param)
    have = found.get(shown)
    if param == "message_retention_days":
        return bool(retention_param(have) == value)
    if param == "folder_id":
        return bool((have or None) == value)
    return bool(have == value)


def _first_subscribers(doc: Mapping[str, Any], channel: str, names: Names) -> list[int]:
    """Who a new channel starts with: the people its membership rules put there (known
    already), else the account applying the file."""
    me = int(names.server.me["user_id"])
    wanted: set[int] = set()
    for rule in doc.get("membership_rules") or ():
        if channel.casefold() in {str(c).casefold() for c in rule["channels"]}:
            wanted |= reach(doc, str(rule["group"]), names)
    return sorted(wanted) or [me]


def reach(doc: Mapping[str, Any], group: str, names: Names) -> set[int]:
    """Everyone in ``group`` as the file sets it (the organization's members where the file
    does not list the group), subgroups' members included; provisional ids for new people."""
    by_name = {str(g["name"]).casefold(): g for g in doc.get("user_groups") or ()}
    server = {str(g["name"]).casefold(): g for g in names.server.groups}
    server_ids = {int(g["id"]): g for g in names.server.groups}
    out: set[int] = set()
    stack, seen = [group.casefold()], set()
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in by_name and "members" in by_name[name]:
            out |= {
                uid
                for m in by_name[name]["members"]
                if (uid := names.people.get(str(m).casefold())) is not None
            }
            stack += [str(s).casefold() for s in by_name[name].get("subgroups") or ()]
        elif name in server:
            found = server[name]
            out |= {int(u) for u in found.get("direct_members", found.get("members")) or ()}
            stack += [
                str(server_ids[int(s)]["name"]).casefold()
                for s in found.get("direct_subgroup_ids") or ()
                if int(s) in server_ids
            ]
    return out


def _permission_changes(
    kind: str,
    wanted: Mapping[str, Any],
    found: Mapping[str, Any] | None,
    names: Names,
    *,
    where: str,
    raw: bool = False,
) -> dict[str, Any]:
    """The file's permissions of one object that differ from ``found``'s, as the API takes
    them (``{"new": value}``; the plain value when ``raw``, for a create call). Settings the
    server does not have, and values a setting refuses, are noted as problems."""
    supported = names.server.supported(kind)
    current = _Names(names.server.groups, names.server.people)
    out: dict[str, Any] = {}
    for key, value in (wanted.get("permissions") or {}).items():
        if supported and key not in supported:
            names.note(
                f"{where}: “{key}” is not a setting this server has (feature level "
                f"{names.server.feature_level})"
            )
            continue
        refused = refused_value(key, value, supported.get(key) or {})
        if refused:
            names.note(f"{where}: “{key}” {refused}; the file says {value}")
            continue
        if found is not None and who(current.setting(found.get(key))) == who(value):
            continue
        api = names.setting(value, where=f"{where}, {key}")
        if api is not None:
            out[key] = api if raw else {"new": api}
    return out


def profile_fields(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """Custom profile fields added or changed (hint, options, required, ...)."""
    types = {v: k for k, v in PROFILE_FIELD_TYPES.items()}
    for field in doc.get("custom_profile_fields") or ():
        name = str(field["name"])
        found = matched(field, names.server.fields, "name")
        wanted = _field_settings(field, found)
        if found is None:
            kind = types.get(str(field.get("type")))
            if kind is None:
                names.note(f"profile field “{name}”: no field type “{field.get('type')}”")
                continue
            names.fields[name.casefold()] = names.provisional()
            yield Step("profile fields", f"profile field “{name}”: added",
                       CreateProfileField(field_type=kind, settings={"name": name, **wanted}))  # fmt: skip
            continue
        changes = {k: v for k, v in wanted.items() if _field_value(found, k) != v}
        if str(found["name"]) != name:
            changes["name"] = name
        if changes:
            yield Step("profile fields", f"profile field “{found['name']}”: {_words(changes, field)}",
                       UpdateProfileField(field_id=int(found["id"]), settings=changes))  # fmt: skip


def _field_value(found: Mapping[str, Any], key: str) -> Any:
    value = found.get(key)
    if key in ("required", "display_in_profile_summary"):
        return bool(value)
    if key == "editable_by_user":
        return value is not False
    if key == "field_data":
        return json.loads(value) if isinstance(value, str) and value else (value or {})
    return value


def _field_settings(field: Mapping[str, Any], found: Mapping[str, Any] | None) -> dict[str, Any]:
    out = {
        k: field[k]
        for k in ("hint", "required", "editable_by_user", "display_in_profile_summary")
        if k in field
    }
    if "options" in field:
        old = _field_value(found, "field_data") if found else {}
        by_text = {str(o.get("text")): key for key, o in old.items()}
        # an option keeps its key (people's answers are stored by key); a new one takes a key
        # never used, so that no answer moves to another option
        fresh = 1 + max((int(k) for k in old if str(k).isdigit()), default=-1)
        data: dict[str, Any] = {}
        for order, text in enumerate(field["options"]):
            key = by_text.get(str(text))
            if key is None or key in data:
                key, fresh = str(fresh), fresh + 1
            data[key] = {"text": str(text), "order": str(order)}
        have = [
            str(o.get("text")) for o in sorted(old.values(), key=lambda o: int(o.get("order", 0)))
        ]
        if not found or have != [str(t) for t in field["options"]]:
            out["field_data"] = data
    elif "field_data" in field:
        out["field_data"] = dict(field["field_data"])
    return out


def field_order(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """The custom profile fields in the file's order."""
    if "custom_profile_fields" not in doc:
        return
    listed = [names.fields.get(str(f["name"]).casefold()) for f in doc["custom_profile_fields"]]
    order = [i for i in listed if i is not None]
    now = [int(f["id"]) for f in names.server.fields]
    rest = [i for i in now if i not in order]
    if order + rest != now:
        shown = ", ".join(str(f["name"]) for f in doc["custom_profile_fields"])
        yield Step("field order", f"the profile fields in the order {shown}",
                   ReorderProfileFields(order=order + rest))  # fmt: skip


#: how a setting reads once changed, by the value it is set to
_SAID: dict[str, tuple[str, str]] = {
    "is_private": ("private", "public"),
    "invite_only": ("private", "public"),
    "is_web_public": ("web-public", "not web-public"),
    "history_public_to_subscribers": (
        "history visible to new subscribers",
        "history hidden from new subscribers",
    ),
    "is_archived": ("archived", "unarchived"),
    "required": ("required", "not required"),
    "editable_by_user": ("editable by its person", "set by administrators only"),
    "display_in_profile_summary": ("shown in the profile summary", "not in the profile summary"),
}
#: the API's kind of object, for a setting's label, by the section of the file
_KIND = {"channel": "stream", "group": "group", "organization": "realm"}


def _words(
    settings: Mapping[str, Any], file_obj: Mapping[str, Any] | None = None, kind: str = ""
) -> str:
    """What ``settings`` (the API's parameters) change, in the file's words: ``private,
    “Who can post to this channel” → backend, into folder “Engineering”``."""
    from ..widgets._words import setting_label
    from .diff import _shown

    perms = (file_obj or {}).get("permissions") or {}
    parts = []
    for key, value in settings.items():
        shown = value.get("new") if isinstance(value, Mapping) and "new" in value else value
        if key in perms:
            label = setting_label(_KIND.get(kind, kind), key)
            parts.append(f"“{label}” → {_shown(perms[key])}")
        elif key in ("name", "new_name"):
            parts.append(f"renamed “{shown}”")
        elif key in ("description", "hint"):
            parts.append(f"new {key}")
        elif key == "field_data":
            parts.append("new options" if "options" in (file_obj or {}) else "new field data")
        elif key == "folder_id":
            folder = (file_obj or {}).get("folder")
            parts.append(f"into folder “{folder}”" if folder else "in no folder")
        elif key == "message_retention_days":
            parts.append(
                "messages kept as the organization says"
                if shown == "realm_default"
                else "messages kept forever"
                if shown in (-1, "unlimited")
                else f"messages kept {shown} days"
            )
        elif key in _SAID and isinstance(shown, bool):
            parts.append(_SAID[key][0 if shown else 1])
        elif isinstance(shown, bool):
            parts.append(f"{key.replace('_', ' ')}: {'yes' if shown else 'no'}")
        else:
            parts.append(f"{key.replace('_', ' ')} → {_shown(shown)}")
    return ", ".join(parts)


__all__ += [
    "channels",
    "default_channels",
    "field_order",
    "folder_order",
    "folders",
    "groups",
    "people",
]
__all__ += ["profile_fields", "reach"]
