"""How each entry of a list of members reads against the organization: which user or group it
names (by email, full name, group name or mention), and what adding it to (or removing it from)
a group would do. Pure: it reads a :class:`GroupDirectory` as last fetched, sends nothing."""

from __future__ import annotations

from collections.abc import Sequence

from chatops import User

from .user_groups_data import GroupDirectory, GroupInfo
from .user_groups_lists import (
    ALREADY,
    AMBIGUOUS,
    DUPLICATE,
    NOT_MEMBER,
    REFUSED,
    UNKNOWN,
    WILL_ADD,
    WILL_REMOVE,
    MemberRow,
    mention,
)

__all__ = ["classify"]


def classify(
    directory: GroupDirectory,
    entries: Sequence[str],
    group: GroupInfo | None,
    *,
    remove: bool,
    lines: Sequence[int] = (),
) -> list[MemberRow]:
    """What adding (removing) each entry would do; ``row`` is its line as typed (given in
    ``lines``), else its place in the list."""
    raw = directory.raw_groups.get(group.id, {}) if group else {}
    direct_users = {int(u) for u in raw.get("members", [])}
    direct_groups = {int(g) for g in raw.get("direct_subgroup_ids", [])}
    by_email: dict[str, User] = {}
    by_name: dict[str, list[User]] = {}
    for u in directory.users:
        for email in (u.email, u.delivery_email):
            if email:
                by_email[email.casefold()] = u
        by_name.setdefault(u.full_name.casefold(), []).append(u)
    groups_by_name = {g.name.casefold(): g for g in directory.groups.values()}
    seen: dict[tuple[str, int], int] = {}
    out: list[MemberRow] = []
    for index, typed in enumerate(entries):
        row = lines[index] if index < len(lines) else index + 1
        hint, key = mention(typed)
        found: tuple[str, int, str] | None = None
        problem = ""
        if hint != "user" and "@" not in key and key.casefold() in groups_by_name:
            g = groups_by_name[key.casefold()]
            found = ("group", g.id, g.name)
        elif hint != "group":
            if "@" in key and key.casefold() in by_email:
                u = by_email[key.casefold()]
                found = ("user", u.user_id, u.full_name)
            elif len(named := by_name.get(key.casefold(), [])) == 1:
                found = ("user", named[0].user_id, named[0].full_name)
            elif named:
                problem = AMBIGUOUS
        if found is None:
            detail = (
                f"{len(by_name.get(key.casefold(), []))} users are called this; use their "
                "email instead."
                if problem == AMBIGUOUS
                else "No user or group has this email or name."
            )
            out.append(MemberRow(row, typed, "", None, "", problem or UNKNOWN, detail))
            continue
        kind, oid, who = found
        if (kind, oid) in seen:
            out.append(
                MemberRow(
                    row,
                    typed,
                    kind,
                    oid,
                    who,
                    DUPLICATE,
                    f"Same {kind} as line {seen[(kind, oid)]}.",
                )
            )
            continue
        seen[(kind, oid)] = row
        outcome, detail = _outcome(directory, kind, oid, group, direct_users, direct_groups, remove)
        out.append(MemberRow(row, typed, kind, oid, who, outcome, detail))
    return out


def _outcome(
    directory: GroupDirectory,
    kind: str,
    oid: int,
    group: GroupInfo | None,
    direct_users: set[int],
    direct_groups: set[int],
    remove: bool,
) -> tuple[str, str]:
    if remove:
        inside = oid in (direct_users if kind == "user" else direct_groups)
        if inside:
            return WILL_REMOVE, ""
        return NOT_MEMBER, "Not a direct member; members of its subgroups stay." if (
            kind == "user"
        ) else "Not a direct subgroup."
    if kind == "user":
        user = next(u for u in directory.users if u.user_id == oid)
        if not user.is_active:
            return REFUSED, "The account is deactivated."
        if oid in direct_users:
            return ALREADY, ""
        return WILL_ADD, ""
    sub = directory.groups[oid]
    if group is not None and oid == group.id:
        return REFUSED, "A group cannot be its own subgroup."
    if sub.deactivated:
        return REFUSED, "The group is deactivated."
    if oid in direct_groups:
        return ALREADY, ""
    if group is not None and group.id in _descendants(directory, oid):
        return REFUSED, f'"{group.name}" is already a subgroup of it: that would be a loop.'
    return WILL_ADD, "as a subgroup"


def _descendants(directory: GroupDirectory, gid: int) -> set[int]:
    found: set[int] = set()
    stack = [gid]
    while stack:
        for sub in directory.raw_groups.get(stack.pop(), {}).get("direct_subgroup_ids", []):
            if int(sub) not in found:
                found.add(int(sub))
                stack.append(int(sub))
    return found
