"""Typed records: channels (see :mod:`chatops.types`)."""

from __future__ import annotations

from ._base import GroupSettingValue, Record

# -- channels: channels, subscriptions, channel folders --------------------------------------------


class Channel(Record):
    """A channel record as listed by ``GET /streams``."""

    stream_id: int
    name: str
    description: str = ""
    rendered_description: str = ""
    date_created: int | None = None
    creator_id: int | None = None
    invite_only: bool = False
    is_web_public: bool = False
    is_archived: bool = False
    history_public_to_subscribers: bool = True
    first_message_id: int | None = None
    message_retention_days: int | None = None
    stream_weekly_traffic: int | None = None
    subscriber_count: int | None = None
    folder_id: int | None = None
    topics_policy: str | None = None
    is_default: bool | None = None
    is_recently_active: bool | None = None
    can_add_subscribers_group: GroupSettingValue | None = None
    can_administer_channel_group: GroupSettingValue | None = None
    can_remove_subscribers_group: GroupSettingValue | None = None
    can_send_message_group: GroupSettingValue | None = None
    can_subscribe_group: GroupSettingValue | None = None


class ChannelsResult(Record):
    """``GET /streams``."""

    streams: list[Channel] = []


class ChannelResult(Record):
    """``GET /streams/{stream_id}``."""

    stream: Channel


class ChannelIdResult(Record):
    """``GET /get_stream_id``."""

    stream_id: int


class EmailAddressResult(Record):
    """``GET /streams/{stream_id}/email_address``."""

    email: str


class Subscription(Channel):
    """A channel the user is subscribed to, with the user's own settings for it."""

    color: str = ""
    is_muted: bool = False
    in_home_view: bool | None = None
    pin_to_top: bool = False
    desktop_notifications: bool | None = None
    audible_notifications: bool | None = None
    push_notifications: bool | None = None
    email_notifications: bool | None = None
    wildcard_mentions_notify: bool | None = None
    subscribers: list[int] | None = None
    can_delete_any_message_group: GroupSettingValue | None = None
    can_delete_own_message_group: GroupSettingValue | None = None
    can_move_messages_out_of_channel_group: GroupSettingValue | None = None
    can_move_messages_within_channel_group: GroupSettingValue | None = None
    can_resolve_topics_group: GroupSettingValue | None = None


class SubscribeResult(Record):
    """``POST /users/me/subscriptions``: channel names by user (ids as strings; emails before 10.0)."""

    subscribed: dict[str, list[str]] = {}
    already_subscribed: dict[str, list[str]] = {}
    unauthorized: list[str] | None = None
    new_subscription_messages_sent: bool | None = None


class UnsubscribeResult(Record):
    """``DELETE /users/me/subscriptions``."""

    removed: list[str] = []
    not_removed: list[str] = []


class UpdateSubscriptionsResult(Record):
    """``PATCH /users/me/subscriptions``: what joining and leaving did, in one answer."""

    subscribed: dict[str, list[str]] = {}
    already_subscribed: dict[str, list[str]] = {}
    removed: list[str] = []
    not_removed: list[str] = []


class DeleteTopicResult(Record):
    """``POST /streams/{stream_id}/delete_topic``: False when the server stopped before the
    last message (the request is then repeated)."""

    complete: bool


class SubscriptionsResult(Record):
    """``GET /users/me/subscriptions``."""

    subscriptions: list[Subscription] = []


class SubscribersResult(Record):
    """``GET /streams/{stream_id}/members``."""

    subscribers: list[int] = []


class ChannelFolder(Record):
    """A channel folder (spec 4.6); ``order`` from feature level 414."""

    id: int
    name: str
    description: str = ""
    rendered_description: str = ""
    creator_id: int | None = None
    date_created: int | None = None
    is_archived: bool = False
    order: int | None = None


class ChannelFoldersResult(Record):
    """``GET /channel_folders``."""

    channel_folders: list[ChannelFolder] = []


class ChannelFolderIdResult(Record):
    """``POST /channel_folders/create``."""

    channel_folder_id: int
