"""Bulk changes an administrator makes every week, each previewed a row per person, then made
through the change engine (journalled, undoable) with a result per row:

- people x channels subscribed or unsubscribed, in the fewest requests the API allows (one
  ``POST /users/me/subscriptions`` with ``principals`` for many people and every channel);
- roles changed (only an owner makes or unmakes owners; the last owner is never demoted);
- idle accounts deactivated: nobody seen and no message for N days, each with those dates
  (owners and bots only when asked; reactivating is the undo).

::

    people = Directory.read(client)
    plan = plan_subscriptions(people, ["ann@x.org", "@backend", "Bo Li"], ["#deploys"])
    plan.rows           # one per person: who, what changes, and whether it will
    made = apply_bulk(plan, client, journal, say=print)
    made.rows           # one per person: what happened
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .._exceptions import ChatopsError
from ..changes import Change
from ..changes.engine import Tally, apply_changes
from ..changes.journal import Item, Journal
from ..changes.kinds import DeactivateUser, Subscribe, Unsubscribe, UpdateUser
from .export import ROLES, _reach
from .state import closest

if TYPE_CHECKING:
    from .._client import Client

__all__ = [
    "BULK_SIZE",
    "BulkPlan",
    "Directory",
    "Row",
    "apply_bulk",
    "plan_idle",
    "plan_roles",
    "plan_subscriptions",
    "split_entries",
]

#: people per subscription request: every channel at once, and progress every this many
BULK_SIZE = 250
ROLE_NUMBERS = {v: k for k, v in ROLES.items()}
#: a preview row's status
WILL, ALREADY, REFUSED = "will change", "already so", "refused"


@dataclass(frozen=True)
class Row:
    """One person of a bulk change: who, what changes for them, and its status (``will
    change``, ``already so``, ``refused`` in a preview; ``done``, ``refused``, ``failed`` once
    sent) with why."""

    person: str
    email: str
    change: str
    status: str
    detail: str = ""
    user_id: int = 0


@dataclass
class BulkPlan:
    """What a bulk change will do: a row per person, the changes to send, and what could not
    be read from the lists (unknown names, with the closest)."""

    action: str
    rows: list[Row] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def will(self) -> int:
        return sum(r.status == WILL for r in self.rows)


def split_entries(text: str) -> list[str]:
    """Entries of pasted text or a CSV: one per line or comma; a CSV's ``email`` column when
    it has one (``ann@x.org``, ``Bo Li``, ``@backend``, ``#deploys``)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and "email" in [c.strip().casefold() for c in next(csv.reader([lines[0]]))]:
        rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
        key = next(k for k in rows[0] if k and k.strip().casefold() == "email") if rows else ""
        return [str(r[key]).strip() for r in rows if r.get(key, "").strip()]
    return [p.strip() for line in lines for p in line.split(",") if p.strip()]


@dataclass
class Directory:
    """The organization's people, groups and channels as last read, found by what an admin
    types: an address, a full name, ``@group`` (its members, subgroups' too), ``#channel``."""

    me: dict[str, Any]
    people: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    channels: list[dict[str, Any]]

    @classmethod
    def read(cls, client: Client) -> Directory:
        return cls(
            me=dict(client.get("/users/me")),
            people=[dict(p) for p in client.get("/users")["members"]],
            groups=[dict(g) for g in client.get("/user_groups")["user_groups"]],
            channels=[
                dict(c)
                for c in client.get("/streams", params={"include_all": True})["streams"]
                if not c.get("is_archived")
            ],
        )

    def shown(self, uid: int) -> tuple[str, str]:
        person = next((p for p in self.people if p["user_id"] == uid), {})
        email = str(person.get("delivery_email") or person.get("email") or uid)
        return f"{person.get('full_name', uid)} <{email}>", email

    def who(self, entries: Iterable[str]) -> tuple[list[int], list[str]]:
        """The active people ``entries`` name (in order, once each) and what matched nobody."""
        found: list[int] = []
        problems: list[str] = []
        active = [p for p in self.people if p.get("is_active", True)]
        by_email = {str(p.get("delivery_email") or p["email"]).casefold(): p for p in active}
        by_email |= {str(p["email"]).casefold(): p for p in active}
        by_name: dict[str, list[dict[str, Any]]] = {}
        for p in active:
            by_name.setdefault(str(p["full_name"]).casefold(), []).append(p)
        groups = {str(g["name"]).casefold(): g for g in self.groups}
        for entry in entries:
            text = entry.strip().removeprefix("@").strip("*")
            folded = text.casefold()
            if entry.startswith("@") and folded in groups:
                found += sorted(self._reach(groups[folded]))
            elif folded in by_email:
                found.append(int(by_email[folded]["user_id"]))
            elif len(by_name.get(folded, [])) == 1:
                found.append(int(by_name[folded][0]["user_id"]))
            elif by_name.get(folded):
                problems.append(f"“{entry}” names {len(by_name[folded])} people; give an address")
            elif folded in groups:
                found += sorted(self._reach(groups[folded]))
            else:
                known = [
                    *(str(p["full_name"]) for p in active),
                    *(str(g["name"]) for g in self.groups),
                ]
                known += [str(p.get("delivery_email") or p["email"]) for p in active]
                problems.append(f"“{entry}” is nobody in the organization{closest(text, known)}")
        return list(dict.fromkeys(found)), problems

    def _reach(self, group: dict[str, Any]) -> set[int]:
        """The group's active people, subgroups' members included."""
        by_id = {int(g["id"]): g for g in self.groups}
        humans = {
            int(p["user_id"])
            for p in self.people
            if not p.get("is_bot") and p.get("is_active", True)
        }
        return _reach(group, by_id) & humans

    def where(self, entries: Iterable[str]) -> tuple[list[dict[str, Any]], list[str]]:
        """The channels ``entries`` name (``#name`` or ``name``) and what matched none."""
        by_name = {str(c["name"]).casefold(): c for c in self.channels}
        found: list[dict[str, Any]] = []
        problems: list[str] = []
        for entry in entries:
            name = entry.strip().removeprefix("#").strip("*").strip()
            channel = by_name.get(name.casefold())
            if channel is None:
                hint = closest(name, [str(c["name"]) for c in self.channels])
                problems.append(f"#{name} is no channel of the organization{hint}")
            elif channel not in found:
                found.append(channel)
        return found, problems


def plan_subscriptions(
    directory: Directory,
    people: Sequence[str],
    channels: Sequence[str],
    subscribers: Callable[[int], set[int]],
    *,
    unsubscribe: bool = False,
    batch: int = BULK_SIZE,
) -> BulkPlan:
    """People x channels subscribed (or with ``unsubscribe``, unsubscribed): a row per person
    saying which channels they join (leave) and which they are already in (not in);
    ``subscribers(stream_id)`` reads a channel's subscribers now."""
    action = "unsubscribe" if unsubscribe else "subscribe"
    plan = BulkPlan(action)
    uids, plan.problems = directory.who(people)
    found, missing = directory.where(channels)
    plan.problems += missing
    if not people:
        plan.problems.append("name the people: addresses, full names or @groups")
    if not channels:
        plan.problems.append("name the channels: #name, one per line or comma")
    members = {int(c["stream_id"]): subscribers(int(c["stream_id"])) for c in found}
    todo: list[int] = []
    for uid in uids:
        shown, email = directory.shown(uid)
        change = [c for c in found if (uid in members[int(c["stream_id"])]) == unsubscribe]
        same = [c for c in found if c not in change]
        verb = "leaves" if unsubscribe else "joins"
        words = f"{verb} {', '.join('#' + c['name'] for c in change)}" if change else ""
        detail = (
            f"{'not in' if unsubscribe else 'already in'} {', '.join('#' + c['name'] for c in same)}"
            if same
            else ""
        )
        plan.rows.append(Row(shown, email, words or "—", WILL if change else ALREADY, detail, uid))
        if change:
            todo.append(uid)
    kind = Unsubscribe if unsubscribe else Subscribe
    names = [str(c["name"]) for c in found]
    for start in range(0, len(todo), batch):
        plan.changes.append(kind(channels=names, principals=todo[start : start + batch]))
    return plan


def plan_roles(directory: Directory, people: Sequence[str], role: str) -> BulkPlan:
    """Everyone named given ``role`` (owner, administrator, moderator, member, guest), with
    the server's rules said per row before anything is sent."""
    plan = BulkPlan(f"role {role}")
    wanted = ROLE_NUMBERS.get(role)
    if wanted is None:
        plan.problems.append(f"“{role}” is no role; choose one of {', '.join(ROLE_NUMBERS)}")
        return plan
    uids, plan.problems = directory.who(people)
    me = directory.me
    by_id = {int(p["user_id"]): p for p in directory.people}
    owners = {
        u
        for u, p in by_id.items()
        if p.get("role") == 100 and p.get("is_active", True) and not p.get("is_bot")
    }
    for uid in uids:
        shown, email = directory.shown(uid)
        now = int(by_id[uid].get("role", 400))
        words = f"{ROLES.get(now, now)} → {role}"
        why = ""
        if now == wanted:
            plan.rows.append(Row(shown, email, words, ALREADY, user_id=uid))
            continue
        if 100 in (now, wanted) and me.get("role") != 100:
            why = "only an organization owner makes or unmakes owners"
        elif uid == me.get("user_id"):
            why = "your own role: chatops leaves it to another administrator"
        elif now == 100 and owners - {uid} == set():
            why = "the last owner: make someone else an owner first"
        if why:
            plan.rows.append(Row(shown, email, words, REFUSED, why, uid))
            continue
        if now == 100:
            owners.discard(uid)
        plan.rows.append(Row(shown, email, words, WILL, user_id=uid))
        plan.changes.append(UpdateUser(user_id=uid, settings={"role": wanted}))
    return plan


def plan_idle(
    client: Client,
    *,
    days: int,
    include_owners: bool = False,
    include_admins: bool = False,
    include_bots: bool = False,
    until: Any = None,
) -> BulkPlan:
    """Accounts nobody has used for ``days`` days (no message and not seen): a row each with
    the last message and last seen dates; owners, administrators and bots only when asked;
    never the account acting."""
    import pandas as pd

    from ..audits.inactive_users import Options, fetch, judge

    roles = [300, 400, 600] + ([200] if include_admins else []) + ([100] if include_owners else [])
    options = Options(inactive_days=days, roles=roles, include_bots=include_bots)
    now = pd.Timestamp(until) if until is not None else pd.Timestamp.now(tz="UTC")
    judged = judge(fetch(client, options, until=now), options, until=now)
    plan = BulkPlan(f"deactivate accounts idle {days} days")
    me = client.users.me()
    owners = {
        u.user_id for u in judged.read.users if u.role == 100 and u.is_active and not u.is_bot
    }
    for account in judged.inactive:
        user = account.user
        why = ""
        if user.role == 100 and not user.is_bot:
            if me.role != 100:
                why = "only an organization owner deactivates an owner"
            elif not owners - {user.user_id}:
                why = "the last owner: make someone else an owner first"
            else:
                owners.discard(user.user_id)
        last_message = (
            f"last message {account.last_message_at:%Y-%m-%d}"
            if account.last_message_at is not None
            else f"no message since {judged.cutoff:%Y-%m-%d}"
        )
        seen = (
            f"last seen {pd.Timestamp(account.last_seen, unit='s', tz='UTC'):%Y-%m-%d}"
            if account.last_seen
            else "not seen lately"
        )
        shown = f"{user.full_name} <{user.delivery_email or user.email}>"
        kind = "bot" if user.is_bot else str(ROLES.get(user.role, user.role))
        email = str(user.delivery_email or user.email)
        dates = f"{last_message}; {seen}"
        if why:
            plan.rows.append(Row(shown, email, f"{kind} deactivated", REFUSED, why, user.user_id))
            continue
        owned = f"; its {account.owned_bots} bots go with it" if account.owned_bots else ""
        plan.rows.append(
            Row(shown, email, f"{kind} deactivated", WILL, dates + owned, user.user_id)
        )
        plan.changes.append(DeactivateUser(user_id=user.user_id))
    return plan


def apply_bulk(
    plan: BulkPlan,
    client: Client,
    journal: Journal,
    *,
    say: Callable[[str], None] = lambda _line: None,
    progress: bool = True,
    make: Callable[[Change], Any] | None = None,
    stop: Callable[[], bool] = lambda: False,
) -> tuple[Tally, list[Row]]:
    """Send ``plan``'s changes (through ``make`` when given: a console session's change log;
    else journalled in ``journal``); the tally and a result row per person. Once ``stop()``
    says so, the changes left are not sent."""
    items = [Item(c, {"subject": plan.action}) for c in plan.changes]
    if make is not None:
        tally = Tally()
        for item in items:
            if stop():
                break
            try:
                make(item.change)
                tally.counts["done"] += 1
                tally.lines.append({"status": "done", "change": item.change})
            except ChatopsError as exc:  # each refusal becomes its rows' result
                tally.counts["refused"] += 1
                tally.lines.append(
                    {"status": "refused", "change": item.change, "message": str(exc)}
                )
    else:
        tally = apply_changes(items, client, journal, say=say, progress=progress)
        for line, item in zip(tally.lines, items, strict=False):
            line["change"] = item.change
    return tally, _results(plan, tally)


def _results(plan: BulkPlan, tally: Tally) -> list[Row]:
    """Each preview row with what became of its change."""
    status_by_person: dict[int, tuple[str, str]] = {}
    for line in tally.lines:
        change = line["change"]
        status = "done" if line["status"] in ("done", "already_done") else str(line["status"])
        message = str(line.get("message") or "")
        for uid in getattr(change, "principals", None) or [getattr(change, "user_id", None)]:
            if uid is not None:
                status_by_person[int(uid)] = (status, message)
    out: list[Row] = []
    for row in plan.rows:
        if row.status != WILL:
            out.append(row)
            continue
        status, message = status_by_person.get(row.user_id, ("not sent", "stopped before it"))
        out.append(replace(row, status=status, detail=message or row.detail))
    return out
