"""Who a permission setting names: groups and people, chosen together, within what the server
allows for that setting.

Zulip's permission settings (the organization's, a channel's, a group's) take a group, or
people and groups together (an anonymous group ``{"direct_members": [...],
"direct_subgroups": [...]}``). Which groups a setting accepts the server says itself, in
``POST /register``'s ``server_supported_permission_settings``: some take only a few system
groups ("Who can create web-public channels"), some never "nobody" or "everyone".
:class:`WhoChoices` offers exactly those (``_controls.WhoPicker`` shows them), shows a value as its choices (the current value is
what a picker shows), and turns choices back into the value the API takes.

    who = WhoChoices(session, users)
    who.options("realm", "can_create_groups")   # [("owners", Pick("group", 11)), ...]
    who.value((Pick("group", 11), Pick("user", 8)))  # {"direct_members": [8], ...}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from chatops import User

from ._model import FieldError, Session

__all__ = ["Pick", "WhoChoices", "same_value"]


class Pick(NamedTuple):
    """One choice of a picker: a group or a person, by id."""

    kind: str  # "group" or "user"
    id: int


#: System groups in the words of Zulip's settings pages, in their order there.
SYSTEM_WORDS = {
    "role:nobody": "Nobody",
    "role:owners": "Owners",
    "role:administrators": "Administrators",
    "role:moderators": "Moderators",
    "role:fullmembers": "Full members",
    "role:members": "Members",
    "role:everyone": "Everyone, including guests",
    "role:internet": "Everyone on the internet",
}
_SYSTEM_ORDER = {name: i for i, name in enumerate(SYSTEM_WORDS)}
_ROLE_WORDS = {words.casefold() for words in SYSTEM_WORDS.values()}


class WhoChoices:
    """The groups and people a setting may name, as the account of ``session`` sees them
    (``users``: the organization's people, as ``GET /users`` gives them)."""

    def __init__(self, session: Session, users: Sequence[User]) -> None:
        self.session = session
        self.users = [u for u in users if u.is_active]
        self._user_names = {u.user_id: u.full_name for u in users}

    def rules(self, kind: str, setting: str) -> Mapping[str, Any]:
        """The server's rules for ``setting`` (``server_supported_permission_settings``)."""
        supported = self.session.realm.get("server_supported_permission_settings") or {}
        return dict((supported.get(kind) or {}).get(setting) or {})

    def group_words(self, gid: int) -> str:
        group = next((g for g in self.session.groups if g.id == gid), None)
        if group is None:
            return f"group {gid}"
        if group.is_system_group:
            return SYSTEM_WORDS.get(group.name, group.name)
        if group.name.casefold() in _ROLE_WORDS:  # a group of its own named like a role
            return f"{group.name} (a group, not the role)"
        return group.name

    def words(self, value: Any) -> str:
        """A setting's value in words: a group's name, or the groups and people it names."""
        if isinstance(value, bool) or value is None:
            return "—"
        if isinstance(value, int):
            return self.group_words(value)
        if isinstance(value, Mapping):
            parts = [self.group_words(int(g)) for g in value.get("direct_subgroups") or []]
            parts += [
                self._user_names.get(int(u), f"user {u}") for u in value.get("direct_members") or []
            ]
            return ", ".join(parts) or "Nobody"
        return "—"

    def pick_words(self, pick: Pick) -> str:
        if pick.kind == "user":
            return self._user_names.get(pick.id, f"user {pick.id}")
        return self.group_words(pick.id)

    def options(
        self, kind: str, setting: str, *, keep: Sequence[Pick] = ()
    ) -> list[tuple[str, Pick]]:
        """What the setting may name: the system groups it accepts (in the settings pages'
        order), then the organization's own groups and its people when it takes them. What
        ``keep`` holds (the current value) is offered too, also when the list would lack it (a
        deactivated group, someone deactivated)."""
        rules = self.rules(kind, setting)
        allowed = set(rules.get("allowed_system_groups") or ())
        system: list[tuple[int, str, int]] = []
        own: list[tuple[str, int]] = []
        for g in self.session.groups:
            if g.deactivated:
                continue
            if not g.is_system_group:
                own.append((g.name, g.id))
                continue
            if allowed and g.name not in allowed:
                continue
            if g.name == "role:internet" and not rules.get("allow_internet_group"):
                continue
            if g.name == "role:nobody" and rules.get("allow_nobody_group") is False:
                continue
            if g.name == "role:everyone" and rules.get("allow_everyone_group") is False:
                continue
            system.append((_SYSTEM_ORDER.get(g.name, 99), g.name, g.id))
        made = [
            (SYSTEM_WORDS.get(name, name), Pick("group", gid)) for _o, name, gid in sorted(system)
        ]
        if rules.get("require_system_group"):
            return self._with(made, keep)
        made += [
            (self.group_words(gid), Pick("group", gid))
            for _name, gid in sorted(own, key=lambda x: x[0].casefold())
        ]
        people = sorted(self.users, key=lambda u: u.full_name.casefold())
        made += [(f"{u.full_name} <{u.email}>", Pick("user", u.user_id)) for u in people]
        return self._with(made, keep)

    def _with(self, made: list[tuple[str, Pick]], keep: Sequence[Pick]) -> list[tuple[str, Pick]]:
        offered = {p for _label, p in made}
        return [(f"{self.pick_words(p)} (now)", p) for p in keep if p not in offered] + made

    def picks(self, value: Any) -> tuple[Pick, ...]:
        """The choices that stand for ``value`` (what a picker shows as selected)."""
        if isinstance(value, int) and not isinstance(value, bool):
            return (Pick("group", value),)
        if isinstance(value, Mapping):
            return tuple(
                Pick("group", int(g)) for g in value.get("direct_subgroups") or ()
            ) + tuple(Pick("user", int(u)) for u in value.get("direct_members") or ())
        return ()

    def value(
        self,
        picks: Sequence[Pick],
        *,
        kind: str = "",
        setting: str = "",
        field: str = "setting_value",
    ) -> int | dict[str, list[int]]:
        """The value the API takes for ``picks``: one group as itself, anything else as
        people and groups together. A :class:`FieldError` when nothing is chosen, or when the
        setting takes a system group only and the choice is not one."""
        picks = [Pick(*p) for p in picks]
        if not picks:
            raise FieldError(field, "Choose at least one group or person (or Nobody).")
        groups = sorted({p.id for p in picks if p.kind == "group"})
        users = sorted({p.id for p in picks if p.kind == "user"})
        if kind and setting and self.rules(kind, setting).get("require_system_group"):
            if users or len(groups) != 1:
                raise FieldError(field, "This setting takes one of the roles listed, and only one.")
        if len(groups) == 1 and not users:
            return groups[0]
        return {"direct_members": users, "direct_subgroups": groups}


def same_value(old: Any, new: Any) -> bool:
    """Whether two setting values name the same groups and people (a group named directly is
    the same as people-and-groups holding only it)."""

    def key(value: Any) -> tuple[frozenset[int], frozenset[int]]:
        if isinstance(value, int) and not isinstance(value, bool):
            return frozenset(), frozenset({value})
        if isinstance(value, Mapping):
            return (
                frozenset(int(u) for u in value.get("direct_members") or ()),
                frozenset(int(g) for g in value.get("direct_subgroups") or ()),
            )
        return frozenset(), frozenset()

    return key(old) == key(new)
