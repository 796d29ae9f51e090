"""The user groups of an organization as one account sees them, without widgets: each group
with its members and where it is used, what the account may do to it by the server's rules, and
the names of groups and channels. The groups model, its editor and its objection fixer
(:mod:`~chatops.widgets.user_groups_model`, ``_edit``, ``_fix``) read the same
:class:`GroupDirectory`.

    directory = GroupDirectory(Session(chatops.Client.from_zuliprc("~/.zuliprc")))
    directory.fetch()
    info = directory.groups[directory.group_id("support-team")]   # a GroupInfo
    info.may_manage, info.uses                                    # True, [("channel", ...)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chatops import User
from chatops.audits.user_groups import group_usages

from ._model import FieldError, Session
from ._model import plural as _plural
from ._words import setting_label

__all__ = ["KIND_ORDER", "NOT_APPLICABLE", "GroupDirectory", "GroupInfo", "role_words"]

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


def role_words(name: str) -> str:
    """``role:owners`` -> ``owners``: system groups in an admin's words."""
    return name.removeprefix("role:")


class GroupDirectory:
    """The user groups, users and channels of the organization as last fetched (:meth:`fetch`),
    for the account of ``session``."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.client = session.client
        #: every group by ID, as the panel shows it
        self.groups: dict[int, GroupInfo] = {}
        #: the groups and channels as the server gave them (settings newer than the records too)
        self.raw_groups: dict[int, dict[str, Any]] = {}
        self.raw_channels: dict[int, dict[str, Any]] = {}
        self.channel_names: dict[int, str] = {}
        self.users: list[User] = []

    # -- what the account may do, by the server's rules --------------------------------------
    def manage_all_words(self) -> str:
        """Who the organization's “Who can administer all user groups” names, in words."""
        value = self.session.realm.get("realm_can_manage_all_groups")
        names = {g.id: g.name for g in self.session.groups}
        if isinstance(value, int) and not isinstance(value, bool):
            return role_words(names.get(value, f"group {value}"))
        if isinstance(value, Mapping):
            parts = [
                role_words(names.get(int(g), f"group {g}"))
                for g in value.get("direct_subgroups", [])
            ]
            count = len(value.get("direct_members", []))
            if count:
                parts.append(_plural(count, "user"))
            return ", ".join(parts) or "nobody"
        return "administrators"

    def may_manage(self, can_manage_group: Any) -> bool:
        """The server's rule: no guest; in can_manage_all_groups or in the group's setting."""
        if self.session.role == 600:
            return False
        if self.session.permits("can_manage_all_groups"):
            return True
        return self.session.me.user_id in self.session.group_members(can_manage_group)

    def member_rights(self, group: Mapping[str, Any], *, manage: bool) -> dict[str, bool]:
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

    # -- what was fetched ---------------------------------------------------------------------
    def fetch(self) -> None:
        """Fetch groups, users, channels and organization settings again."""
        self.session.refresh()
        raw_groups = self.session.raw_groups()
        channels: list[dict[str, Any]] = self.client.get("/streams", params={"include_all": True})[
            "streams"
        ]
        users = self.client.users.list()
        self.channel_names = {int(c["stream_id"]): str(c["name"]) for c in channels}
        self.raw_channels = {int(c["stream_id"]): c for c in channels}
        self.raw_groups = {int(g["id"]): g for g in raw_groups}
        self.users = users
        self.groups = self._group_infos(raw_groups, channels, users)

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
            manage = not system and self.may_manage(g.get("can_manage_group"))
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
                **self.member_rights(g, manage=manage),
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

    # -- names -------------------------------------------------------------------------------
    def group_name(self, gid: Any) -> str:
        """A group's name (as last fetched), or ``group <id>``."""
        group = self.groups.get(int(gid)) if gid is not None else None
        return group.name if group else f"group {gid}"

    def channel_name(self, cid: Any) -> str:
        """A channel's name as ``#name`` (as last fetched), or ``channel <id>``."""
        name = self.channel_names.get(int(cid)) if cid is not None else None
        return f"#{name}" if name else f"channel {cid}"

    def group_id(self, name: str) -> int:
        """The id of the group called ``name`` (as last fetched)."""
        for g in self.groups.values():
            if g.name == name:
                return g.id
        raise FieldError("group", f'There is no user group called "{name}".')
