"""Channels: archive, unarchive, change settings; subscribe and unsubscribe people."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from .._base import Change, Phase, Reading, read, same_setting
from .._call import ApiCall
from .several import Several

if TYPE_CHECKING:
    from ..._client import Client

__all__ = ["ArchiveChannel", "Subscribe", "UnarchiveChannel", "Unsubscribe", "UpdateChannel"]

#: a PATCH /streams/{id} parameter -> the field of the channel's record that holds it
_FIELDS = {"new_name": "name", "is_private": "invite_only"}


def retention_param(value: Any) -> Any:
    """A channel's message retention as ``PATCH /streams`` takes it: the organization's
    (``realm_default``; a channel record shows none), forever (``unlimited``; shown as -1),
    or a number of days."""
    if value is None:
        return "realm_default"
    if value == -1:
        return "unlimited"
    return value


def _as_param(name: str, value: Any) -> Any:
    """A channel record's value of ``name`` as the update call takes it."""
    return retention_param(value) if name == "message_retention_days" else value


def _channel(client: Client, stream_id: int) -> dict[str, Any] | Reading:
    answer = read(client, f"/streams/{stream_id}")
    if isinstance(answer, Reading):
        return answer
    return dict(answer.get("stream") or {})


def _archived(client: Client, stream_id: int, wanted: bool) -> Reading:
    channel = _channel(client, stream_id)
    if isinstance(channel, Reading):
        return channel
    archived = bool(channel.get("is_archived"))
    shown = "true" if archived else "false"
    return Reading(archived is wanted, f"GET /streams/{stream_id}: is_archived {shown}")


class ArchiveChannel(Change, frozen=True, kw_only=True):
    """Archive a channel (``DELETE /streams/{id}``); its history stays, unarchiving undoes it."""

    phase: ClassVar[Phase] = Phase.ARCHIVE_CHANNELS
    stream_id: int

    def call(self) -> ApiCall:
        return ApiCall(method="DELETE", path=f"/streams/{self.stream_id}")

    def state(self, client: Client) -> Reading:
        return _archived(client, self.stream_id, True)

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change:
        return UnarchiveChannel(stream_id=self.stream_id)


class UnarchiveChannel(Change, frozen=True, kw_only=True):
    """Unarchive a channel (``PATCH /streams/{id}`` with ``is_archived=false``)."""

    stream_id: int

    def call(self) -> ApiCall:
        return ApiCall(
            method="PATCH", path=f"/streams/{self.stream_id}", params={"is_archived": False}
        )

    def state(self, client: Client) -> Reading:
        return _archived(client, self.stream_id, False)

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change:
        return ArchiveChannel(stream_id=self.stream_id)


class UpdateChannel(Change, frozen=True, kw_only=True):
    """Change a channel's settings (``PATCH /streams/{id}``): ``settings`` holds the call's
    parameters (``description``, ``new_name``, ``folder_id``, a group setting as
    ``{"new": value}``)."""

    stream_id: int
    settings: dict[str, Any]

    def call(self) -> ApiCall:
        return ApiCall(method="PATCH", path=f"/streams/{self.stream_id}", params=self.settings)

    def before(self, client: Client) -> dict[str, Any] | None:
        channel = _channel(client, self.stream_id)
        if isinstance(channel, Reading):
            return None
        return {
            name: _as_param(name, channel.get(_FIELDS.get(name, name))) for name in self.settings
        }

    def state(self, client: Client) -> Reading:
        channel = _channel(client, self.stream_id)
        if isinstance(channel, Reading):
            return channel
        differ = [
            name
            for name, wanted in self.settings.items()
            if not same_setting(_as_param(name, channel.get(_FIELDS.get(name, name))), wanted)
        ]
        if differ:
            return Reading(False, f"GET /streams/{self.stream_id}: {', '.join(differ)} differ")
        return Reading(True, f"GET /streams/{self.stream_id}: {', '.join(self.settings)} as set")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if before is None:
            return None
        settings: dict[str, Any] = {}
        for name, wanted in self.settings.items():
            old = before.get(name)
            if isinstance(wanted, Mapping) and "new" in wanted:
                # put back only if nobody changed it since: the server checks "old"
                settings[name] = {"new": old, "old": wanted["new"]}
            else:
                settings[name] = old
        return UpdateChannel(stream_id=self.stream_id, settings=settings)


def _members(client: Client, names: Sequence[str]) -> dict[str, set[int]] | Reading:
    """Each named channel's subscribers (ids), by name."""
    answer = read(client, "/streams", {"include_all": True})
    if isinstance(answer, Reading):
        return answer
    ids = {s["name"]: s["stream_id"] for s in answer.get("streams") or []}
    out: dict[str, set[int]] = {}
    for name in names:
        if name not in ids:
            return Reading(None, f"GET /streams: no channel named {name!r}")
        members = read(client, f"/streams/{ids[name]}/members")
        if isinstance(members, Reading):
            return members
        out[name] = {int(u) for u in members.get("subscribers") or []}
    return out


class _Membership(Change, frozen=True, kw_only=True):
    channels: list[str]
    principals: list[int]
    #: whether the people end up subscribed
    subscribed: ClassVar[bool] = True

    def before(self, client: Client) -> dict[str, Any] | None:
        members = _members(client, self.channels)
        if isinstance(members, Reading):
            return None
        wanted = set(self.principals)
        return {name: sorted(ids & wanted) for name, ids in members.items()}

    def state(self, client: Client) -> Reading:
        members = _members(client, self.channels)
        if isinstance(members, Reading):
            return members
        wanted = set(self.principals)
        done = all(
            (wanted <= ids) if self.subscribed else not (wanted & ids) for ids in members.values()
        )
        word = "subscribed" if self.subscribed else "not subscribed"
        return Reading(done, f"GET /streams/<id>/members: {'all' if done else 'not all'} {word}")


def _per_group(kind: type[_Membership], people: Mapping[str, set[int]]) -> Change | None:
    """One change per set of people (the channels they share), so that nobody is moved who was
    not moved: several changes in one when the sets differ."""
    by_people: dict[tuple[int, ...], list[str]] = {}
    for name, ids in people.items():
        if ids:
            by_people.setdefault(tuple(sorted(ids)), []).append(name)
    parts = [kind(channels=names, principals=list(ids)) for ids, names in by_people.items()]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Several.of(parts)


class Subscribe(_Membership, frozen=True, kw_only=True):
    """Subscribe ``principals`` (user ids) to the named channels (``POST
    /users/me/subscriptions``): the fewest requests the API allows, one for them all."""

    def call(self) -> ApiCall:
        return ApiCall(
            method="POST",
            path="/users/me/subscriptions",
            params={
                "subscriptions": [{"name": n} for n in self.channels],
                "principals": list(self.principals),
            },
        )

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if before is None:
            return None
        added = {n: set(self.principals) - set(before.get(n) or []) for n in self.channels}
        return _per_group(Unsubscribe, added)


class Unsubscribe(_Membership, frozen=True, kw_only=True):
    """Unsubscribe ``principals`` from the named channels (``DELETE /users/me/subscriptions``)."""

    subscribed: ClassVar[bool] = False

    def call(self) -> ApiCall:
        return ApiCall(
            method="DELETE",
            path="/users/me/subscriptions",
            params={"subscriptions": list(self.channels), "principals": list(self.principals)},
        )

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if before is None:
            return None
        removed = {n: set(before.get(n) or []) for n in self.channels}
        return _per_group(Subscribe, removed)
