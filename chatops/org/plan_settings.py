"""The changes that set what the file says of objects that exist by then: groups' members,
subgroups and permissions; the organization's settings; linkifiers; membership rules; roles;
and what is deactivated, archived or removed (last, so that nothing in use goes first).

Like :mod:`.plan_objects`, each function is one stage of an apply; :func:`objections` says,
before anything is sent, what the server would refuse.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..changes.kinds import (
    AddLinkifier,
    ArchiveChannel,
    DeactivateGroup,
    DeactivateUser,
    DeleteLinkifier,
    DeleteProfileField,
    ReorderLinkifiers,
    Subscribe,
    UpdateFolder,
    UpdateGroup,
    UpdateGroupMembers,
    UpdateGroupSubgroups,
    UpdateRealm,
    UpdateUser,
)
from .export import POLICIES, ROLES, _email
from .plan_objects import Step, _permission_changes, _words, matched, reach
from .state import Names

__all__ = [
    "group_details",
    "linkifier_order",
    "linkifiers",
    "membership",
    "objections",
    "organization",
    "removals",
    "roles",
]

ROLE_IDS = {v: k for k, v in ROLES.items()}


def group_details(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """Each group's direct members, subgroups and permissions as the file lists them."""
    have = {int(g["id"]): g for g in names.server.groups}
    for group in doc.get("user_groups") or ():
        name = str(group["name"])
        gid = names.groups.get(name.casefold())
        if gid is None:
            continue
        found = have.get(gid)
        for field, kind in (("members", UpdateGroupMembers), ("subgroups", UpdateGroupSubgroups)):
            if field not in group:
                continue
            lookup = names.person if field == "members" else names.group
            wanted = {i for n in group[field] if (i := lookup(str(n))) is not None}
            key = "direct_members" if field == "members" else "direct_subgroup_ids"
            now: set[int] = set()
            if found is not None:
                now = {int(u) for u in found.get(key, found.get("members")) or ()}
            add, drop = sorted(wanted - now), sorted(now - wanted)
            if found is None and field == "members":
                add = []  # made with its members
            if add or drop:
                yield Step("group details", f"@{name}: {len(add)} {field} added, {len(drop)} removed",
                           kind(group_id=gid, add=add, delete=drop))  # fmt: skip
        perms = _permission_changes("group", group, found, names, where=f"@{name}")
        if perms:
            yield Step("group details", f"@{name}: {_words(perms, group, 'group')}",
                       UpdateGroup(group_id=gid, settings=perms))  # fmt: skip


