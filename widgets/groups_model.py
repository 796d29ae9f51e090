"""User groups without widgets: every group with its members and where it is used, and
deactivation (spec 4.21) with the server's objections, plus reactivation.
:class:`~chatops.widgets.user_groups.UserGroupsPanel` lays it out.

    model = GroupsModel(chatops.Client.from_zuliprc("~/.zuliprc"))
    model.fetch()
    model.deactivate(model.group_id("alumni"))   # False when in use: model.status says where
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from chatops import CannotDeactivateGroupInUse, Client, User
from chatops.audits.user_groups import group_usages

from ._model import FieldError, Reporter, Said, Session, frame
from ._model import plural as _plural
from ._words import setting_label
from .groups_edit import GroupEditing, MemberRow
from .groups_fix import ObjectionFixes

__all__ = ["GroupInfo", "GroupsModel"]

#: Feature levels of the endpoints (spec 4.21; facts 2.21).
DEACTIVATE_FEATURE_LEVEL = 290
REACTIVATE_FEATURE_LEVEL = 386

GROUP_COLUMNS = (
    "Group",
    "Description",
    "Active members",
    "Member names",
    "All members",
    "Subgroups",
    "State",
    "System group",
    "Uses",
    "Used in",
    "Where used",
    "You may manage",
    "ID",
)
USE_COLUMNS = ("Kind", "Channel or group", "Setting")

#: How many member names and places of use a row of the groups table spells out: all the
#: names up to FIRST_MEMBERS, else the first SOME_MEMBERS and how many more ("All members").
FIRST_MEMBERS = 3
SOME_MEMBERS = 2
FIRST_PLACES = 4

#: Kinds of use in the words of the tables, in the order the server lists its objections.
KIND_ORDER = {"subgroup of": 0, "organization": 1, "channel": 2, "group": 3}
NOT_APPLICABLE = "—"


@dataclass
class GroupInfo:
    """One user group as the panel shows it."""

    id: int
    name: str
    description: str
    is_system_group: bool
    deactivated: bool
    active_members: list[str]
    subgroups: list[str]
    uses: list[tuple[str, str, str]] = field(default_factory=list)
    may_manage: bool = False
    #: what the acting account may do to the members, by the server's rule (each is true when
    #: it may manage the group): add others, remove others, add itself, remove itself
    may_add_members: bool = False
    may_remove_members: bool = False
    may_join: bool = False
    may_leave: bool = False

    @property
    def label(self) -> str:
        """The name with its state, for the group picker."""
        if self.is_system_group:
            return f"{self.name} (system group)"
        if self.deactivated:
            return f"{self.name} (deactivated)"
        return self.name


def _role_words(name: str) -> str:
    """``role:owners`` -> ``owners``: system groups in an admin's words."""
    return name.removeprefix("role:")


