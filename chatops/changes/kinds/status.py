"""Another person's status set by an administrator (``POST /users/{id}/status``); undone by
putting back the status they had."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._base import Change, Reading, read
from .._call import ApiCall

if TYPE_CHECKING:
    from ..._client import Client

__all__ = ["SetUserStatus"]

#: the status fields a change sets, and what "no status" is for each
_CLEARED = {"status_text": "", "emoji_name": ""}


class SetUserStatus(Change, frozen=True, kw_only=True):
    """Set a person's status (``status_text``, ``emoji_name``, ...; ``""`` clears a field)."""

    user_id: int
    status: dict[str, Any]

    def call(self) -> ApiCall:
        return ApiCall(method="POST", path=f"/users/{self.user_id}/status", params=self.status)

    def send(self, client: Client) -> dict[str, Any]:
        client.users.set_user_status(self.user_id, **self.status)
        return {}

    def _current(self, client: Client) -> dict[str, Any] | Reading:
        answer = read(client, f"/users/{self.user_id}/status")
        if isinstance(answer, Reading):
            return answer
        return dict(answer.get("status") or {})

    def before(self, client: Client) -> dict[str, Any] | None:
        current = self._current(client)
        if isinstance(current, Reading):
            return None
        kept = {k: v for k, v in current.items() if k in ("status_text", "emoji_name") and v}
        if kept.get("emoji_name"):
            kept.update({k: current[k] for k in ("emoji_code", "reaction_type") if current.get(k)})
        return {"status": kept}

    def state(self, client: Client) -> Reading:
        current = self._current(client)
        if isinstance(current, Reading):
            return current
        wanted = {k: v for k, v in self.status.items() if k in ("status_text", "emoji_name")}
        done = all((current.get(k) or "") == (v or "") for k, v in wanted.items())
        word = "as set" if done else "another status"
        return Reading(done, f"GET /users/{self.user_id}/status: {word}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if before is None:
            return None
        old = dict(before.get("status") or {})
        return SetUserStatus(user_id=self.user_id, status={**_CLEARED, **old})
