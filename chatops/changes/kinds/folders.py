"""Channel folders: created, changed (name, description, archived), reordered. Sent through the
client's own methods, which check the server's limits first."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._base import Change, Reading, read
from .._call import ApiCall

if TYPE_CHECKING:
    from ..._client import Client

__all__ = ["CreateFolder", "ReorderFolders", "UpdateFolder"]


def _folders(client: Client) -> list[dict[str, Any]] | Reading:
    answer = read(client, "/channel_folders", {"include_archived": True})
    if isinstance(answer, Reading):
        return answer
    return [dict(f) for f in answer.get("channel_folders") or [] if isinstance(f, dict)]


def _folder(client: Client, folder_id: int) -> dict[str, Any] | Reading:
    found = _folders(client)
    if isinstance(found, Reading):
        return found
    for folder in found:
        if folder.get("id") == folder_id:
            return folder
    return Reading(None, f"GET /channel_folders: no folder {folder_id}")


class CreateFolder(Change, frozen=True, kw_only=True):
    """Create a channel folder (``POST /channel_folders/create``); undone by archiving it
    (a folder is never deleted)."""

    name: str
    description: str = ""

    def call(self) -> ApiCall:
        return ApiCall(
            method="POST",
            path="/channel_folders/create",
            params={"name": self.name, "description": self.description},
        )

    def send(self, client: Client) -> dict[str, Any]:
        folder = client.channels.create_folder(self.name, description=self.description)
        return {"channel_folder_id": folder}

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if "channel_folder_id" not in answer:
            return None
        return UpdateFolder(
            folder_id=int(answer["channel_folder_id"]), settings={"is_archived": True}
        )


class UpdateFolder(Change, frozen=True, kw_only=True):
    """Change a folder's ``name``, ``description`` or ``is_archived`` (``PATCH
    /channel_folders/{id}``)."""

    folder_id: int
    settings: dict[str, Any]

    def call(self) -> ApiCall:
        return ApiCall(
            method="PATCH", path=f"/channel_folders/{self.folder_id}", params=self.settings
        )

    def send(self, client: Client) -> dict[str, Any]:
        client.channels.update_folder(self.folder_id, **self.settings)
        return {}

    def before(self, client: Client) -> dict[str, Any] | None:
        folder = _folder(client, self.folder_id)
        if isinstance(folder, Reading):
            return None
        return {name: folder.get(name) for name in self.settings}

    def state(self, client: Client) -> Reading:
        folder = _folder(client, self.folder_id)
        if isinstance(folder, Reading):
            return folder
        done = all(folder.get(n) == v for n, v in self.settings.items())
        word = "as set" if done else "not as set"
        return Reading(done, f"GET /channel_folders: folder {self.folder_id} {word}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if before is None or any(before.get(n) is None for n in self.settings):
            return None
        return UpdateFolder(folder_id=self.folder_id, settings=dict(before))


class ReorderFolders(Change, frozen=True, kw_only=True):
    """Put the channel folders in this order (``PATCH /channel_folders``, every folder once)."""

    order: list[int]

    def call(self) -> ApiCall:
        return ApiCall(method="PATCH", path="/channel_folders", params={"order": list(self.order)})

    def before(self, client: Client) -> dict[str, Any] | None:
        found = _folders(client)
        return None if isinstance(found, Reading) else {"order": [f["id"] for f in found]}

    def state(self, client: Client) -> Reading:
        found = _folders(client)
        if isinstance(found, Reading):
            return found
        done = [f["id"] for f in found] == list(self.order)
        return Reading(done, "GET /channel_folders: " + ("in order" if done else "other order"))

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        return None if not before else ReorderFolders(order=list(before["order"]))