class GroupsModel(GroupEditing, ObjectionFixes):
    """The user groups of an organization as one account sees and manages them; ``status``
    receives each outcome in words. Creating and changing groups is
    :class:`~chatops.widgets.groups_edit.GroupEditing`; fixing objections in place is
    :class:`~chatops.widgets.groups_fix.ObjectionFixes`."""

    def __init__(self, client: Client | Session, *, status: Reporter | None = None) -> None:
        self.session = client if isinstance(client, Session) else Session(client)
        self.client = self.session.client
        self.status: Reporter = status if status is not None else Said()
        self._setup()

    def _setup(self) -> None:
        self._groups: dict[int, GroupInfo] = {}
        self._channel_names: dict[int, str] = {}
        self._objections: list[dict[str, Any]] = []
        self._objections_group: int | None = None
        self._raw_groups: dict[int, dict[str, Any]] = {}
        self._raw_channels: dict[int, dict[str, Any]] = {}
        self._users: list[User] = []
        self.member_rows: list[MemberRow] = []
        self._member_target: tuple[int, bool] | None = None

    # -- permission -----------------------------------------------------------------------
    def missing_permission(self) -> str | None:
        """Why the acting account may deactivate or reactivate no group, or None."""
        if self.session.role == 600:
            return "Guests cannot deactivate or reactivate user groups; you are a guest."
        groups = [g for g in self.session.groups if not g.is_system_group]
        if any(self._may_manage(g.can_manage_group) for g in groups):
            return None
        # adding or removing members needs no permission to manage the group (the server's
        # rule, see _member_rights); leaving a group oneself is not what this panel is for
        me = self.session.me.user_id
        for g in groups:
            if g.deactivated:
                continue
            if self.session.role != 600 and me in self.session.group_members(
                g.can_add_members_group
            ):
                return None
            if any(
                me in self.session.group_members(v)
                for v in (g.can_remove_members_group, g.can_join_group)
            ):
                return None
        return (
            "Deactivating or reactivating a user group needs permission to manage it: being in "
            f"the organization's “Who can administer all user groups” "
            f"({self._manage_all_words()}) or in the group's own “Who can administer this "
            f"group”. You are a {self.session.role_name} and may "
            f"manage none of the {len(groups)} user groups, nor add or remove their members."
        )

    def _manage_all_words(self) -> str:
        value = self.session.realm.get("realm_can_manage_all_groups")
        names = {g.id: g.name for g in self.session.groups}
        if isinstance(value, int) and not isinstance(value, bool):
            return _role_words(names.get(value, f"group {value}"))
        if isinstance(value, Mapping):
            parts = [
                _role_words(names.get(int(g), f"group {g}"))
                for g in value.get("direct_subgroups", [])
            ]
            count = len(value.get("direct_members", []))
            if count:
                parts.append(_plural(count, "user"))
            return ", ".join(parts) or "nobody"
        return "administrators"

    def _may_manage(self, can_manage_group: Any) -> bool:
        """The server's rule: no guest; in can_manage_all_groups or in the group's setting."""
        if self.session.role == 600:
            return False
        if self.session.permits("can_manage_all_groups"):
            return True
        return self.session.me.user_id in self.session.group_members(can_manage_group)

    def _member_rights(self, group: Mapping[str, Any], *, manage: bool) -> dict[str, bool]:
        """The server's rule for changing members (``POST /user_groups/{id}/members``): whoever
        may manage the group may do anything; otherwise adding others needs the group's “Who can
        add members” (never a guest), removing others its “Who can remove members”, adding
        oneself alone its “Who can join” and removing oneself alone its “Who can leave”. A
        system group's members change only with roles."""
        if group.get("is_system_group"):
            return dict.fromkeys(
                ("may_add_members", "may_remove_members", "may_join", "may_leave"), False
            )
        me = self.session.me.user_id

        def named(setting: str) -> bool:
            return manage or me in self.session.group_members(group.get(setting))

        return {
            "may_add_members": named("can_add_members_group")
            and (manage or self.session.role != 600),
            "may_remove_members": named("can_remove_members_group"),
            "may_join": named("can_join_group"),
            "may_leave": named("can_leave_group"),
        }

    # -- data -----------------------------------------------------------------------------
    def fetch(self) -> None:
        """Fetch groups, users, channels and organization settings again."""
        self.session.refresh()
        raw_groups: list[dict[str, Any]] = self.client.get(
            "/user_groups", params={"include_deactivated_groups": True}
        )["user_groups"]
        channels: list[dict[str, Any]] = self.client.get("/streams", params={"include_all": True})[
            "streams"
        ]
        users = self.client.users.list()
        self._channel_names = {int(c["stream_id"]): str(c["name"]) for c in channels}
        self._raw_channels = {int(c["stream_id"]): c for c in channels}
        self._raw_groups = {int(g["id"]): g for g in raw_groups}
        self._users = users
        self._groups = self._group_infos(raw_groups, channels, users)

    def _group_infos(
        self,
        raw_groups: Sequence[Mapping[str, Any]],
        channels: Sequence[Mapping[str, Any]],
        users: Sequence[User],
    ) -> dict[int, GroupInfo]:
        by_id = {int(g["id"]): g for g in raw_groups}
        active = {u.user_id: u.full_name for u in users if u.is_active}
        uses: dict[int, list[tuple[str, str, str]]] = {}
        for use in self._usages(raw_groups, channels):
            uses.setdefault(int(use["group_id"]), []).append(self._use_row(use))
        infos: dict[int, GroupInfo] = {}
        for gid, g in by_id.items():
            reached = self._reached_users(gid, by_id)
            members = sorted((active[u] for u in reached if u in active), key=str.casefold)
            subgroups = sorted(
                (str(by_id[s]["name"]) for s in g.get("direct_subgroup_ids", []) if s in by_id),
                key=str.casefold,
            )
            system = bool(g.get("is_system_group"))
            manage = not system and self._may_manage(g.get("can_manage_group"))
            infos[gid] = GroupInfo(
                id=gid,
                name=str(g["name"]),
                description=str(g.get("description", "")),
                is_system_group=bool(g.get("is_system_group")),
                deactivated=bool(g.get("deactivated")),
                active_members=members,
                subgroups=subgroups,
                uses=sorted(uses.get(gid, []), key=self._use_order),
                may_manage=manage,
                **self._member_rights(g, manage=manage),
            )
        return infos

    def _usages(
        self, raw_groups: Sequence[Mapping[str, Any]], channels: Sequence[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        return group_usages(raw_groups, self.session.realm, channels)

    @staticmethod
    def _use_row(use: Mapping[str, Any]) -> tuple[str, str, str]:
        kind = str(use["kind"])
        if kind == "realm":
            return ("organization", NOT_APPLICABLE, setting_label("realm", str(use["setting"])))
        if kind == "subgroup":
            return ("subgroup of", str(use["where"]), NOT_APPLICABLE)
        scope = "group" if kind == "group" else "stream"
        return (kind, str(use["where"]), setting_label(scope, str(use["setting"])))

    @staticmethod
    def _use_order(row: tuple[str, str, str]) -> tuple[int, str, str]:
        return (KIND_ORDER.get(row[0], 9), row[1].casefold(), row[2])

    @staticmethod
    def _reached_users(gid: int, by_id: Mapping[int, Mapping[str, Any]]) -> set[int]:
        """Users of the group and of its active subgroups, also for a deactivated group."""
        reached: set[int] = set()
        seen: set[int] = set()
        stack = [gid]
        while stack:
            current = stack.pop()
            group = by_id.get(current)
            if current in seen or group is None:
                continue
            seen.add(current)
            if current != gid and group.get("deactivated"):
                continue
            reached.update(int(u) for u in group.get("members", []))
            stack.extend(int(s) for s in group.get("direct_subgroup_ids", []))
        return reached

    # -- what the tables show ---------------------------------------------------------------
    def groups_frame(
        self,
        name: str = "",
        *,
        only_empty: bool = False,
        only_unused: bool = False,
        show_deactivated: bool = True,
    ) -> pd.DataFrame:
        """The groups the filters let through: active before deactivated, custom before system
        groups, then by name."""
        needle = name.strip().casefold()
        rows = []
        for g in self._sorted_groups():
            if g.deactivated and not show_deactivated:
                continue
            if needle and needle not in g.name.casefold():
                continue
            if only_empty and g.active_members:
                continue
            if only_unused and g.uses:
                continue
            rows.append(self._group_row(g))
        return frame(rows, GROUP_COLUMNS)

    def _sorted_groups(self) -> list[GroupInfo]:
        return sorted(
            self._groups.values(),
            key=lambda g: (g.deactivated, g.is_system_group, g.name.casefold()),
        )

    @staticmethod
    def _group_row(g: GroupInfo) -> dict[str, Any]:
        names = g.active_members
        if len(names) <= FIRST_MEMBERS:
            first = ", ".join(names) or "nobody"
        else:
            first = f"{', '.join(names[:SOME_MEMBERS])} and {len(names) - SOME_MEMBERS} more"
        where = GroupsModel.where_used(g.uses)
        return {
            "Group": g.name,
            "Description": g.description,
            "Active members": len(names),
            "Member names": first,
            "All members": ", ".join(names),
            "Subgroups": ", ".join(g.subgroups),
            "State": "deactivated" if g.deactivated else "active",
            "System group": "yes" if g.is_system_group else "no",
            "Uses": len(g.uses),
            "Used in": GroupsModel.used_in(g.uses),
            "Where used": where,
            "You may manage": "yes" if g.may_manage else "no",
            "ID": g.id,
        }

    @staticmethod
    def used_in(uses: Sequence[tuple[str, str, str]]) -> str:
        """The places of use without their settings: ``#general, organization``."""
        places: dict[str, None] = {}
        for kind, where, _setting in uses:
            if kind == "organization":
                places["organization"] = None
            elif kind == "group":
                places[f"group {where}"] = None
            elif kind == "subgroup of":
                places[f"subgroup of {where}"] = None
            else:
                places[where] = None
        shown = list(places)[:FIRST_PLACES]
        more = len(places) - len(shown)
        return ", ".join(shown) + (f" and {more} more" if more > 0 else "") or "not used"

    @staticmethod
    def where_used(uses: Sequence[tuple[str, str, str]]) -> str:
        """A short summary of uses: ``organization: a, b; #general: c; subgroup of leads``."""
        places: dict[str, list[str]] = {}
        for kind, where, setting in uses:
            if kind == "organization":
                place = "organization"
            elif kind == "group":
                place = f"group {where}"
            elif kind == "subgroup of":
                place = f"subgroup of {where}"
            else:
                place = where
            settings = places.setdefault(place, [])
            if setting != NOT_APPLICABLE:
                settings.append(setting)
        # a place naming many settings (a system group on a channel) shows as a count
        parts = [
            p if not s else f"{p}: {', '.join(s)}" if len(s) <= 2 else f"{p}: {len(s)} settings"
            for p, s in places.items()
        ]
        text = "; ".join(parts[:FIRST_PLACES])
        if len(parts) > FIRST_PLACES:
            text += f"; and {len(parts) - FIRST_PLACES} more places"
        return text or "not used"

    def uses_frame(self, group_id: int | None) -> pd.DataFrame:
        """Where the group is used, as the panel last saw it: what would block deactivation."""
        group = self._groups.get(group_id) if group_id is not None else None
        rows = [dict(zip(USE_COLUMNS, use, strict=True)) for use in (group.uses if group else [])]
        return frame(rows, USE_COLUMNS)

    def objections_frame(self, objections: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
        """The server's ``objections`` as rows of names: kind, channel or group, setting."""
        rows: list[tuple[str, str, str]] = []
        for objection in objections:
            kind = str(objection.get("type", ""))
            settings = [str(s) for s in objection.get("settings", []) or []]
            if kind == "subgroup":
                for gid in objection.get("supergroup_ids", []) or []:
                    rows.append(("subgroup of", self._group_name(int(gid)), NOT_APPLICABLE))
            elif kind == "realm":
                rows.extend(
                    ("organization", NOT_APPLICABLE, setting_label("realm", s)) for s in settings
                )
            elif kind == "channel":
                where = self._channel_name(objection.get("channel_id"))
                rows.extend(("channel", where, setting_label("stream", s)) for s in settings)
            elif kind == "user_group":
                where = self._group_name(objection.get("group_id"))
                rows.extend(("group", where, setting_label("group", s)) for s in settings)
            else:
                # A kind newer than this panel: still say what it is rather than hide it.
                rows.extend((kind or "unknown", NOT_APPLICABLE, s) for s in settings or [""])
        return frame([dict(zip(USE_COLUMNS, r, strict=True)) for r in rows], USE_COLUMNS)

    def _group_name(self, gid: Any) -> str:
        group = self._groups.get(int(gid)) if gid is not None else None
        return group.name if group else f"group {gid}"

    def _channel_name(self, cid: Any) -> str:
        name = self._channel_names.get(int(cid)) if cid is not None else None
        return f"#{name}" if name else f"channel {cid}"

    def group_id(self, name: str) -> int:
        """The id of the group called ``name`` (as last fetched)."""
        for g in self._groups.values():
            if g.name == name:
                return g.id
        raise FieldError("group", f'There is no user group called "{name}".')

    # -- where a panel shows what changed --------------------------------------------------------
    def refresh(self) -> None:
        """Fetch everything again (a panel shows it too)."""
        self.fetch()

    def _hide_objections(self) -> None:
        self._objections = []
        self._objections_group = None

    def _show_objections(
        self, group: GroupInfo, objections: list[dict[str, Any]], exc: CannotDeactivateGroupInUse
    ) -> None:
        self._objections = objections
        self._objections_group = group.id
        table = self.objections_frame(objections)
        self.status.error(
            f'Cannot deactivate "{group.name}": it is still used in '
            f"{_plural(len(table), 'place')} ({exc.code}, HTTP {exc.status}). "
            f"{self.what_to_change(table)}"
        )

    # -- actions ----------------------------------------------------------------------------
    def _checked(self, group_id: int | None, *, action: str) -> GroupInfo:
        """The group, after the checks the server would make, so that a refusal shows next to
        the group picker before anything is sent."""
        if group_id is None or group_id not in self._groups:
            raise FieldError("group", "Pick a user group first.")
        group = self._groups[group_id]
        if group.is_system_group:
            raise FieldError(
                "group",
                f'"{group.name}" is a system group: it follows the organization\'s roles and '
                "cannot be deactivated.",
            )
        if not group.may_manage:
            raise FieldError(
                "group",
                f'You may not {action} "{group.name}": that needs its “Who can administer this '
                f"group” or the organization's “Who can administer all user groups” "
                f"({self._manage_all_words()}).",
            )
        needed = DEACTIVATE_FEATURE_LEVEL if action == "deactivate" else REACTIVATE_FEATURE_LEVEL
        level = self.session.capabilities.feature_level
        if level < needed:
            raise FieldError(
                "group",
                f"This server (feature level {level}) cannot {action} user groups; that needs "
                f"feature level {needed}.",
            )
        return group

    def deactivate(self, group_id: int | None) -> bool:
        """Deactivate a group; False when the server refuses because it is in use (its
        ``objections`` then show as a table)."""
        group = self._checked(group_id, action="deactivate")
        if group.deactivated:
            raise FieldError("group", f'"{group.name}" is already deactivated.')
        self._hide_objections()
        try:
            self.client.user_groups.deactivate(group.id)
        except CannotDeactivateGroupInUse as exc:
            # Names of channels and groups made since the last fetch are needed, and the local
            # view of uses should catch up with what the server knows.
            self.refresh()
            self._show_objections(group, list(exc.objections or []), exc)
            return False
        self.refresh()
        self.status.ok(
            f'Deactivated the user group "{group.name}". Its members stay in it; reactivate it '
            "here to use it again."
        )
        return True

    @staticmethod
    def what_to_change(uses: pd.DataFrame) -> str:
        """A sentence saying what to change before a group can be deactivated."""

        def places(kind: str) -> list[str]:
            column = "Setting" if kind == "organization" else "Channel or group"
            found = uses.loc[uses["Kind"] == kind, column]
            return list(dict.fromkeys(str(v) for v in found))

        steps: list[str] = []
        if settings := places("organization"):
            steps.append(f"the organization's {', '.join(f'“{s}”' for s in settings)}")
        if channels := places("channel"):
            steps.append(f"the settings of {', '.join(channels)} that name it")
        if groups := places("group"):
            steps.append(f"the settings of the groups {', '.join(groups)} that name it")
        todo = [f"change {' and '.join(steps)} to another group"] if steps else []
        if supergroups := places("subgroup of"):
            todo.append(f"remove it from the subgroups of {', '.join(supergroups)}")
        if not todo:
            return "Change what uses it first, then deactivate it again."
        return f"First {'; then '.join(todo)}; then deactivate it again."

    def reactivate(self, group_id: int | None) -> None:
        """Reactivate a deactivated group."""
        group = self._checked(group_id, action="reactivate")
        if not group.deactivated:
            raise FieldError(
                "group", f'"{group.name}" is active; only a deactivated group can be reactivated.'
            )
        self.client.user_groups.reactivate(group.id)
        self.refresh()
        self.status.ok(f'Reactivated the user group "{group.name}".')
