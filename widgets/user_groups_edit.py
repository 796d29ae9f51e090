"""Changing user groups without widgets: create, rename and describe a group, add and remove
members and subgroups in bulk (pasted text or a CSV file, previewed before anything is sent),
and the group's own permission settings. :class:`~chatops.widgets.user_groups_model.GroupsModel`
holds a :class:`GroupEditor` (``model.editor``) and offers its methods too.

    model.create_group("on-call", description="Who answers pages", members="ann@x.org, Bo Li")
    model.preview_members(gid, "ann@x.org\\n@*support-team*")   # one MemberRow per entry
    model.apply_members(gid, "ann@x.org\n@*support-team*")      # adds what the preview allows
    model.set_permission(gid, "can_mention_group", model.group_id("role:members"))
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from chatops.changes.kinds import (
    CreateGroup,
    UpdateGroup,
    UpdateGroupMembers,
    UpdateGroupSubgroups,
)

from ._model import FieldError, PreviewSlot, Reporter, frame, wire
from ._model import plural as _plural
from ._who import Pick, WhoChoices, same_value
from ._words import SETTING_LABELS, Labelled, setting_label
from .user_groups_classify import classify
from .user_groups_data import GroupDirectory, GroupInfo
from .user_groups_lists import (
    MEMBER_COLUMNS,
    REFUSED,
    UNKNOWN,
    MemberRow,
    entries_from_file,
    lines_of,
    lines_of_file,
    members_inputs,
    mention,
    split_entries,
)

__all__ = [
    "GROUP_SETTINGS",
    "unknown_addresses",
    "MEMBER_COLUMNS",
    "PERMISSION_COLUMNS",
    "GroupEditor",
    "MemberRow",
    "entries_from_file",
    "split_entries",
]

#: The group's own permission settings, in the order Zulip's group settings page lists them.
GROUP_SETTINGS = (
    "can_manage_group",
    "can_mention_group",
    "can_join_group",
    "can_leave_group",
    "can_add_members_group",
    "can_remove_members_group",
)
MAX_NAME = 100
EMAIL = re.compile(r"[^@\s<>,;]+@[^@\s<>,;]+\.[^@\s<>,;]+")
PERMISSION_COLUMNS = ("Setting", "Who now")


def unknown_addresses(rows: Sequence[MemberRow]) -> list[str]:
    """The entries that name nobody in the organization and are email addresses (as typed, an
    address inside ``Name <address>`` taken out): the people who could be invited."""
    found: list[str] = []
    for r in rows:
        if r.outcome != UNKNOWN:
            continue
        _kind, text = mention(r.typed)
        if EMAIL.fullmatch(text) and text.casefold() not in {f.casefold() for f in found}:
            found.append(text)
    return found


class GroupEditor:
    """Create, rename, describe, members and subgroups, permission settings of the groups in
    ``directory``. ``status`` receives each outcome in words; ``changed`` runs after the server
    changed something, to fetch the groups again (and show them)."""

    def __init__(
        self, directory: GroupDirectory, *, status: Reporter, changed: Callable[[], None]
    ) -> None:
        self.directory = directory
        self.session = directory.session
        self.client = directory.client
        self.status = status
        self.changed = changed
        #: the last preview of members or subgroups: its rows, for which group and list
        self.members_preview: PreviewSlot[list[MemberRow]] = PreviewSlot(
            "members", target="the group picked", inputs="the list"
        )
        #: addresses of the last new group's list or preview that name nobody here (they can
        #: be invited), and the group they were meant for (None when it was not made)
        self.not_found: tuple[list[str], int | None] = ([], None)

    @property
    def member_rows(self) -> list[MemberRow]:
        """The rows of the last preview (none when there is none)."""
        current = self.members_preview.current
        return current.rows if current else []

    # -- checks -----------------------------------------------------------------------------
    def _editable(self, group_id: int | None, action: str) -> GroupInfo:
        if group_id is None or group_id not in self.directory.groups:
            raise FieldError("group", "Pick a user group first.")
        group = self.directory.groups[group_id]
        if group.is_system_group:
            raise FieldError(
                "group",
                f'"{group.name}" is a system group: it follows the organization\'s roles; you '
                f"cannot {action} it.",
            )
        if group.deactivated:
            raise FieldError(
                "group", f'"{group.name}" is deactivated; reactivate it before you {action} it.'
            )
        if not group.may_manage:
            raise FieldError(
                "group",
                f'You may not {action} "{group.name}": that needs its “Who can administer this '
                f"group” or the organization's “Who can administer all user groups” "
                f"({self.directory.manage_all_words()}).",
            )
        return group

    def members_refusal(
        self, group: GroupInfo, users: Sequence[int] | None = None, *, remove: bool = False
    ) -> str:
        """Why the server would refuse to add (remove) the users ``users`` to (from) the group,
        or "" when it would not; with ``users`` None, why it would refuse every list. The rule is
        the server's (see :meth:`GroupDirectory.member_rights`): managing the group is enough but
        not needed; a list of oneself alone is joining (leaving) the group."""
        if group.is_system_group:
            return (
                f'"{group.name}" is a system group: its members follow the organization\'s roles.'
            )
        if group.deactivated:
            return f'"{group.name}" is deactivated; reactivate it before you change its members.'
        if group.may_manage:
            return ""
        me = self.session.me.user_id
        alone = users is not None and list(users) == [me]
        if remove:
            others, yourself = group.may_remove_members, group.may_leave
            settings = ("can_remove_members_group", "can_leave_group")
        else:
            others, yourself = group.may_add_members, group.may_join
            settings = ("can_add_members_group", "can_join_group")
        if users is None and (others or yourself):
            return ""
        if (yourself if alone else others) and users is not None:
            return ""
        verb = "remove members from" if remove else "add members to"
        if users is None:
            needed = f"its “{setting_label('group', settings[0])}” (or, for yourself alone, " + (
                f"its “{setting_label('group', settings[1])}”)"
            )
        elif alone:
            verb = "leave" if remove else "join"
            needed = f"its “{setting_label('group', settings[1])}”"
        else:
            needed = f"its “{setting_label('group', settings[0])}”"
        if self.session.role == 600 and not remove and not alone:
            return f'Guests cannot {verb} "{group.name}"; you are a guest.'
        return (
            f'You may not {verb} "{group.name}": that needs {needed} or permission to '
            f"administer it (its “Who can administer this group” or the organization's “Who can "
            f"administer all user groups”, {self.directory.manage_all_words()})."
        )

    def _members_group(self, group_id: int | None, *, remove: bool) -> GroupInfo:
        """The group whose members are to change, when the server allows some change."""
        if group_id is None or group_id not in self.directory.groups:
            raise FieldError("group", "Pick a user group first.")
        group = self.directory.groups[group_id]
        if why := self.members_refusal(group, remove=remove):
            raise FieldError("group", why)
        return group

    def _check_name(self, name: str, *, field: str, keep: int | None = None) -> str:
        name = name.strip()
        if not name:
            raise FieldError(field, "Type a name for the group.")
        if len(name) > MAX_NAME:
            raise FieldError(
                field, f"A group name has at most {MAX_NAME} characters; this has {len(name)}."
            )
        if name.startswith(("role:", "@")):
            raise FieldError(field, 'A group name cannot start with "role:" or "@".')
        for g in self.directory.groups.values():
            if g.name.casefold() == name.casefold() and g.id != keep:
                state = " (deactivated)" if g.deactivated else ""
                raise FieldError(field, f'There is already a group called "{g.name}"{state}.')
        return name

    def may_create(self) -> bool:
        """Whether the acting account is in the organization's “Who can create user groups”."""
        return self.session.role != 600 and self.session.permits("can_create_groups")

    # -- create, rename, describe -----------------------------------------------------------
    def create_group(
        self, name: str, *, description: str = "", members: str = "", skip_unknown: bool = False
    ) -> int:
        """Create a group; ``members`` is pasted text as for :meth:`preview_members` (only
        users and groups it names unambiguously are sent). An entry that names nobody (or
        several) refuses the whole list, naming its line, unless ``skip_unknown``: then the
        group is made with the others and the outcome lists what was left out. Returns the new
        group's id."""
        if not self.may_create():
            raise FieldError(
                "new_name",
                "You are not in the organization's “Who can create user groups”, so you cannot "
                "create a group.",
            )
        name = self._check_name(name, field="new_name")
        entries, lines = lines_of(members)
        rows = self._classify(entries, None, remove=False, lines=lines)
        bad = [r for r in rows if not r.sent]
        self.not_found = (unknown_addresses(bad), None)
        listed = "; ".join(f"line {r.row} “{r.typed}”: {r.outcome}" for r in bad[:5]) + (
            "" if len(bad) <= 5 else f"; and {len(bad) - 5} more"
        )
        if bad and not skip_unknown:
            raise FieldError(
                "new_members",
                f"Fix these entries, or tick “Skip those not found”: {listed}.",
            )
        users = [r.id for r in rows if r.kind == "user" and r.id is not None]
        groups = [r.id for r in rows if r.kind == "group" and r.id is not None]
        made = self.session.changes.make(
            CreateGroup(
                name=name, members=users, description=description.strip(), subgroups=groups or []
            ),
            {"subject": f"@{name}"},
        )
        gid = int(made["group_id"])
        self.not_found = (self.not_found[0], gid)
        self.changed()
        self.status.ok(
            f'Created the user group "{name}" with {_plural(len(users), "member")}'
            + (f" and {_plural(len(groups), 'subgroup')}" if groups else "")
            + (f"; left out {listed}." if bad else ".")
        )
        return gid

    def update_group(
        self, group_id: int | None, *, name: str | None = None, description: str | None = None
    ) -> None:
        """Rename a group and/or change its description (only what differs is sent)."""
        group = self._editable(group_id, "change")
        changes: dict[str, str] = {}
        if name is not None and name.strip() != group.name:
            changes["name"] = self._check_name(name, field="name", keep=group.id)
        if description is not None and description.strip() != group.description:
            changes["description"] = description.strip()
        if not changes:
            raise FieldError("name", "Nothing to save: the name and description are unchanged.")
        self.session.changes.make(
            UpdateGroup(group_id=group.id, settings=dict(changes)), {"subject": f"@{group.name}"}
        )
        self.changed()
        said = []
        if "name" in changes:
            said.append(f'renamed "{group.name}" to "{changes["name"]}"')
        if "description" in changes:
            said.append(
                "changed its description" if said else f'changed the description of "{group.name}"'
            )
        text = " and ".join(said)
        self.status.ok(text[0].upper() + text[1:] + ".")

    # -- members and subgroups in bulk ------------------------------------------------------
    def preview_members(
        self, group_id: int | None, text: str, *, remove: bool = False
    ) -> list[MemberRow]:
        """Classify each entry of ``text`` (emails, full names, group names, ``@**name**`` or
        ``@*group*`` mentions) as what adding it to (or removing it from) the group would do.
        Nothing is sent; :meth:`apply_members` sends what the preview allows."""
        group = self._members_group(group_id, remove=remove)
        entries, lines = lines_of(text)
        if not entries:
            raise FieldError(
                "members", "Paste at least one email, name or group, or upload a file."
            )
        inputs = members_inputs(text=text, remove=remove)
        return self._preview(group, entries, lines, remove, inputs)

    def preview_file(
        self, group_id: int | None, content: bytes, name: str, *, remove: bool = False
    ) -> list[MemberRow]:
        """:meth:`preview_members` for an uploaded CSV or text file."""
        group = self._members_group(group_id, remove=remove)
        try:
            entries, lines = lines_of_file(content, name)
        except ValueError as exc:
            raise FieldError("members", str(exc)) from None
        inputs = members_inputs(file=(name, content), remove=remove)
        return self._preview(group, entries, lines, remove, inputs)

    def _preview(
        self,
        group: GroupInfo,
        entries: Sequence[str],
        lines: Sequence[int],
        remove: bool,
        inputs: tuple[Any, ...],
    ) -> list[MemberRow]:
        classified = self._classify(entries, group, remove=remove, lines=lines)
        rows = self._allowed(group, classified, remove)
        self.members_preview.made(group.id, inputs, rows)
        self.not_found = ([] if remove else unknown_addresses(rows), group.id)
        counts: dict[str, int] = {}
        for r in rows:
            counts[r.outcome] = counts.get(r.outcome, 0) + 1
        summary = ", ".join(f"{n:,} {k}" for k, n in counts.items())
        self.status.info(f'{_plural(len(rows), "entry", "entries")} for "{group.name}": {summary}.')
        return rows

    def _allowed(self, group: GroupInfo, rows: list[MemberRow], remove: bool) -> list[MemberRow]:
        """The rows with those the server would refuse marked so: subgroups need permission to
        administer the group; users need what :meth:`members_refusal` says of the list sent."""
        if not group.may_manage:
            why = (
                f'You may not change the subgroups of "{group.name}": that needs permission to '
                "administer it."
            )
            rows = [
                replace(r, outcome=REFUSED, detail=why) if r.sent and r.kind == "group" else r
                for r in rows
            ]
        users = [r.id for r in rows if r.sent and r.kind == "user" and r.id is not None]
        if not users or not (why := self.members_refusal(group, users, remove=remove)):
            return rows
        # the list as a whole is refused; oneself alone may still be allowed (joining)
        me = self.session.me.user_id
        alone = "" if me not in users else self.members_refusal(group, [me], remove=remove)
        keep = me in users and not alone
        return [
            r
            if not (r.sent and r.kind == "user") or (keep and r.id == me)
            else replace(r, outcome=REFUSED, detail=alone if r.id == me else why)
            for r in rows
        ]

    def members_frame(self) -> pd.DataFrame:
        """The last preview, one row per entry."""
        return frame(
            (
                dict(
                    zip(
                        MEMBER_COLUMNS,
                        (r.row, r.typed, r.kind or "—", r.who or "—", r.outcome, r.detail),
                        strict=True,
                    )
                )
                for r in self.member_rows
            ),
            MEMBER_COLUMNS,
        )

    def _classify(
        self,
        entries: Sequence[str],
        group: GroupInfo | None,
        *,
        remove: bool,
        lines: Sequence[int] = (),
    ) -> list[MemberRow]:
        return classify(self.directory, entries, group, remove=remove, lines=lines)

    def apply_members(
        self,
        group_id: int | None,
        text: str | None = None,
        *,
        file: tuple[str, bytes] | None = None,
        remove: bool = False,
    ) -> int:
        """Send what the preview of ``text`` (or of ``file``, its name and content) for the
        group ``group_id`` allows: at most one request for users and one for subgroups; returns
        how many entries were sent. Refused, sending nothing, when the last preview was made for
        another group or list, or when the group changed since: then the new preview is shown
        to be applied again."""
        inputs = members_inputs(text=text, file=file, remove=remove)
        preview = self.members_preview.require(group_id, inputs)
        planned = [(r.kind, r.id) for r in preview.rows if r.sent and r.id]
        if not planned:
            raise FieldError(
                "members", "Nothing in the preview can be sent; see each row's outcome."
            )
        # checked again against the server: the group may have changed since the preview
        self.directory.fetch()
        group = self._members_group(group_id, remove=remove)
        entries, lines = [r.typed for r in preview.rows], [r.row for r in preview.rows]
        classified = self._classify(entries, group, remove=remove, lines=lines)
        again = self._allowed(group, classified, remove)
        sent = [r for r in again if r.sent and r.id]
        if [(r.kind, r.id) for r in sent] != planned:
            self.members_preview.made(group.id, inputs, again)
            raise FieldError(
                "members",
                f'"{group.name}" changed since the preview, which now shows it as it is: '
                "apply again to send that.",
            )
        users = [r.id for r in sent if r.kind == "user" and r.id is not None]
        groups = [r.id for r in sent if r.kind == "group" and r.id is not None]
        about = {"subject": f"@{group.name}"}
        if users:
            which = {"delete": users} if remove else {"add": users}
            self.session.changes.make(UpdateGroupMembers(group_id=group.id, **which), about)
        if groups:
            which = {"delete": groups} if remove else {"add": groups}
            self.session.changes.make(UpdateGroupSubgroups(group_id=group.id, **which), about)
        self.members_preview.clear()
        self.changed()
        verb = "Removed" if remove else "Added"
        where = "from" if remove else "to"
        parts = [_plural(len(users), "member")] if users else []
        if groups:
            parts.append(_plural(len(groups), "subgroup"))
        self.status.ok(f'{verb} {" and ".join(parts)} {where} "{group.name}".')
        return len(sent)

    # -- the group's own permission settings ------------------------------------------------
    def value_words(self, value: Any) -> str:
        """A group-setting value in words: a group's name (a role as Zulip's settings pages
        name it), or the groups and people it names."""
        return self.who.words(value)

    def permissions_frame(self, group_id: int | None) -> pd.DataFrame:
        """The group's own settings: Zulip's label (API name as tooltip) and who it names."""
        raw = self.directory.raw_groups.get(group_id, {}) if group_id is not None else {}
        group = self.directory.groups.get(group_id) if group_id is not None else None
        rows = []
        if group is not None and not group.is_system_group:
            rows = [
                {"Setting": setting_label("group", s), "Who now": self.value_words(raw.get(s))}
                for s in GROUP_SETTINGS
                if s in raw
            ]
        return frame(rows, PERMISSION_COLUMNS)

    def setting_choices(self) -> list[tuple[str, int]]:
        """Groups a setting may name: system groups (by role) first, then active groups."""
        active = [
            g
            for g in self.directory.groups.values()
            if not g.deactivated and g.name != "role:internet"
        ]
        active.sort(key=lambda g: (not g.is_system_group, g.name.casefold()))
        return [
            (g.name.removeprefix("role:") if g.is_system_group else g.name, g.id) for g in active
        ]

    @property
    def who(self) -> WhoChoices:
        """The groups and people a group's setting may name."""
        return WhoChoices(self.session, self.directory.users)

    def setting_picks(
        self, group_id: int | None, setting: str
    ) -> tuple[list[tuple[str, Pick]], tuple[Pick, ...]]:
        """What the group's ``setting`` may name (groups and people, as the server allows),
        and what it names now, for a picker."""
        raw = self.directory.raw_groups.get(group_id, {}) if group_id is not None else {}
        current = self.who.picks(raw.get(setting))
        return self.who.options("group", setting, keep=current), current

    def _value(self, setting: str, value: Any) -> Any:
        """A value as the API takes it: a picker's choices become a group, or people and
        groups; every group named must be active and every person known."""
        if isinstance(value, (list, tuple)):
            value = self.who.value(value, kind="group", setting=setting)
        if isinstance(value, Mapping):
            subgroups = [int(g) for g in value.get("direct_subgroups") or ()]
            users = [int(u) for u in value.get("direct_members") or ()]
            known = {u.user_id for u in self.directory.users}
            if any(u not in known for u in users):
                raise FieldError("setting_value", "Someone chosen is not in the organization.")
        elif isinstance(value, int) and not isinstance(value, bool):
            subgroups = [value]
        else:
            raise FieldError("setting_value", "Pick who the setting should name.")
        for g in subgroups:
            if g not in self.directory.groups or self.directory.groups[g].deactivated:
                raise FieldError("setting_value", "Pick active groups for the setting.")
        return value

    def lockout(self, group_id: int | None, setting: str, value: Any) -> str:
        """Why setting the group's ``setting`` to ``value`` would take away the acting
        account's own right to administer the group, or "" when it would not."""
        group = self.directory.groups.get(group_id) if group_id is not None else None
        if setting != "can_manage_group" or group is None or not group.may_manage:
            return ""
        value = self._value(setting, value)
        if self.directory.may_manage(value):
            return ""
        return (
            f'You would no longer be able to administer "{group.name}": its “Who can '
            f"administer this group” would name {self.value_words(value)}, which you are not "
            "in, and the organization's “Who can administer all user groups” "
            f"({self.directory.manage_all_words()}) does not include you."
        )

    def describe_permission(self, group_id: int | None, setting: str, value: Any) -> str:
        """The change :meth:`set_permission` makes, in words: “Setting”: old → new."""
        group = self._editable(group_id, "change the settings of")
        value = self._value(setting, value)
        old = self.directory.raw_groups[group.id].get(setting)
        label = setting_label("group", setting)
        if same_value(old, value):
            raise FieldError("setting_value", f"“{label}” already names {self.value_words(value)}.")
        return f'“{label}” of "{group.name}": {self.value_words(old)} → {self.value_words(value)}'

    def set_permission(
        self, group_id: int | None, setting: str, value: Any, *, lose_access: bool = False
    ) -> None:
        """Set one of the group's own settings to a group, or to people and groups (as the
        API takes it, or a picker's choices); the server refuses if someone changed it since
        the panel's last fetch. A change that would take away the acting account's right to
        administer the group is refused unless ``lose_access``."""
        group = self._editable(group_id, "change the settings of")
        if setting not in SETTING_LABELS["group"]:
            raise FieldError("setting", f"{setting!r} is not a setting of a user group.")
        value = self._value(setting, value)
        old = self.directory.raw_groups[group.id][setting]
        label = setting_label("group", setting)
        if same_value(old, value):
            raise FieldError("setting_value", f"“{label}” already names {self.value_words(value)}.")
        if (why := self.lockout(group.id, setting, value)) and not lose_access:
            raise FieldError("setting_value", why)
        self.session.changes.make(
            UpdateGroup(
                group_id=group.id, settings={setting: {"new": wire(value), "old": wire(old)}}
            ),
            {"subject": f"@{group.name}"},
        )
        self.changed()
        self.status.ok(
            f'“{label}” of "{group.name}" is now {self.value_words(value)} '
            f"(was {self.value_words(old)})."
        )

    @staticmethod
    def setting_options() -> list[tuple[Labelled, str]]:
        """(label, API name) of each setting of a group, for a picker."""
        return [(setting_label("group", s), s) for s in GROUP_SETTINGS]
