"""User groups without widgets: every group with its members and where it is used, and
deactivation (spec 4.21) with the server's objections, plus reactivation. Creating and changing
groups is the model's :attr:`~GroupsModel.editor` (:mod:`~chatops.widgets.user_groups_edit`),
fixing objections in place its :attr:`~GroupsModel.fixer`
(:mod:`~chatops.widgets.user_groups_fix`); the model offers their methods too, and all three read
one :class:`~chatops.widgets.user_groups_data.GroupDirectory`.
:class:`~chatops.widgets.user_groups.UserGroupsPanel` lays it out.

    model = GroupsModel(chatops.Client.from_zuliprc("~/.zuliprc"))
    model.fetch()
    model.deactivate(model.group_id("alumni"))   # False when in use: model.status says where
    model.create_group("on-call", members="ann@x.org, Bo Li")
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from chatops import CannotDeactivateGroupInUse, Client
from chatops.changes.kinds import DeactivateGroup, ReactivateGroup

from ._model import FieldError, Reporter, Said, Session, frame
from ._model import plural as _plural
from ._who import Pick
from ._words import Labelled, setting_label
from .user_groups_data import NOT_APPLICABLE, GroupDirectory, GroupInfo
from .user_groups_edit import GroupEditor
from .user_groups_fix import Fix, ObjectionFixer
from .user_groups_lists import MemberRow, members_inputs

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


class GroupsModel:
    """The user groups of an organization as one account sees and manages them.

    ``status`` receives each outcome in words. ``changed`` runs after the server changed
    something (the panel fetches and shows everything again there; alone, the model fetches
    again), ``objections_changed`` when the server's objections to deactivating a group are
    known or forgotten (:attr:`objections`).
    """

    def __init__(
        self,
        client: Client | Session,
        *,
        status: Reporter | None = None,
        changed: Callable[[], None] | None = None,
        objections_changed: Callable[[], None] | None = None,
    ) -> None:
        self.session = client if isinstance(client, Session) else Session(client)
        self.client = self.session.client
        self.status: Reporter = status if status is not None else Said()
        self.changed: Callable[[], None] = changed if changed is not None else self.fetch
        self._objections_changed: Callable[[], None] = objections_changed or _nothing
        self.directory = GroupDirectory(self.session)
        self.editor = GroupEditor(self.directory, status=self.status, changed=self.refresh)
        self.fixer = ObjectionFixer(self.directory, status=self.status, deactivate=self.deactivate)

    @property
    def groups(self) -> dict[int, GroupInfo]:
        """Every user group by ID, as last fetched."""
        return self.directory.groups

    @property
    def objections(self) -> list[dict[str, Any]]:
        """What the server said still uses the group it last refused to deactivate."""
        return self.fixer.objections

    @property
    def objections_group(self) -> int | None:
        """The group the server last refused to deactivate (None once that is forgotten)."""
        return self.fixer.group_id

    @property
    def member_rows(self) -> list[MemberRow]:
        """The entries of the last preview of members, one row each."""
        return self.editor.member_rows

    # -- permission -----------------------------------------------------------------------
    def missing_permission(self) -> str | None:
        """Why the acting account may deactivate or reactivate no group, or None."""
        if self.session.role == 600:
            return "Guests cannot deactivate or reactivate user groups; you are a guest."
        groups = [g for g in self.session.groups if not g.is_system_group]
        if any(self.directory.may_manage(g.can_manage_group) for g in groups):
            return None
        # adding or removing members needs no permission to manage the group (the server's
        # rule, see GroupDirectory.member_rights); leaving a group oneself is not what this panel is for
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
            f"({self.directory.manage_all_words()}) or in the group's own “Who can administer this "
            f"group”. You are a {self.session.role_name} and may "
            f"manage none of the {len(groups)} user groups, nor add or remove their members."
        )

    # -- reading ----------------------------------------------------------------------------
    def fetch(self) -> None:
        """Fetch groups, users, channels and organization settings again."""
        self.directory.fetch()

    def refresh(self) -> None:
        """Fetch everything again (a panel shows it too)."""
        self.changed()

    def manage_all_words(self) -> str:
        """Who the organization's “Who can administer all user groups” names, in words."""
        return self.directory.manage_all_words()

    def group_id(self, name: str) -> int:
        """The id of the group called ``name`` (as last fetched)."""
        return self.directory.group_id(name)

    def forget_objections(self) -> None:
        """Forget the server's last objections (the next try may have others)."""
        self.fixer.forget()
        self._objections_changed()

    def _objected(
        self, group: GroupInfo, objections: list[dict[str, Any]], exc: CannotDeactivateGroupInUse
    ) -> None:
        self.fixer.objected(group.id, objections)
        table = self.objections_frame(objections)
        self.status.error(
            f'Cannot deactivate "{group.name}": it is still used in '
            f"{_plural(len(table), 'place')} ({exc.code}, HTTP {exc.status}). "
            f"{self.what_to_change(table)}"
        )
        self._objections_changed()

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
            self.directory.groups.values(),
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
        group = self.directory.groups.get(group_id) if group_id is not None else None
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
                    rows.append(
                        ("subgroup of", self.directory.group_name(int(gid)), NOT_APPLICABLE)
                    )
            elif kind == "realm":
                rows.extend(
                    ("organization", NOT_APPLICABLE, setting_label("realm", s)) for s in settings
                )
            elif kind == "channel":
                where = self.directory.channel_name(objection.get("channel_id"))
                rows.extend(("channel", where, setting_label("stream", s)) for s in settings)
            elif kind == "user_group":
                where = self.directory.group_name(objection.get("group_id"))
                rows.extend(("group", where, setting_label("group", s)) for s in settings)
            else:
                # A kind newer than this panel: still say what it is rather than hide it.
                rows.extend((kind or "unknown", NOT_APPLICABLE, s) for s in settings or [""])
        return frame([dict(zip(USE_COLUMNS, r, strict=True)) for r in rows], USE_COLUMNS)

    # -- actions ----------------------------------------------------------------------------
    def _checked(self, group_id: int | None, *, action: str) -> GroupInfo:
        """The group, after the checks the server would make, so that a refusal shows next to
        the group picker before anything is sent."""
        if group_id is None or group_id not in self.directory.groups:
            raise FieldError("group", "Pick a user group first.")
        group = self.directory.groups[group_id]
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
                f"({self.directory.manage_all_words()}).",
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

    def deactivate_question(self, group_id: int | None) -> str:
        """Check that the group can be deactivated; returns the question to confirm (which
        says so when the group is still in use, and the server will likely refuse)."""
        group = self._checked(group_id, action="deactivate")
        if group.deactivated:
            raise FieldError("group", f'"{group.name}" is already deactivated.')
        question = f'Deactivate the user group "{group.name}"?'
        if group.uses:
            question += (
                f" It is still used in {_plural(len(group.uses), 'place')} (listed above), so "
                "the server will likely refuse."
            )
        else:
            question += " It can no longer be mentioned or used in permissions."
        return question

    def deactivate(self, group_id: int | None) -> bool:
        """Deactivate a group; False when the server refuses because it is in use (its
        ``objections`` then show as a table)."""
        group = self._checked(group_id, action="deactivate")
        if group.deactivated:
            raise FieldError("group", f'"{group.name}" is already deactivated.')
        self.forget_objections()
        try:
            self.session.changes.make(
                DeactivateGroup(group_id=group.id), {"subject": f"@{group.name}"}
            )
        except CannotDeactivateGroupInUse as exc:
            # Names of channels and groups made since the last fetch are needed, and the local
            # view of uses should catch up with what the server knows.
            self.refresh()
            self._objected(group, list(exc.objections or []), exc)
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
        self.session.changes.make(ReactivateGroup(group_id=group.id), {"subject": f"@{group.name}"})
        self.refresh()
        self.status.ok(f'Reactivated the user group "{group.name}".')

    # -- creating and changing groups: the editor's ------------------------------------------
    def may_create(self) -> bool:
        """Whether the acting account is in the organization's “Who can create user groups”."""
        return self.editor.may_create()

    def create_group(
        self, name: str, *, description: str = "", members: str = "", skip_unknown: bool = False
    ) -> int:
        """Create a group (``members`` as pasted text; entries that name nobody refuse it,
        naming their lines, unless ``skip_unknown``); returns the new group's id."""
        return self.editor.create_group(
            name, description=description, members=members, skip_unknown=skip_unknown
        )

    def update_group(
        self, group_id: int | None, *, name: str | None = None, description: str | None = None
    ) -> None:
        """Rename a group and/or change its description (only what differs is sent)."""
        self.editor.update_group(group_id, name=name, description=description)

    def members_refusal(
        self, group: GroupInfo, users: Sequence[int] | None = None, *, remove: bool = False
    ) -> str:
        """Why the server would refuse to add (remove) ``users``, or "" when it would not."""
        return self.editor.members_refusal(group, users, remove=remove)

    def preview_members(
        self, group_id: int | None, text: str, *, remove: bool = False
    ) -> list[MemberRow]:
        """Classify each entry of ``text`` as what adding (removing) it would do; sends nothing."""
        return self.editor.preview_members(group_id, text, remove=remove)

    def preview_file(
        self, group_id: int | None, content: bytes, name: str, *, remove: bool = False
    ) -> list[MemberRow]:
        """:meth:`preview_members` for an uploaded CSV or text file."""
        return self.editor.preview_file(group_id, content, name, remove=remove)

    def members_frame(self) -> pd.DataFrame:
        """The last preview, one row per entry."""
        return self.editor.members_frame()

    def members_previewed(
        self,
        group_id: int | None,
        text: str | None = None,
        *,
        file: tuple[str, bytes] | None = None,
        remove: bool = False,
    ) -> bool:
        """Whether the last preview was made for this group and this list (Apply may send)."""
        inputs = members_inputs(text=text, file=file, remove=remove)
        return self.editor.members_preview.matches(group_id, inputs)

    def forget_members_preview(self) -> None:
        """Forget the last preview (the group or the list on screen changed)."""
        self.editor.members_preview.clear()

    def apply_members(
        self,
        group_id: int | None,
        text: str | None = None,
        *,
        file: tuple[str, bytes] | None = None,
        remove: bool = False,
    ) -> int:
        """Send what the preview of this list for this group allows, checked again against the
        server; refused when the preview was made for another group or list. Returns how many
        entries were sent."""
        return self.editor.apply_members(group_id, text, file=file, remove=remove)

    def value_words(self, value: Any) -> str:
        """A group-setting value in words."""
        return self.editor.value_words(value)

    def permissions_frame(self, group_id: int | None) -> pd.DataFrame:
        """The group's own settings: Zulip's label and who it names."""
        return self.editor.permissions_frame(group_id)

    def setting_choices(self) -> list[tuple[str, int]]:
        """Groups a setting may name: system groups (by role) first, then active groups."""
        return self.editor.setting_choices()

    def set_permission(
        self, group_id: int | None, setting: str, value: Any, *, lose_access: bool = False
    ) -> None:
        """Set one of the group's own settings to a group, or to people and groups; refused,
        when it would take away your own right to administer the group, unless
        ``lose_access``."""
        self.editor.set_permission(group_id, setting, value, lose_access=lose_access)

    def lockout(self, group_id: int | None, setting: str, value: Any) -> str:
        """Why the change would take away your right to administer the group ("" if not)."""
        return self.editor.lockout(group_id, setting, value)

    def setting_picks(
        self, group_id: int | None, setting: str
    ) -> tuple[list[tuple[str, Pick]], tuple[Pick, ...]]:
        """What the group's setting may name (groups and people) and what it names now."""
        return self.editor.setting_picks(group_id, setting)

    def describe_permission(self, group_id: int | None, setting: str, value: Any) -> str:
        """The permission change in words: “Setting” of "group": old → new."""
        return self.editor.describe_permission(group_id, setting, value)

    @staticmethod
    def setting_options() -> list[tuple[Labelled, str]]:
        """(label, API name) of each setting of a group, for a picker."""
        return GroupEditor.setting_options()

    # -- objections fixed in place: the fixer's ----------------------------------------------
    def fixes(self) -> list[Fix]:
        """One fix per row of the last objections, in the same order."""
        return self.fixer.fixes()

    def fixes_frame(self) -> pd.DataFrame:
        """The objections with a number to pick each by and the fix it offers."""
        return self.fixer.fixes_frame()

    def replacement_choices(self) -> list[tuple[str, int]]:
        """Groups that may take the place of the group being deactivated."""
        return self.fixer.replacement_choices()

    def describe_fix(self, index: int, replacement: int | None) -> str:
        """What :meth:`fix` will do, as a question for the admin."""
        return self.fixer.describe_fix(index, replacement)

    def fix(self, index: int, replacement: int | None = None) -> bool:
        """Apply fix number ``index``, then try to deactivate the group again; True when it is
        now deactivated."""
        return self.fixer.fix(index, replacement)


def _nothing() -> None:
    """What the model tells when no panel listens."""