def organization(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """The organization's name, description, policies and permissions."""
    org = doc.get("organization")
    if not org:
        return
    realm = names.server.realm
    settings: dict[str, Any] = {}
    for field in ("name", "description"):
        if field in org and org[field] != realm.get(field):
            settings[field] = org[field]
    for key, value in (org.get("policies") or {}).items():
        if key not in realm:
            names.note(
                f"the organization: the policy “{key}” is not one this server has (feature "
                f"level {names.server.feature_level})"
            )
        elif key not in POLICIES:
            names.note(f"the organization: “{key}” is not a policy an organization file sets")
        elif realm[key] != value:
            settings[key] = value
    current = {k: realm.get(k) for k in org.get("permissions") or {}}
    settings.update(_permission_changes("realm", org, current, names, where="the organization"))
    if settings:
        yield Step("organization", f"the organization: {_words(settings, org, 'organization')}",
                   UpdateRealm(settings=settings))  # fmt: skip


def linkifiers(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """The file's linkifiers: added, their URL changed, and those it does not list removed."""
    if "linkifiers" not in doc:
        return
    wanted = {str(lf["pattern"]): str(lf["url_template"]) for lf in doc["linkifiers"]}
    for lf in names.server.linkifiers:
        pattern = str(lf["pattern"])
        if pattern not in wanted:
            yield Step("linkifiers", f"linkifier {pattern}: removed",
                       DeleteLinkifier(filter_id=int(lf["id"])))  # fmt: skip
        elif wanted[pattern] != lf.get("url_template"):
            from ..changes.kinds import UpdateLinkifier

            yield Step("linkifiers", f"linkifier {pattern}: links to {wanted[pattern]}",
                       UpdateLinkifier(filter_id=int(lf["id"]), pattern=pattern,
                                       url_template=wanted[pattern]))  # fmt: skip
    have = {str(lf["pattern"]) for lf in names.server.linkifiers}
    for pattern, url in wanted.items():
        if pattern not in have:
            yield Step("linkifiers", f"linkifier {pattern}: added, linking to {url}",
                       AddLinkifier(pattern=pattern, url_template=url))  # fmt: skip


def linkifier_order(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """The linkifiers in the file's order (the first that matches wins)."""
    if "linkifiers" not in doc:
        return
    ids = {str(lf["pattern"]): int(lf["id"]) for lf in names.server.linkifiers}
    order = [ids[p] for lf in doc["linkifiers"] if (p := str(lf["pattern"])) in ids]
    now = [int(lf["id"]) for lf in names.server.linkifiers]
    if len(order) == len(now) and order != now:
        yield Step("linkifier order", "the linkifiers in the file's order",
                   ReorderLinkifiers(ordered_linkifier_ids=order))  # fmt: skip


def membership(
    doc: Mapping[str, Any], names: Names, subscribers: Mapping[int, set[int]]
) -> Iterator[Step]:
    """Each membership rule's group members subscribed to its channels (``subscribers``: the
    channels' subscribers now, by channel id): one request per set of people."""
    needed: dict[tuple[int, ...], list[str]] = {}
    for rule in doc.get("membership_rules") or ():
        group = str(rule["group"])
        if names.groups.get(group.casefold()) is None:
            names.group(group)
            continue
        people = reach(doc, group, names)
        for channel in rule["channels"]:
            sid = names.channels.get(str(channel).casefold())
            if sid is None:
                names.channel(str(channel))
                continue
            missing = tuple(sorted(people - subscribers.get(sid, set())))
            if missing:
                needed.setdefault(missing, []).append(str(channel))
    for principals, channels in needed.items():
        shown = ", ".join(f"#{c}" for c in channels)
        yield Step("membership", f"{len(principals)} people subscribed to {shown}",
                   Subscribe(channels=channels, principals=list(principals)))  # fmt: skip


def roles(doc: Mapping[str, Any], names: Names) -> Iterator[Step]:
    """People's roles: promotions first, then demotions (so an owner is never the last one
    between two calls)."""
    have = {_email(p).casefold(): p for p in names.server.people}
    up: list[Step] = []
    down: list[Step] = []
    for person in doc.get("people") or ():
        email = str(person["email"])
        if "role" not in person:
            continue  # the file does not say: left as it is
        role = ROLE_IDS.get(str(person["role"]))
        uid = names.people.get(email.casefold())
        if role is None or uid is None:
            continue
        found = have.get(email.casefold())
        now = int(found.get("role", 400)) if found else 400
        if now != role:
            step = Step("roles", f"{email}: {ROLES.get(now, now)} → {ROLES[role]}",
                        UpdateUser(user_id=uid, settings={"role": role}))  # fmt: skip
            (up if role < now else down).append(step)
    yield from up
    yield from down


def removals(doc: Mapping[str, Any], names: Names, *, prune: bool) -> Iterator[Step]:
    """What the file marks deactivated or archived, and with ``prune`` what it does not list:
    groups, channels, folders, profile fields and accounts (bots and you are never pruned)."""
    server = names.server
    me = int(server.me["user_id"])
    for section, have, key in (
        ("user_groups", [g for g in server.groups if not g.get("is_system_group")], "name"),
        ("channels", server.channels, "name"),
        ("people", [p for p in server.people if not p.get("is_bot")], "email"),
        ("channel_folders", server.folders, "name"),
        ("custom_profile_fields", server.fields, "name"),
    ):
        if section not in doc:
            continue
        listed = {id(m) for obj in doc[section] if (m := _found(obj, have, key)) is not None}
        for obj in doc[section]:
            found = _found(obj, have, key)
            flag = (
                "active"
                if section == "people"
                else "deactivated"
                if section == "user_groups"
                else "archived"
            )
            gone = obj.get(flag) is False if section == "people" else bool(obj.get(flag))
            if found is not None and gone:
                yield from _remove(section, found, names)
        if prune:
            for found in have:
                if id(found) not in listed and not (section == "people" and found["user_id"] == me):
                    yield from _remove(section, found, names)


def _found(obj: Mapping[str, Any], have: list[dict[str, Any]], key: str) -> dict[str, Any] | None:
    if key == "email":
        email = str(obj["email"]).casefold()
        return next((p for p in have if _email(p).casefold() == email), None)
    return matched(obj, have, key)


def _remove(section: str, found: Mapping[str, Any], names: Names) -> Iterator[Step]:
    if section == "user_groups" and not found.get("deactivated"):
        yield Step("removals", f"@{found['name']}: deactivated",
                   DeactivateGroup(group_id=int(found["id"])))  # fmt: skip
    elif section == "channels" and not found.get("is_archived"):
        yield Step("removals", f"#{found['name']}: archived",
                   ArchiveChannel(stream_id=int(found["stream_id"])))  # fmt: skip
    elif section == "people" and found.get("is_active", True):
        yield Step("removals", f"{_email(found)}: deactivated",
                   DeactivateUser(user_id=int(found["user_id"])))  # fmt: skip
    elif section == "channel_folders" and not found.get("is_archived"):
        yield Step("removals", f"folder “{found['name']}”: archived",
                   UpdateFolder(folder_id=int(found["id"]), settings={"is_archived": True}))  # fmt: skip
    elif section == "custom_profile_fields":
        yield Step("removals", f"profile field “{found['name']}”: removed, with everyone's value",
                   DeleteProfileField(field_id=int(found["id"])))  # fmt: skip


def objections(doc: Mapping[str, Any], names: Names, steps: list[Step]) -> list[str]:
    """What the server would refuse in ``steps``, said before anything is sent: owners made
    or unmade by someone who is not one, no owner left, your own role or account, and a group
    deactivated while a setting or another group still uses it."""
    server = names.server
    me = server.me
    found: list[str] = []
    owners = {
        int(p["user_id"])
        for p in server.people
        if p.get("role") == 100 and p.get("is_active", True) and not p.get("is_bot")
    }
    for step in steps:
        change = step.change
        if isinstance(change, UpdateUser) and "role" in change.settings:
            was = next((p for p in server.people if p["user_id"] == change.user_id), {})
            if 100 in (change.settings["role"], was.get("role")) and me.get("role") != 100:
                found.append(f"{step.words}: only an organization owner makes or unmakes owners")
            if change.user_id == me.get("user_id"):
                found.append(
                    f"{step.words}: this is your own role; chatops leaves it to another "
                    "administrator (or change it by hand, last)"
                )
            if change.settings["role"] != 100:
                owners.discard(change.user_id)
            else:
                owners.add(change.user_id)
        if isinstance(change, DeactivateUser):
            if change.user_id == me.get("user_id"):
                found.append(f"{step.words}: this is your own account")
            if change.user_id in owners and me.get("role") != 100:
                found.append(f"{step.words}: only an organization owner deactivates an owner")
            owners.discard(change.user_id)
        if isinstance(change, DeactivateGroup):
            found += [f"{step.words}: {use}" for use in _uses(doc, names, change.group_id)]
    if not owners and any(isinstance(s.change, UpdateUser | DeactivateUser) for s in steps):
        found.append("the file leaves the organization with no active owner")
    return found


def _uses(doc: Mapping[str, Any], names: Names, gid: int) -> Iterator[str]:
    """Where group ``gid`` would still be used once the file is applied."""
    server = names.server
    name = names.group_names.get(gid, str(gid)).casefold()

    def names_it(value: Any) -> bool:
        if isinstance(value, int):
            return value == gid
        return isinstance(value, Mapping) and gid in (value.get("direct_subgroups") or ())

    def file_names_it(value: Any) -> bool:
        if isinstance(value, str):
            return value.casefold() == name
        groups = value.get("groups") if isinstance(value, Mapping) else None
        return any(str(g).casefold() == name for g in groups or ())

    org_file = (doc.get("organization") or {}).get("permissions") or {}
    for key in server.supported("realm"):
        value = org_file[key] if key in org_file else server.realm.get(key)
        if (file_names_it if key in org_file else names_it)(value):
            yield f"the organization's “{key}” names it"
    for kind, section, objects, id_key in (
        ("stream", "channels", server.channels, "stream_id"),
        ("group", "user_groups", server.groups, "id"),
    ):
        in_file = {str(o["name"]).casefold(): o for o in doc.get(section) or ()}
        for obj in objects:
            if obj.get(id_key) == gid or obj.get("is_archived") or obj.get("deactivated"):
                continue
            listed = in_file.get(str(obj["name"]).casefold(), {})
            if listed.get("archived") or listed.get("deactivated"):
                continue
            perms = listed.get("permissions") or {}
            for key in server.supported(kind):
                value = perms[key] if key in perms else obj.get(key)
                if (file_names_it if key in perms else names_it)(value):
                    shown = f"#{obj['name']}" if kind == "stream" else f"@{obj['name']}"
                    yield f"{shown}'s “{key}” names it"
            if kind == "group":
                subs = listed.get("subgroups")
                named = (
                    any(str(s).casefold() == name for s in subs)
                    if subs is not None
                    else gid in (obj.get("direct_subgroup_ids") or ())
                )
                if named:
                    yield f"@{obj['name']} has it as a subgroup"
