"""Channels: list, get, subscribe, unsubscribe, settings, archive, topic preferences, folders."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ..._base_client import NOT_GIVEN, NotGiven, check_length
from ...resources._base import (
    AsyncResource,
    GroupSettingValue,
    drop_not_given,
    given,
    group_setting_param,
)
from ...types import (
    Capabilities,
    Channel,
    ChannelFolder,
    ChannelFolderIdResult,
    ChannelFoldersResult,
    ChannelIdResult,
    ChannelResult,
    ChannelsResult,
    DeleteTopicResult,
    EmailAddressResult,
    SubscribeResult,
    SubscribersResult,
    Subscription,
    SubscriptionsResult,
    UnsubscribeResult,
    UpdateSubscriptionsResult,
    UsersResult,
)
from .messages import _topic_in

__all__ = [
    "AsyncChannels",
    "GroupSettingUpdate",
    "GroupSettingValue",
    "SubscriptionProperty",
    "TopicsPolicy",
    "VisibilityPolicy",
]

#: a new value, or ``{"new": value, "old": value}``
GroupSettingUpdate = GroupSettingValue | Mapping[str, Any]
TopicsPolicy = Literal["inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only"]
RetentionKeyword = Literal["realm_default", "unlimited"]
VisibilityPolicy = Literal[0, 1, 2, 3]
VISIBILITY_NAMES = {0: "none", 1: "muted", 2: "unmuted", 3: "followed"}
SubscriptionProperty = Literal[
    "color",
    "is_muted",
    "in_home_view",
    "pin_to_top",
    "desktop_notifications",
    "audible_notifications",
    "push_notifications",
    "email_notifications",
    "wildcard_mentions_notify",
]


def _subscription_data(
    changes: Sequence[tuple[int, str, bool | str]],
) -> builtins.list[dict[str, Any]]:
    return [
        {"stream_id": int(stream_id), "property": prop, "value": value}
        for stream_id, prop, value in changes
    ]


def _listed(value: Sequence[Any] | NotGiven) -> builtins.list[Any] | NotGiven:
    return value if isinstance(value, NotGiven) else builtins.list(value)


def _needs_emails(caps: Capabilities, principals: Sequence[int] | Sequence[str]) -> bool:
    """Servers before feature level 9 take principals only as emails."""
    return not caps.at_least(9) and any(isinstance(p, int) for p in principals)


def _subscriptions_param(
    caps: Capabilities, channels: Sequence[str | Mapping[str, str]]
) -> builtins.list[dict[str, str]]:
    if isinstance(channels, str):
        raise TypeError("channels must be a list of names or dicts, not one string")
    subs: builtins.list[dict[str, str]] = []
    for item in channels:
        entry = {"name": item} if isinstance(item, str) else dict(item)
        check_length("name", entry.get("name", ""), caps.max_stream_name_length)
        if "description" in entry:
            check_length("description", entry["description"], caps.max_stream_description_length)
        subs.append(entry)
    return subs


def _group_update(value: GroupSettingUpdate) -> dict[str, Any]:
    if isinstance(value, Mapping) and "new" in value:
        change: Mapping[str, Any] = value
        update = {"new": group_setting_param(change["new"])}
        if "old" in change:
            update["old"] = group_setting_param(change["old"])
        return update
    return {"new": group_setting_param(value)}


def _topic_visibility_request(
    caps: Capabilities, stream_id: int, topic: str, visibility_policy: int
) -> tuple[str, str, dict[str, Any]]:
    if visibility_policy not in VISIBILITY_NAMES:
        raise ValueError(
            "visibility_policy must be 0 (none), 1 (muted), 2 (unmuted) or 3 (followed)"
        )
    topic = _topic_in(caps, topic)
    if caps.at_least(170):
        if visibility_policy == 3 and not caps.at_least(219):
            raise ValueError("the followed policy needs feature level 219")
        params = {
            "stream_id": int(stream_id),
            "topic": topic,
            "visibility_policy": visibility_policy,
        }
        return "POST", "/user_topics", params
    if visibility_policy not in (0, 1):
        raise ValueError(
            f"this server (feature level {caps.feature_level}) can only mute (1) or unmute (0)"
        )
    op = "add" if visibility_policy == 1 else "remove"
    return (
        "PATCH",
        "/users/me/subscriptions/muted_topics",
        {"stream_id": int(stream_id), "topic": topic, "op": op},
    )


def _folder_params(caps: Capabilities, name: str, description: str) -> dict[str, Any]:
    if not name.strip():
        raise ValueError("a channel folder needs a non-empty name")
    check_length("name", name, caps.max_channel_folder_name_length)
    check_length("description", description, caps.max_channel_folder_description_length)
    return {"name": name, "description": description}


class AsyncChannels(AsyncResource):
    """``client.channels``: channels, subscriptions, topic preferences and channel folders."""

    async def list(
        self,
        *,
        include_public: bool | NotGiven = NOT_GIVEN,
        include_web_public: bool | NotGiven = NOT_GIVEN,
        include_subscribed: bool | NotGiven = NOT_GIVEN,
        include_all: bool | NotGiven = NOT_GIVEN,
        include_default: bool | NotGiven = NOT_GIVEN,
        include_owner_subscribed: bool | NotGiven = NOT_GIVEN,
        exclude_archived: bool | NotGiven = NOT_GIVEN,
    ) -> builtins.list[Channel]:
        """``GET /streams``: the channels the user can see."""
        params = given(locals())
        result = await self._client._request(
            "GET", "/streams", params=params, cast_to=ChannelsResult
        )
        return result.streams

    async def get(self, stream_id: int) -> Channel:
        """``GET /streams/{stream_id}``: one channel's record."""
        result = await self._client._request(
            "GET", f"/streams/{int(stream_id)}", cast_to=ChannelResult
        )
        return result.stream

    async def get_id(self, name: str) -> int:
        """``GET /get_stream_id``: a channel's ID from its name."""
        result = await self._client._request(
            "GET", "/get_stream_id", params={"stream": name}, cast_to=ChannelIdResult
        )
        return result.stream_id

    async def subscribe(
        self,
        channels: Sequence[str | Mapping[str, str]],
        *,
        principals: Sequence[int] | Sequence[str] | NotGiven = NOT_GIVEN,
        authorization_errors_fatal: bool | NotGiven = NOT_GIVEN,
        announce: bool | NotGiven = NOT_GIVEN,
        invite_only: bool | NotGiven = NOT_GIVEN,
        is_web_public: bool | NotGiven = NOT_GIVEN,
        is_default_stream: bool | NotGiven = NOT_GIVEN,
        history_public_to_subscribers: bool | NotGiven = NOT_GIVEN,
        message_retention_days: int | RetentionKeyword | NotGiven = NOT_GIVEN,
        topics_policy: TopicsPolicy | NotGiven = NOT_GIVEN,
        folder_id: int | NotGiven = NOT_GIVEN,
        group_settings: Mapping[str, GroupSettingValue] | None = None,
    ) -> SubscribeResult:
        """``POST /users/me/subscriptions``: subscribe, creating the channels that do not exist.

        Args:
            channels: names, or ``{"name", "description"}`` dicts (settings apply only to
                channels this call creates).
            principals: user IDs (or API emails) to subscribe; default the caller. Sent as
                emails to servers before feature level 9.
            authorization_errors_fatal: when False, refused channels come back under
                ``unauthorized`` instead of an error.
            group_settings: initial group-setting values by setting name, e.g.
                ``{"can_add_subscribers_group": 12}``.
        """
        params = given(locals(), "channels", "group_settings")
        caps = await self._client.get_capabilities()
        params["subscriptions"] = _subscriptions_param(caps, channels)
        if not isinstance(principals, NotGiven):
            people = (
                await self._emails_of(principals) if _needs_emails(caps, principals) else principals
            )
            params["principals"] = list(people)
        for name, value in (group_settings or {}).items():
            params[name] = group_setting_param(value)
        return await self._client._request(
            "POST", "/users/me/subscriptions", params=params, cast_to=SubscribeResult
        )

    async def _emails_of(self, ids: Sequence[int] | Sequence[str]) -> builtins.list[str]:
        emails = {
            u.user_id: u.email
            for u in (await self._client._request("GET", "/users", cast_to=UsersResult)).members
        }
        return [emails.get(i, str(i)) if isinstance(i, int) else i for i in ids]

    async def unsubscribe(
        self,
        channels: Sequence[str],
        *,
        principals: Sequence[int] | Sequence[str] | NotGiven = NOT_GIVEN,
    ) -> UnsubscribeResult:
        """``DELETE /users/me/subscriptions``: unsubscribe the caller (or ``principals``)."""
        caps = await self._client.get_capabilities()
        people = principals
        if not isinstance(principals, NotGiven) and _needs_emails(caps, principals):
            people = await self._emails_of(principals)
        params = drop_not_given(subscriptions=list(channels), principals=_listed(people))
        return await self._client._request(
            "DELETE", "/users/me/subscriptions", params=params, cast_to=UnsubscribeResult
        )

    async def update_subscriptions(
        self,
        *,
        add: Sequence[str | Mapping[str, str]] = (),
        delete: Sequence[str] = (),
    ) -> UpdateSubscriptionsResult:
        """``PATCH /users/me/subscriptions``: join and leave channels in one request.

        Both halves or neither: when the server refuses one, nothing changes.

        Args:
            add: channel names, or ``{"name", "color"?, "description"?}`` dicts (channels
                that do not exist are created; ``color`` is the new subscription's).
            delete: names of channels to leave.

        Example:
            >>> client.channels.update_subscriptions(  # doctest: +SKIP
            ...     add=[{"name": "design", "color": "#e79ab5"}], delete=["random"])
        """
        if isinstance(delete, str):
            raise TypeError("delete must be a list of names, not one string")
        if not add and not delete:
            raise ValueError("give channels to add or to delete")
        caps = await self._client.get_capabilities()
        params: dict[str, Any] = {}
        if add:
            params["add"] = _subscriptions_param(caps, add)
        if delete:
            params["delete"] = list(delete)
        return await self._client._request(
            "PATCH", "/users/me/subscriptions", params=params, cast_to=UpdateSubscriptionsResult
        )

    async def delete_topic(self, stream_id: int, topic_name: str) -> bool:
        """``POST /streams/{stream_id}/delete_topic`` (administrators): delete a topic's messages.

        The server deletes in batches, newest first; a large topic may need more than one
        request. Returns ``complete``: False when the server stopped before the last message
        (what it deleted stays deleted), so ``while not delete_topic(...): pass`` finishes it.

        Args:
            stream_id: the channel.
            topic_name: the topic (the empty-topic display name means the empty topic).
        """
        caps = await self._client.get_capabilities()
        result = await self._client._request(
            "POST",
            f"/streams/{int(stream_id)}/delete_topic",
            params={"topic_name": _topic_in(caps, topic_name)},
            cast_to=DeleteTopicResult,
        )
        return result.complete

    async def subscriptions(
        self, *, include_subscribers: bool | NotGiven = NOT_GIVEN
    ) -> builtins.list[Subscription]:
        """``GET /users/me/subscriptions``: the caller's subscriptions."""
        params = given(locals())
        result = await self._client._request(
            "GET", "/users/me/subscriptions", params=params, cast_to=SubscriptionsResult
        )
        return result.subscriptions

    async def members(self, stream_id: int) -> builtins.list[int]:
        """``GET /streams/{stream_id}/members``: IDs of the channel's subscribers."""
        result = await self._client._request(
            "GET", f"/streams/{int(stream_id)}/members", cast_to=SubscribersResult
        )
        return result.subscribers

    async def update(
        self,
        stream_id: int,
        *,
        new_name: str | NotGiven = NOT_GIVEN,
        description: str | NotGiven = NOT_GIVEN,
        is_private: bool | NotGiven = NOT_GIVEN,
        is_web_public: bool | NotGiven = NOT_GIVEN,
        history_public_to_subscribers: bool | NotGiven = NOT_GIVEN,
        is_default_stream: bool | NotGiven = NOT_GIVEN,
        message_retention_days: int | RetentionKeyword | NotGiven = NOT_GIVEN,
        topics_policy: TopicsPolicy | NotGiven = NOT_GIVEN,
        folder_id: int | None | NotGiven = NOT_GIVEN,
        is_archived: bool | NotGiven = NOT_GIVEN,
        group_settings: Mapping[str, GroupSettingUpdate] | None = None,
    ) -> None:
        """``PATCH /streams/{stream_id}``: change settings; ``is_archived=False`` unarchives.

        Args:
            group_settings: by setting name, a new value, or ``{"new": v, "old": v}`` so the
                server refuses the change (``ExpectationMismatch``) if someone changed it first.
        """
        params = given(locals(), "stream_id", "group_settings")
        caps = await self._client.get_capabilities()
        if not isinstance(new_name, NotGiven):
            check_length("new_name", new_name, caps.max_stream_name_length)
        if not isinstance(description, NotGiven):
            check_length("description", description, caps.max_stream_description_length)
        params |= {name: _group_update(value) for name, value in (group_settings or {}).items()}
        await self._client._request("PATCH", f"/streams/{int(stream_id)}", params=params)

    async def archive(self, stream_id: int) -> None:
        """``DELETE /streams/{stream_id}``: archive the channel (its history stays)."""
        await self._client._request("DELETE", f"/streams/{int(stream_id)}")

    async def unarchive(self, stream_id: int) -> None:
        """Unarchive a channel (``PATCH /streams/{stream_id}`` with ``is_archived=false``)."""
        await self.update(stream_id, is_archived=False)

    async def set_topic_visibility(
        self, stream_id: int, topic: str, visibility_policy: VisibilityPolicy | int
    ) -> None:
        """``POST /user_topics``: 0 none, 1 muted, 2 unmuted, 3 followed (the topic need not exist).

        Before feature level 170 only muting and unmuting exist (the old muted-topics path).
        """
        caps = await self._client.get_capabilities()
        method, path, params = _topic_visibility_request(caps, stream_id, topic, visibility_policy)
        await self._client._request(method, path, params=params)

    async def create_folder(self, name: str, *, description: str = "") -> int:
        """``POST /channel_folders/create`` (administrators): returns the folder ID."""
        caps = await self._client.get_capabilities()
        params = _folder_params(caps, name, description)
        result = await self._client._request(
            "POST", "/channel_folders/create", params=params, cast_to=ChannelFolderIdResult
        )
        return result.channel_folder_id

    async def folders(
        self, *, include_archived: bool | NotGiven = NOT_GIVEN
    ) -> builtins.list[ChannelFolder]:
        """``GET /channel_folders``: the organization's channel folders, in order."""
        params = given(locals())
        result = await self._client._request(
            "GET", "/channel_folders", params=params, cast_to=ChannelFoldersResult
        )
        return result.channel_folders

    async def update_folder(
        self,
        folder_id: int,
        *,
        name: str | NotGiven = NOT_GIVEN,
        description: str | NotGiven = NOT_GIVEN,
        is_archived: bool | NotGiven = NOT_GIVEN,
    ) -> None:
        """``PATCH /channel_folders/{id}``: rename, describe, archive or unarchive."""
        params = given(locals(), "folder_id")
        caps = await self._client.get_capabilities()
        if not isinstance(name, NotGiven):
            check_length("name", name, caps.max_channel_folder_name_length)
        if not isinstance(description, NotGiven):
            check_length("description", description, caps.max_channel_folder_description_length)
        await self._client._request("PATCH", f"/channel_folders/{int(folder_id)}", params=params)

    async def reorder_folders(self, order: Sequence[int]) -> None:
        """``PATCH /channel_folders``: the new order, every folder ID once."""
        await self._client._request("PATCH", "/channel_folders", params={"order": list(order)})

    # -- subscription properties, default channels, email address -------------------------------

    async def update_subscription_properties(
        self, changes: Sequence[tuple[int, SubscriptionProperty, bool | str]]
    ) -> None:
        """``POST /users/me/subscriptions/properties``: change the caller's subscriptions.

        Args:
            changes: ``(stream_id, property, value)`` triples, applied all or none; a color is
                ``"#rrggbb"``, the other properties booleans.
        """
        params = {"subscription_data": _subscription_data(changes)}
        await self._client._request("POST", "/users/me/subscriptions/properties", params=params)

    async def add_default(self, stream_id: int) -> None:
        """``POST /default_streams`` (administrators): new users will join the channel."""
        await self._client._request(
            "POST", "/default_streams", params={"stream_id": int(stream_id)}
        )

    async def remove_default(self, stream_id: int) -> None:
        """``DELETE /default_streams`` (administrators)."""
        await self._client._request(
            "DELETE", "/default_streams", params={"stream_id": int(stream_id)}
        )

    async def email_address(self, stream_id: int, *, sender_id: int | NotGiven = NOT_GIVEN) -> str:
        """``GET /streams/{stream_id}/email_address``: where emails become channel messages.

        Args:
            sender_id: the caller or one of their bots as the messages' sender; default the
                server's email gateway.
        """
        result = await self._client._request(
            "GET",
            f"/streams/{int(stream_id)}/email_address",
            params=drop_not_given(sender_id=sender_id),
            cast_to=EmailAddressResult,
        )
        return result.email
