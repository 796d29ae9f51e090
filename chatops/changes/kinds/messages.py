"""Messages: a topic renamed, resolved or unresolved; a scheduled message or reminder changed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from .._base import Change, Reading, read
from .._call import ApiCall

if TYPE_CHECKING:
    from ..._client import Client

__all__ = ["MoveTopic", "UpdateScheduled", "fitted_topic"]

PropagateMode = Literal["change_one", "change_later", "change_all"]
#: what a server without another limit keeps of a topic (``max_topic_length``)
DEFAULT_TOPIC_LENGTH = 60


def fitted_topic(topic: str, limit: int = DEFAULT_TOPIC_LENGTH) -> str:
    """The topic a server stores for ``topic``: cut to the limit with ``...`` (the real server's
    ``truncate_topic``)."""
    stripped = topic.strip()
    return stripped if len(stripped) <= limit else stripped[: limit - 3] + "..."


def _message(client: Client, message_id: int) -> dict[str, Any] | Reading:
    answer = read(client, f"/messages/{message_id}", {"allow_empty_topic_name": True})
    if isinstance(answer, Reading):
        return answer
    return dict(answer.get("message") or {})


class MoveTopic(Change, frozen=True, kw_only=True):
    """Rename a message's topic (``PATCH /messages/{id}``): resolving a topic adds ``✔ `` to
    its name; ``change_all`` moves the whole topic. Undone by renaming it back."""

    message_id: int
    topic: str
    propagate_mode: PropagateMode = "change_all"

    def call(self) -> ApiCall:
        return ApiCall(
            method="PATCH",
            path=f"/messages/{self.message_id}",
            params={"topic": self.topic, "propagate_mode": self.propagate_mode},
        )

    def _limit(self, client: Client) -> int:
        return int(getattr(client.get_capabilities(), "max_topic_length", 0) or 60)

    def before(self, client: Client) -> dict[str, Any] | None:
        message = _message(client, self.message_id)
        return None if isinstance(message, Reading) else {"topic": message.get("subject")}

    def state(self, client: Client) -> Reading:
        message = _message(client, self.message_id)
        if isinstance(message, Reading):
            return message
        wanted = fitted_topic(self.topic, self._limit(client))
        done = message.get("subject") == wanted
        word = "as set" if done else "another name"
        return Reading(done, f"GET /messages/{self.message_id}: topic {word}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if not before or before.get("topic") is None:
            return None
        return MoveTopic(
            message_id=self.message_id,
            topic=str(before["topic"]),
            propagate_mode=self.propagate_mode,
        )


class UpdateScheduled(Change, frozen=True, kw_only=True):
    """Change a scheduled message or a reminder of the account (``PATCH
    /scheduled_messages/{id}``, ``PATCH /reminders/{id}``): time, recipient or topic."""

    item_id: int
    settings: dict[str, Any]
    reminder: bool = False

    @property
    def _root(self) -> str:
        return "reminders" if self.reminder else "scheduled_messages"

    def call(self) -> ApiCall:
        return ApiCall(method="PATCH", path=f"/{self._root}/{self.item_id}", params=self.settings)

    def _item(self, client: Client) -> dict[str, Any] | Reading:
        answer = read(client, f"/{self._root}")
        if isinstance(answer, Reading):
            return answer
        key = "reminder_id" if self.reminder else "scheduled_message_id"
        for item in answer.get(self._root) or []:
            if isinstance(item, dict) and item.get(key) == self.item_id:
                return item
        return Reading(None, f"GET /{self._root}: {self.item_id} not listed")

    def before(self, client: Client) -> dict[str, Any] | None:
        item = self._item(client)
        if isinstance(item, Reading):
            return None
        return {name: item.get(name) for name in self.settings}

    def state(self, client: Client) -> Reading:
        item = self._item(client)
        if isinstance(item, Reading):
            return item
        done = all(item.get(n) == v for n, v in self.settings.items())
        return Reading(
            done, f"GET /{self._root}: {self.item_id} " + ("as set" if done else "differs")
        )

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if not before or any(before.get(n) is None for n in self.settings):
            return None
        return UpdateScheduled(
            item_id=self.item_id,
            settings={n: before[n] for n in self.settings},
            reminder=self.reminder,
        )
