"""The organization: its settings, and its linkifiers (added, changed, removed, reordered)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ..._exceptions import ChatopsError
from .._base import Change, Phase, Reading, read, same_setting
from .._call import ApiCall

if TYPE_CHECKING:
    from ..._client import Client

__all__ = [
    "AddLinkifier",
    "DeleteLinkifier",
    "ReorderLinkifiers",
    "UpdateLinkifier",
    "UpdateRealm",
    "realm_settings",
]


def realm_settings(client: Client) -> dict[str, Any]:
    """The organization's settings by name (``POST /register``'s ``realm_*`` keys, without the
    prefix); the event queue the read makes is deleted at once."""
    state = client.server.register(fetch_event_types=["realm"], event_types=["realm"])
    queue = state.get("queue_id")
    if queue:
        with contextlib.suppress(ChatopsError):
            client.delete("/events", params={"queue_id": queue})
    return {k.removeprefix("realm_"): v for k, v in state.items() if k.startswith("realm_")}


class UpdateRealm(Change, frozen=True, kw_only=True):
    """Change organization settings (``PATCH /realm``; a group setting as ``{"new": value}``)."""

    settings: dict[str, Any]

    def call(self) -> ApiCall:
        return ApiCall(method="PATCH", path="/realm", params=self.settings)

    def before(self, client: Client) -> dict[str, Any] | None:
        current = realm_settings(client)
        return {name: current.get(name) for name in self.settings}

    def state(self, client: Client) -> Reading:
        current = realm_settings(client)
        differ = [n for n, v in self.settings.items() if not same_setting(current.get(n), v)]
        if differ:
            return Reading(False, f"POST /register: {', '.join(differ)} differ")
        return Reading(True, f"POST /register: {', '.join(self.settings)} as set")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if before is None:
            return None
        settings: dict[str, Any] = {}
        for name, wanted in self.settings.items():
            old = before.get(name)
            if isinstance(wanted, Mapping) and "new" in wanted:
                settings[name] = {"new": old, "old": wanted["new"]}
            else:
                settings[name] = old
        return UpdateRealm(settings=settings)


def _linkifiers(client: Client) -> list[dict[str, Any]] | Reading:
    answer = read(client, "/realm/linkifiers")
    if isinstance(answer, Reading):
        return answer
    return [dict(x) for x in answer.get("linkifiers") or [] if isinstance(x, dict)]


def _find(items: list[dict[str, Any]], filter_id: int) -> dict[str, Any] | None:
    return next((x for x in items if x.get("id") == filter_id), None)


class DeleteLinkifier(Change, frozen=True, kw_only=True):
    """Remove a linkifier (``DELETE /realm/filters/{id}``); undone by adding it again at its
    place in the order (under a new id)."""

    phase: ClassVar[Phase] = Phase.REMOVE
    filter_id: int

    def call(self) -> ApiCall:
        return ApiCall(method="DELETE", path=f"/realm/filters/{self.filter_id}")

    def before(self, client: Client) -> dict[str, Any] | None:
        items = _linkifiers(client)
        if isinstance(items, Reading):
            return None
        found = _find(items, self.filter_id)
        if found is None:
            return None
        return {
            "pattern": found.get("pattern"),
            "url_template": found.get("url_template"),
            "position": items.index(found),
        }

    def state(self, client: Client) -> Reading:
        items = _linkifiers(client)
        if isinstance(items, Reading):
            return items
        listed = _find(items, self.filter_id) is not None
        word = "still listed" if listed else "not listed"
        return Reading(not listed, f"GET /realm/linkifiers: linkifier {self.filter_id} {word}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if not before or not before.get("pattern"):
            return None
        return AddLinkifier(
            pattern=str(before["pattern"]),
            url_template=str(before["url_template"]),
            position=int(before["position"]),
        )


class AddLinkifier(Change, frozen=True, kw_only=True):
    """Add a linkifier (``POST /realm/filters``), at ``position`` in the order when given (a
    second call, ``PATCH /realm/linkifiers``)."""

    pattern: str
    url_template: str
    position: int | None = None

    def call(self) -> ApiCall:
        return ApiCall(
            method="POST",
            path="/realm/filters",
            params={"pattern": self.pattern, "url_template": self.url_template},
        )

    def send(self, client: Client) -> dict[str, Any]:
        answer = super().send(client)
        if self.position is not None and "id" in answer:
            order = [int(x["id"]) for x in client.get("/realm/linkifiers")["linkifiers"]]
            new = int(answer["id"])
            order.remove(new)
            order.insert(min(self.position, len(order)), new)
            client.patch("/realm/linkifiers", params={"ordered_linkifier_ids": order})
        return answer

    def state(self, client: Client) -> Reading:
        items = _linkifiers(client)
        if isinstance(items, Reading):
            return items
        listed = any(
            x.get("pattern") == self.pattern and x.get("url_template") == self.url_template
            for x in items
        )
        word = "listed" if listed else "not listed"
        return Reading(listed, f"GET /realm/linkifiers: {self.pattern} {word}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if "id" not in answer:
            return None
        return DeleteLinkifier(filter_id=int(answer["id"]))


class UpdateLinkifier(Change, frozen=True, kw_only=True):
    """Change a linkifier's pattern and URL template (``PATCH /realm/filters/{id}``)."""

    filter_id: int
    pattern: str
    url_template: str

    def call(self) -> ApiCall:
        return ApiCall(
            method="PATCH",
            path=f"/realm/filters/{self.filter_id}",
            params={"pattern": self.pattern, "url_template": self.url_template},
        )

    def before(self, client: Client) -> dict[str, Any] | None:
        items = _linkifiers(client)
        found = None if isinstance(items, Reading) else _find(items, self.filter_id)
        if found is None:
            return None
        return {"pattern": found.get("pattern"), "url_template": found.get("url_template")}

    def state(self, client: Client) -> Reading:
        items = _linkifiers(client)
        if isinstance(items, Reading):
            return items
        found = _find(items, self.filter_id)
        done = bool(
            found
            and found.get("pattern") == self.pattern
            and found.get("url_template") == self.url_template
        )
        word = "as set" if done else "not as set"
        return Reading(done, f"GET /realm/linkifiers: linkifier {self.filter_id} {word}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if not before:
            return None
        return UpdateLinkifier(
            filter_id=self.filter_id,
            pattern=str(before["pattern"]),
            url_template=str(before["url_template"]),
        )


class ReorderLinkifiers(Change, frozen=True, kw_only=True):
    """Put the linkifiers in this order (``PATCH /realm/linkifiers``): the first that matches
    wins."""

    ordered_linkifier_ids: list[int]

    def call(self) -> ApiCall:
        return ApiCall(
            method="PATCH",
            path="/realm/linkifiers",
            params={"ordered_linkifier_ids": list(self.ordered_linkifier_ids)},
        )

    def before(self, client: Client) -> dict[str, Any] | None:
        items = _linkifiers(client)
        return None if isinstance(items, Reading) else {"order": [x["id"] for x in items]}

    def state(self, client: Client) -> Reading:
        items = _linkifiers(client)
        if isinstance(items, Reading):
            return items
        done = [x["id"] for x in items] == list(self.ordered_linkifier_ids)
        return Reading(done, "GET /realm/linkifiers: " + ("in order" if done else "other order"))

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if not before:
            return None
        return ReorderLinkifiers(ordered_linkifier_ids=list(before["order"]))
