"""The logic of the People and channels panel, without widgets: what a bulk change will do (a
row per person), and making it through the session's change log with a result per row.

The bulk changes themselves are :mod:`chatops.org.bulk`'s, shared with ``chatops people``:

    model = PeopleModel(session)
    plan = model.preview(Choice("subscribe", people="@backend\\nann@x.org", channels=["deploys"]))
    model.preview_frame()     # person, change, status, detail
    model.apply(plan)         # the changes, each journalled; model.results_frame()
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from chatops import ChatopsError
from chatops.changes import Change
from chatops.org.bulk import (
    BulkPlan,
    Directory,
    Row,
    apply_bulk,
    plan_idle,
    plan_roles,
    plan_subscriptions,
    split_entries,
)

from ._model import FieldError, Session

__all__ = ["ACTIONS", "COLUMNS", "Choice", "PeopleModel"]

#: the panel's actions, as its picker names them
ACTIONS = {
    "subscribe": "Subscribe to channels",
    "unsubscribe": "Unsubscribe from channels",
    "role": "Change role",
    "idle": "Deactivate idle accounts",
}
COLUMNS = ["person", "email", "change", "status", "detail"]


@dataclass(frozen=True)
class Choice:
    """What the form says: the action, the people (pasted or from a file), the channels, the
    role, and for idle accounts the days and who else may be included."""

    action: str
    people: str = ""
    channels: tuple[str, ...] = ()
    role: str = "member"
    days: int = 90
    include: tuple[str, ...] = field(default_factory=tuple)


class PeopleModel:
    """The People and channels panel's logic over a :class:`Session`."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.client = session.client
        self.directory: Directory | None = None
        self.plan: BulkPlan | None = None
        self.previewed: Choice | None = None
        self.results: list[Row] = []

    def fetch(self) -> None:
        """Read the people, groups and channels again."""
        self.directory = Directory.read(self.client)

    def channel_names(self) -> list[str]:
        if self.directory is None:
            self.fetch()
        assert self.directory is not None
        return sorted((str(c["name"]) for c in self.directory.channels), key=str.casefold)

    def preview(self, choice: Choice) -> BulkPlan:
        """What ``choice`` would change, a row per person; a mistake in the form raises a
        :class:`FieldError` naming its field (unknown names with the closest)."""
        self.fetch()
        assert self.directory is not None
        people = split_entries(choice.people)
        if choice.action in ("subscribe", "unsubscribe", "role") and not people:
            raise FieldError("people", "Name the people: addresses, full names or @groups.")
        if choice.action in ("subscribe", "unsubscribe"):
            if not choice.channels:
                raise FieldError("channels", "Choose the channels.")
            client = self.client
            plan = plan_subscriptions(
                self.directory,
                people,
                list(choice.channels),
                lambda sid: set(client.channels.members(sid)),
                unsubscribe=choice.action == "unsubscribe",
            )
        elif choice.action == "role":
            plan = plan_roles(self.directory, people, choice.role)
        elif choice.action == "idle":
            if choice.days < 1:
                raise FieldError("days", f"At least 1 day, not {choice.days}.")
            plan = plan_idle(
                self.client,
                days=choice.days,
                include_owners="owners" in choice.include,
                include_admins="administrators" in choice.include,
                include_bots="bots" in choice.include,
            )
        else:
            raise FieldError("action", f"Choose an action, not {choice.action!r}.")
        if plan.problems:
            raise FieldError("people", " ".join(plan.problems))
        self.plan, self.previewed, self.results = plan, choice, []
        return plan

    def preview_frame(self) -> pd.DataFrame:
        return _frame(self.plan.rows if self.plan else [])

    def results_frame(self) -> pd.DataFrame:
        return _frame(self.results)

    def apply(
        self,
        plan: BulkPlan,
        *,
        advanced: Callable[[int, bool], None] = lambda _n, _f: None,
        stop: Callable[[], bool] = lambda: False,
    ) -> list[Row]:
        """Make ``plan`` (the one previewed) through the session's change log; a result per
        row. ``advanced(people, failed)`` is told after each request; once ``stop()`` says so, the
        requests left are not sent (their rows say so)."""
        log = self.session.changes

        def make(change: Change) -> dict[str, Any]:
            people = len(getattr(change, "principals", None) or [0])
            try:
                answer = log.make(change, {"subject": plan.action})
            except ChatopsError:
                advanced(people, True)
                raise
            advanced(people, False)
            return answer

        _tally, self.results = apply_bulk(plan, self.client, log.journal, make=make, stop=stop)
        self.plan = None  # a preview is used once
        return self.results


def _frame(rows: list[Row]) -> pd.DataFrame:
    return pd.DataFrame(
        [[r.person.split(" <")[0], r.email, r.change, r.status, r.detail] for r in rows],
        columns=COLUMNS,
    )
