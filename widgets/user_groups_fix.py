"""Objections fixed in place, without widgets: each place the server says still uses a group
(an organization setting, a channel's setting, another group's setting, a supergroup) gets
its fix, which is applied and followed by another try at deactivating the group.
:class:`~chatops.widgets.user_groups_model.GroupsModel` holds an :class:`ObjectionFixer`
(``model.fixer``), tells it the server's objections, and offers its methods too.

    if not model.deactivate(gid):
        for fix in model.fixes():                     # one per row of the objections table
            print(fix.label, fix.needs_group)
        model.fix(0, model.group_id("role:administrators"))   # applied, then deactivate again
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from chatops.changes import Change
from chatops.changes.kinds import UpdateChannel, UpdateGroup, UpdateGroupSubgroups, UpdateRealm

from ._model import FieldError, Reporter, frame, wire
from ._words import setting_label
from .user_groups_data import NOT_APPLICABLE, GroupDirectory, GroupInfo

__all__ = ["FIX_COLUMNS", "Fix", "ObjectionFixer", "replaced"]
FIX_COLUMNS = ("Fix", "Kind", "Channel or group", "Setting", "How to fix")


@dataclass(frozen=True)
class Fix:
    """What one objection asks for, and where."""

    kind: str  # "realm", "channel", "user_group" or "subgroup"
    where_id: int | None  # the channel, the group whose setting it is, or the supergroup
    where: str  # its name in the admin's words
    setting: str  # the API name ("" for a supergroup)

    @property
    def needs_group(self) -> bool:
        """Whether the fix needs another group to put in the setting."""
        return self.kind != "subgroup"

    @property
    def label(self) -> str:
        """The row in a picker: where, then what."""
        if self.kind == "subgroup":
            return f"Remove it from the subgroups of {self.where}"
        scope = {"realm": "realm", "channel": "stream"}.get(self.kind, "group")
        place = {"realm": "Organization", "user_group": f"Group {self.where}"}.get(
            self.kind, self.where
        )
        return f"{place}: “{setting_label(scope, self.setting)}”"


def replaced(old: Any, target: int, new: int) -> Any:
    """A setting's value with ``target`` replaced by ``new``: the group itself, or an anonymous
    group whose other members and subgroups stay."""
    if isinstance(old, Mapping):
        subgroups: list[int] = []
        for gid in old.get("direct_subgroups", []) or []:
            gid = new if int(gid) == target else int(gid)
            if gid not in subgroups:
                subgroups.append(gid)
        return {
            "direct_members": [int(u) for u in old.get("direct_members", []) or []],
            "direct_subgroups": subgroups,
        }
    return new


class ObjectionFixer:
    """Fix each objection the server made to deactivating a group of ``directory`` in place,
    then deactivate it again (``deactivate``, which says whether it worked). ``status``
    receives each outcome in words."""

    def __init__(
        self,
        directory: GroupDirectory,
        *,
        status: Reporter,
        deactivate: Callable[[int | None], bool],
    ) -> None:
        self.directory = directory
        self.session = directory.session
        self.client = directory.client
        self.status = status
        self._deactivate = deactivate
        #: the group the server refused to deactivate, and its objections as it listed them
        self.group_id: int | None = None
        self.objections: list[dict[str, Any]] = []

    def objected(self, group_id: int, objections: list[dict[str, Any]]) -> None:
        """The server refused to deactivate ``group_id`` for ``objections``."""
        self.group_id = group_id
        self.objections = objections

    def forget(self) -> None:
        """There are no objections to fix (the next try may have others)."""
        self.group_id = None
        self.objections = []

    def fixes(self) -> list[Fix]:
        """One fix per row of the last objections, in the same order."""
        found: list[Fix] = []
        for objection in self.objections:
            kind = str(objection.get("type", ""))
            settings = [str(s) for s in objection.get("settings", []) or []]
            if kind == "subgroup":
                for gid in objection.get("supergroup_ids", []) or []:
                    found.append(Fix("subgroup", int(gid), self.directory.group_name(int(gid)), ""))
            elif kind == "realm":
                found.extend(Fix("realm", None, NOT_APPLICABLE, s) for s in settings)
            elif kind == "channel":
                cid = int(objection["channel_id"])
                found.extend(
                    Fix("channel", cid, self.directory.channel_name(cid), s) for s in settings
                )
            elif kind == "user_group":
                gid = int(objection["group_id"])
                found.extend(
                    Fix("user_group", gid, self.directory.group_name(gid), s) for s in settings
                )
        return found

    def fixes_frame(self) -> pd.DataFrame:
        """The objections with a number to pick each by and the fix it offers."""
        rows = []
        for number, fix in enumerate(self.fixes(), start=1):
            scope = {"realm": "realm", "channel": "stream"}.get(fix.kind, "group")
            rows.append(
                {
                    "Fix": number,
                    "Kind": {
                        "realm": "organization",
                        "channel": "channel",
                        "user_group": "group",
                        "subgroup": "subgroup of",
                    }[fix.kind],
                    "Channel or group": fix.where,
                    "Setting": setting_label(scope, fix.setting) if fix.setting else NOT_APPLICABLE,
                    "How to fix": "choose another group for the setting"
                    if fix.needs_group
                    else f"remove it from {fix.where}",
                }
            )
        return frame(rows, FIX_COLUMNS)

    def replacement_choices(self) -> list[tuple[str, int]]:
        """Groups that may take the place of the group being deactivated."""
        target = self.group_id
        active = [
            g
            for g in self.directory.groups.values()
            if not g.deactivated and g.id != target and g.name != "role:internet"
        ]
        active.sort(key=lambda g: (not g.is_system_group, g.name.casefold()))
        return [
            (g.name.removeprefix("role:") if g.is_system_group else g.name, g.id) for g in active
        ]

    def describe_fix(self, index: int, replacement: int | None) -> str:
        """What :meth:`fix` will do, as a question for the admin."""
        fix, group = self._fix_at(index)
        if not fix.needs_group:
            return f'Remove "{group.name}" from the subgroups of {fix.where}, then deactivate it?'
        name = self._replacement(fix, replacement).name.removeprefix("role:")
        return f'Put "{name}" in place of "{group.name}" in {fix.label}, then deactivate it?'

    def _fix_at(self, index: int) -> tuple[Fix, GroupInfo]:
        fixes = self.fixes()
        if self.group_id is None or not fixes:
            raise FieldError("fix", "There is nothing to fix: deactivate a group first.")
        if not 0 <= index < len(fixes):
            raise FieldError("fix", f"Pick one of the {len(fixes)} fixes listed.")
        return fixes[index], self.directory.groups[self.group_id]

    def _replacement(self, fix: Fix, replacement: int | None) -> GroupInfo:
        if replacement is None or replacement not in self.directory.groups:
            raise FieldError("replacement", "Pick the group to put in the setting instead.")
        chosen = self.directory.groups[replacement]
        if chosen.id == self.group_id:
            raise FieldError("replacement", "Pick another group than the one to deactivate.")
        if chosen.deactivated:
            raise FieldError("replacement", f'"{chosen.name}" is deactivated; pick an active one.')
        return chosen

    def fix(self, index: int, replacement: int | None = None) -> bool:
        """Apply fix number ``index`` (0-based, as :meth:`fixes` lists them), then try to
        deactivate the group again; True when it is now deactivated."""
        fix, group = self._fix_at(index)
        target = group.id
        if fix.kind == "subgroup":
            assert fix.where_id is not None
            self.session.changes.make(
                UpdateGroupSubgroups(group_id=fix.where_id, delete=[target]),
                {"subject": fix.where},
            )
            done = f'Removed "{group.name}" from the subgroups of {fix.where}'
        else:
            new = self._replacement(fix, replacement).id
            if fix.kind == "realm":
                old = self.session.realm.get(f"realm_{fix.setting}")
                change: Change = UpdateRealm(
                    settings={fix.setting: {"new": replaced(old, target, new), "old": wire(old)}}
                )
            elif fix.kind == "channel":
                assert fix.where_id is not None
                old = self.directory.raw_channels[fix.where_id].get(fix.setting)
                change = UpdateChannel(
                    stream_id=fix.where_id,
                    settings={fix.setting: {"new": replaced(old, target, new), "old": wire(old)}},
                )
            else:
                assert fix.where_id is not None
                old = self.directory.raw_groups[fix.where_id][fix.setting]
                change = UpdateGroup(
                    group_id=fix.where_id,
                    settings={fix.setting: {"new": replaced(old, target, new), "old": wire(old)}},
                )
            self.session.changes.make(change, {"subject": fix.where})
            name = self.directory.groups[new].name.removeprefix("role:")
            done = f'Put "{name}" in place of "{group.name}" in {fix.label}'
        deactivated = self._deactivate(target)
        if not deactivated:
            self.status.error(f"{done}. {self.status.text}")
        else:
            self.status.ok(f"{done}. {self.status.text}")
        return deactivated
