"""The organization as an apply sees it: every object with its id, found by the names an
organization file uses, and a file's names turned into the ids the API takes.

    server = Server.read(client)
    names = Names(server)
    names.group("backend")          # its id; a problem noted (with the closest name) when unknown
    names.setting({"groups": ["backend"], "people": ["ann@x.org"]})
                                    # {"direct_members": [7], "direct_subgroups": [12]}

Objects an apply will create get a provisional id (negative) when a plan is made before they
exist, so that the plan can name every change that follows from them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .export import _email, _realm

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["Names", "Server", "closest"]


def closest(name: str, known: Iterable[str]) -> str:
    """`` (the closest is “x”)`` when one of ``known`` is near ``name``, else ``""``."""
    pool = {k.casefold(): k for k in known}
    near = difflib.get_close_matches(name.casefold(), list(pool), n=1, cutoff=0.6)
    return f" (the closest is “{pool[near[0]]}”)" if near else ""


@dataclass
class Server:
    """What the organization has now, read in one go (``POST /register`` for its settings)."""

    realm: dict[str, Any]
    me: dict[str, Any]
    people: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    channels: list[dict[str, Any]]
    folders: list[dict[str, Any]]
    linkifiers: list[dict[str, Any]]
    fields: list[dict[str, Any]]

    @classmethod
    def read(cls, client: Client) -> Server:
        state = _realm(client)
        realm = {k.removeprefix("realm_"): v for k, v in state.items() if k.startswith("realm_")}
        realm["server_supported_permission_settings"] = (
            state.get("server_supported_permission_settings") or {}
        )
        realm["zulip_feature_level"] = int(state.get("zulip_feature_level") or 0)
        channels = client.get(
            "/streams",
            params={"include_all": True, "exclude_archived": False, "include_default": True},
        )["streams"]
        folders = client.get("/channel_folders", params={"include_archived": True})
        ordered = sorted(
            folders["channel_folders"],
            key=lambda f: f.get("order") if f.get("order") is not None else 1 << 30,
        )
        return cls(
            realm=realm,
            me=dict(client.get("/users/me")),
            people=[dict(p) for p in client.get("/users")["members"]],
            groups=[
                dict(g)
                for g in client.get("/user_groups", params={"include_deactivated_groups": True})[
                    "user_groups"
                ]
            ],
            channels=[dict(c) for c in channels],
            folders=[dict(f) for f in ordered],
            linkifiers=[dict(x) for x in client.get("/realm/linkifiers")["linkifiers"]],
            fields=[dict(x) for x in client.get("/realm/profile_fields")["custom_fields"]],
        )

    @property
    def feature_level(self) -> int:
        return int(self.realm.get("zulip_feature_level") or 0)

    def supported(self, kind: str) -> dict[str, dict[str, Any]]:
        """The group settings the server has for ``kind`` (realm, stream, group), with what each
        accepts."""
        every = self.realm.get("server_supported_permission_settings") or {}
        return dict(every.get(kind) or {})


@dataclass
class Names:
    """The file's names as the API's ids, over a :class:`Server` (and the objects a plan will
    create); every name that matches nothing is noted in :attr:`problems`, with the closest."""

    server: Server
    problems: list[str] = field(default_factory=list)
    _next: int = -1

    def __post_init__(self) -> None:
        s = self.server
        self.people = {_email(p).casefold(): int(p["user_id"]) for p in s.people}
        self.groups = {str(g["name"]).casefold(): int(g["id"]) for g in s.groups}
        self.channels = {str(c["name"]).casefold(): int(c["stream_id"]) for c in s.channels}
        self.folders = {str(f["name"]).casefold(): int(f["id"]) for f in s.folders}
        self.fields = {str(f["name"]).casefold(): int(f["id"]) for f in s.fields}
        #: each name as the organization spells it, for the closest-name hint
        self.spelled = {
            str(n).casefold(): str(n)
            for n in [
                *(_email(p) for p in s.people),
                *(g["name"] for g in s.groups),
                *(c["name"] for c in s.channels),
                *(f["name"] for f in s.folders),
            ]
        }
        self.group_names = {v: str(g["name"]) for g in s.groups for v in [int(g["id"])]}

    def provisional(self) -> int:
        """An id for an object a plan will create (negative: never sent as it is)."""
        self._next -= 1
        return self._next

    def _find(self, table: dict[str, int], name: str, what: str, shown: str) -> int | None:
        found = table.get(str(name).casefold())
        if found is None:
            known = [self.spelled.get(k, k) for k in table]
            self.note(
                f"{what} {shown} is not in the organization or the file{closest(name, known)}"
            )
        return found

    def note(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)

    def person(self, email: str) -> int | None:
        return self._find(self.people, email, "person", str(email))

    def group(self, name: str) -> int | None:
        return self._find(self.groups, name, "group", f"“{name}”")

    def channel(self, name: str) -> int | None:
        return self._find(self.channels, name, "channel", f"#{name}")

    def folder(self, name: str) -> int | None:
        return self._find(self.folders, name, "channel folder", f"“{name}”")

    def setting(self, value: Any, *, where: str) -> int | dict[str, list[int]] | None:
        """A permission of the file as the API takes it: one group's id, or people and
        groups as ``{"direct_members": [...], "direct_subgroups": [...]}``."""
        if isinstance(value, str):
            group = self._find(self.groups, value, "group", f"“{value}” ({where})")
            return group
        if isinstance(value, Mapping):
            people = [
                self._find(self.people, p, "person", f"{p} ({where})")
                for p in value.get("people") or ()
            ]
            groups = [
                self._find(self.groups, g, "group", f"“{g}” ({where})")
                for g in value.get("groups") or ()
            ]
            if None in people or None in groups:
                return None
            return {
                "direct_members": sorted(int(p) for p in people if p is not None),
                "direct_subgroups": sorted(int(g) for g in groups if g is not None),
            }
        return None


def refused_value(name: str, value: Any, rules: Mapping[str, Any]) -> str:
    """Why the server would refuse ``value`` (a file's permission) for the setting ``name``
    whose rules are ``rules`` (from ``server_supported_permission_settings``), or ``""``."""
    groups = (
        [value]
        if isinstance(value, str)
        else [*(value.get("groups") or ())]
        if isinstance(value, Mapping)
        else []
    )
    people = value.get("people") if isinstance(value, Mapping) else None
    system = [g for g in groups if str(g).startswith("role:")]
    if rules.get("require_system_group") and (people or len(groups) != 1 or not system):
        allowed = ", ".join(rules.get("allowed_system_groups") or ()) or "a role"
        return f"takes one role only ({allowed})"
    for role in system:
        if role == "role:internet" and not rules.get("allow_internet_group"):
            return "cannot be role:internet"
        if role == "role:nobody" and not rules.get("allow_nobody_group"):
            return "cannot be role:nobody"
        if role == "role:everyone" and not rules.get("allow_everyone_group"):
            return "cannot include guests (role:everyone)"
        only = [str(g) for g in rules.get("allowed_system_groups") or ()]
        if only and role not in only:
            return f"takes only {', '.join(only)}"
    return ""
