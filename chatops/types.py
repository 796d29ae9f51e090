"""Typed API records (msgspec Structs) that response bodies decode straight into.

Unknown fields are ignored, so newer servers decode cleanly; fields a server may omit have
defaults. ``msgspec.json.decode(body, type=MessagesPage)`` is the fast path the client uses.

    >>> import msgspec
    >>> msgspec.json.decode(b'{"result": "success", "msg": "", "id": 7}', type=SendResult)
    SendResult(id=7)
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = [
    "AnonymousGroup",
    "ApiKeyResult",
    "Attachment",
    "AttachmentMessage",
    "AttachmentsResult",
    "BotApiKeyResult",
    "BotResult",
    "BotStorageResult",
    "BotUpdateResult",
    "Capabilities",
    "Channel",
    "ChannelFolder",
    "ChannelFolderIdResult",
    "ChannelFoldersResult",
    "ChannelIdResult",
    "ChannelResult",
    "ChannelsResult",
    "CustomProfileField",
    "CustomProfileFieldsResult",
    "DisplayRecipient",
    "EditHistoryEntry",
    "EditResult",
    "EmailAddressResult",
    "EventsResult",
    "FlagsNarrowResult",
    "FlagsResult",
    "GroupIdResult",
    "GroupSettingValue",
    "IdResult",
    "Invite",
    "InviteLinkResult",
    "InvitesResult",
    "Linkifier",
    "LinkifiersResult",
    "MatchesNarrowResult",
    "Message",
    "MessageHistoryResult",
    "MessageSnapshot",
    "MessagesPage",
    "NarrowMatch",
    "NavigationView",
    "NavigationViewsResult",
    "OwnBot",
    "OwnBotsResult",
    "ProfileFieldValue",
    "QueueRegistration",
    "ROLE_NAMES",
    "Reaction",
    "RealmEmoji",
    "RealmEmojiResult",
    "Record",
    "Reminder",
    "ReminderIdResult",
    "RemindersResult",
    "RenderResult",
    "SavedSnippet",
    "SavedSnippetIdResult",
    "SavedSnippetsResult",
    "ScheduledMessage",
    "ScheduledMessageIdResult",
    "ScheduledMessagesResult",
    "SendResult",
    "ServerSettings",
    "SingleMessageResult",
    "Submessage",
    "SubscribeResult",
    "SubscribersResult",
    "Subscription",
    "SubscriptionsResult",
    "Topic",
    "TopicLink",
    "TopicsResult",
    "UnsubscribeResult",
    "UploadResult",
    "User",
    "UserGroup",
    "UserGroupMemberResult",
    "UserGroupMembersResult",
    "UserGroupSubgroupsResult",
    "UserGroupsResult",
    "UserIdResult",
    "UserResult",
    "UserStatus",
    "UserStatusResult",
    "UsersResult",
    "role_name",
]


class Record(
    msgspec.Struct, kw_only=True, omit_defaults=True, forbid_unknown_fields=False, gc=False
):
    """Base of every API record.

    Records are data decoded from JSON and never form reference cycles, so they are not
    tracked by the garbage collector (``gc=False``): decoding a page of them is faster.
    """

    def to_dict(self) -> dict[str, Any]:
        """The record as plain builtins (what the JSON would be)."""
        result: dict[str, Any] = msgspec.to_builtins(self)
        return result


# -- shared: every area ----------------------------------------------------------------------------


class IdResult(Record):
    """A response carrying the new object's ``id``."""

    id: int


# -- permission settings: channels, user groups and the organization -------------------------------


class AnonymousGroup(Record):
    """A permission setting given as people rather than a named group."""

    direct_members: list[int] = []
    direct_subgroups: list[int] = []


#: a permission setting: a user-group ID, or an anonymous group of members and subgroups
GroupSettingValue = int | AnonymousGroup


# -- messages: messages, reactions, edits, topics --------------------------------------------------


class DisplayRecipient(Record):
    """One recipient of a direct message."""

    id: int
    email: str
    full_name: str
    is_mirror_dummy: bool = False


class Reaction(Record):
    """An emoji reaction; ``(emoji_code, reaction_type)`` identifies the emoji."""

    emoji_name: str
    emoji_code: str
    reaction_type: str = "unicode_emoji"
    user_id: int | None = None


class EditHistoryEntry(Record):
    """One edit or move of a message, most recent first in ``Message.edit_history``."""

    user_id: int | None
    timestamp: int
    prev_content: str | None = None
    prev_rendered_content: str | None = None
    prev_stream: int | None = None
    stream: int | None = None
    prev_topic: str | None = None
    topic: str | None = None
    #: servers before feature level 118 name ``prev_topic`` this way
    prev_subject: str | None = None

    def __post_init__(self) -> None:
        if self.prev_topic is None and self.prev_subject is not None:
            self.prev_topic = self.prev_subject


class Submessage(Record):
    """A widget submessage (poll vote, todo item)."""

    msg_type: str
    content: str
    message_id: int
    sender_id: int
    id: int


class TopicLink(Record):
    """A linkifier match in the topic."""

    text: str
    url: str


class Message(Record):
    """A channel or direct message (spec section 2). ``topic`` reads ``subject``."""

    id: int
    type: str
    sender_id: int
    sender_email: str = ""
    sender_full_name: str = ""
    sender_realm_str: str = ""
    stream_id: int | None = None
    subject: str = ""
    display_recipient: str | list[DisplayRecipient] = ""
    recipient_id: int = 0
    content: str = ""
    content_type: str = "text/html"
    rendered_content: str | None = None
    client: str = ""
    timestamp: int = 0
    is_me_message: bool = False
    avatar_url: str | None = None
    last_edit_timestamp: int | None = None
    last_moved_timestamp: int | None = None
    edit_history: list[EditHistoryEntry] | None = None
    reactions: list[Reaction] = []
    submessages: list[Submessage] = []
    topic_links: list[TopicLink] = []
    flags: list[str] | None = None
    match_content: str | None = None
    match_subject: str | None = None

    @property
    def topic(self) -> str:
        """The topic (the API's ``subject``); empty for direct messages."""
        return self.subject

    @property
    def channel_name(self) -> str | None:
        """The channel name for a channel message, else None."""
        return self.display_recipient if isinstance(self.display_recipient, str) else None


class MessagesPage(Record):
    """``GET /messages``: one page of history around an anchor."""

    messages: list[Message] = []
    anchor: int | None = None
    found_anchor: bool = False
    found_oldest: bool = False
    found_newest: bool = False
    history_limited: bool = False


class SingleMessageResult(Record):
    """``GET /messages/{id}``."""

    message: Message
    raw_content: str | None = None


class SendResult(Record):
    """``POST /messages``."""

    id: int
    automatic_new_visibility_policy: int | None = None


class EditResult(Record):
    """``PATCH /messages/{id}``: files whose only references the edit removed."""

    detached_uploads: list[Attachment] = []


class Topic(Record):
    """A topic of a channel and its newest message ID."""

    name: str
    max_id: int


class TopicsResult(Record):
    """``GET /users/me/{stream_id}/topics``."""

    topics: list[Topic] = []


class FlagsResult(Record):
    """``POST /messages/flags``: the requested IDs (the server echoes them)."""

    messages: list[int] = []
    #: removing ``read``: channels whose messages stayed read (the user is not subscribed)
    ignored_because_not_subscribed_channels: list[int] | None = None


class FlagsNarrowResult(Record):
    """``POST /messages/flags/narrow``: the range processed and how many changed."""

    processed_count: int
    updated_count: int
    first_processed_id: int | None = None
    last_processed_id: int | None = None
    found_oldest: bool = False
    found_newest: bool = False
    ignored_because_not_subscribed_channels: list[int] | None = None


class MessageSnapshot(Record):
    """One version of a message in ``GET /messages/{id}/history``, oldest first.

    ``prev_*`` say what the edit that made this version changed; the first snapshot is the
    message as sent and has none.
    """

    user_id: int | None
    timestamp: int
    topic: str = ""
    content: str = ""
    rendered_content: str = ""
    prev_topic: str | None = None
    prev_stream: int | None = None
    stream: int | None = None
    prev_content: str | None = None
    prev_rendered_content: str | None = None
    content_html_diff: str | None = None


class MessageHistoryResult(Record):
    """``GET /messages/{id}/history``."""

    message_history: list[MessageSnapshot] = []


class RenderResult(Record):
    """``POST /messages/render``."""

    rendered: str


class NarrowMatch(Record):
    """How a message that matches a narrow shows in it (search words highlighted)."""

    match_content: str
    match_subject: str


class MatchesNarrowResult(Record):
    """``GET /messages/matches_narrow``: the matching messages by ID (JSON keys are text)."""

    messages: dict[str, NarrowMatch] = {}


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


# -- users: users, API keys, status ----------------------------------------------------------------


class ProfileFieldValue(Record):
    """A custom profile field value."""

    value: Any = None
    rendered_value: str | None = None


#: Organization roles (spec section 2) by their integer value.
ROLE_NAMES: dict[int, str] = {
    100: "owner",
    200: "administrator",
    300: "moderator",
    400: "member",
    600: "guest",
}


def role_name(role: int | None) -> str:
    """The name of an organization role value (``400`` -> ``"member"``)."""
    if role is None:
        return "unknown"
    return ROLE_NAMES.get(int(role), f"role {role}")


class User(Record):
    """A user or bot (spec section 2). ``delivery_email`` is None when hidden.

    As the real server sends them: ``bot_type`` and ``bot_owner_id`` only for bots (None
    otherwise), ``is_system_bot`` only for system bots (False otherwise), ``profile_data`` only
    for people when asked for.
    """

    user_id: int
    email: str
    full_name: str
    delivery_email: str | None = None
    date_joined: str = ""
    is_active: bool = True
    is_owner: bool = False
    is_admin: bool = False
    is_guest: bool = False
    is_bot: bool = False
    bot_type: int | None = None
    bot_owner_id: int | None = None
    role: int = 400
    timezone: str = ""
    avatar_url: str | None = None
    avatar_version: int = 0
    profile_data: dict[str, ProfileFieldValue] | None = None
    max_message_id: int | None = None
    is_system_bot: bool = False


class UserResult(Record):
    """``GET /users/{user_id}``."""

    user: User


class UsersResult(Record):
    """``GET /users``."""

    members: list[User] = []


class UserIdResult(Record):
    """``POST /users``."""

    user_id: int


class ApiKeyResult(Record):
    """``POST /fetch_api_key``. ``user_id`` is sent from feature level 171."""

    api_key: str
    email: str
    user_id: int | None = None

    def __repr__(self) -> str:
        return f"ApiKeyResult(email={self.email!r}, user_id={self.user_id!r})"


class UserStatus(Record):
    """A user's status; fields not set are absent (``GET /users/{id}/status``)."""

    status_text: str | None = None
    emoji_name: str | None = None
    emoji_code: str | None = None
    reaction_type: str | None = None
    away: bool | None = None


class UserStatusResult(Record):
    """``GET /users/{user_id}/status``."""

    status: UserStatus = msgspec.field(default_factory=UserStatus)


class PresenceEntry(Record):
    """One client's presence in the legacy shape (``status`` is ``offline`` when stale)."""

    status: str
    timestamp: int
    client: str | None = None
    pushable: bool | None = None


class UserPresence(Record):
    """``GET /users/{user_id_or_email}/presence``: ``aggregated`` and per-client entries."""

    presence: dict[str, PresenceEntry] = {}

    @property
    def aggregated(self) -> PresenceEntry | None:
        return self.presence.get("aggregated")


class ModernPresence(Record):
    """A person's presence in the modern shape: when last active, when last connected."""

    active_timestamp: int
    idle_timestamp: int


class RealmPresence(Record):
    """``GET /realm/presence`` and ``POST /users/me/presence``.

    ``presences`` is keyed by user ID (str) in the modern shape, or by email in the legacy one
    (each a dict of client name to entry): see :meth:`modern`.
    """

    presences: dict[str, Any] = {}
    server_timestamp: float | None = None
    presence_last_update_id: int | None = None

    def modern(self) -> dict[int, ModernPresence]:
        """The modern-shape entries by user ID (empty for a legacy answer)."""
        return {
            int(k): msgspec.convert(v, ModernPresence)
            for k, v in self.presences.items()
            if k.isdigit()
        }

    def legacy(self) -> dict[str, PresenceEntry]:
        """The legacy-shape ``aggregated`` entries by email (empty for a modern answer)."""
        return {
            k: msgspec.convert(v["aggregated"], PresenceEntry)
            for k, v in self.presences.items()
            if not k.isdigit() and isinstance(v, dict) and "aggregated" in v
        }


# -- user_groups: user groups ----------------------------------------------------------------------


class UserGroup(Record):
    """A user group; permission settings are group-setting values (an id or an object)."""

    id: int
    name: str
    description: str = ""
    members: list[int] = []
    direct_subgroup_ids: list[int] = []
    creator_id: int | None = None
    date_created: int | None = None
    is_system_group: bool = False
    deactivated: bool = False
    can_add_members_group: GroupSettingValue | None = None
    can_join_group: GroupSettingValue | None = None
    can_leave_group: GroupSettingValue | None = None
    can_manage_group: GroupSettingValue | None = None
    can_mention_group: GroupSettingValue | None = None
    can_remove_members_group: GroupSettingValue | None = None


class UserGroupsResult(Record):
    """``GET /user_groups``."""

    user_groups: list[UserGroup] = []


class GroupIdResult(Record):
    """``POST /user_groups/create``."""

    group_id: int


class UserGroupMembersResult(Record):
    """``GET /user_groups/{id}/members`` (feature level 127)."""

    members: list[int] = []


class UserGroupMemberResult(Record):
    """``GET /user_groups/{id}/members/{user_id}`` (feature level 127)."""

    is_user_group_member: bool


class UserGroupSubgroupsResult(Record):
    """``GET /user_groups/{id}/subgroups`` (feature level 127)."""

    subgroups: list[int] = []


# -- invitations: invitations and invitation links -------------------------------------------------


class Invite(Record):
    """An active invitation: an email invitation or a reusable link (``is_multiuse``)."""

    id: int
    invited_by_user_id: int
    invited: int
    expiry_date: int | None = None
    invited_as: int = 400
    is_multiuse: bool = False
    email: str | None = None
    link_url: str | None = None
    notify_referrer_on_join: bool | None = None


class InvitesResult(Record):
    """``GET /invites``."""

    invites: list[Invite] = []


class InviteLinkResult(Record):
    """``POST /invites/multiuse``."""

    invite_link: str


# -- realm: the server and the organization: settings, capabilities, linkifiers, custom emoji ------


class ServerSettings(Record):
    """``GET /server_settings`` (no authentication)."""

    zulip_version: str = ""
    zulip_feature_level: int = 0
    zulip_merge_base: str = ""
    push_notifications_enabled: bool = False
    is_incompatible: bool = False
    authentication_methods: dict[str, bool] = {}
    email_auth_enabled: bool | None = None
    require_email_format_usernames: bool | None = None
    realm_url: str | None = None
    realm_uri: str | None = None
    realm_name: str | None = None
    realm_icon: str | None = None
    realm_description: str | None = None
    realm_web_public_access_enabled: bool | None = None
    external_authentication_methods: list[dict[str, Any]] = []

    @property
    def feature_level(self) -> int:
        """The server's API feature level."""
        return self.zulip_feature_level


class Capabilities(Record):
    """What the server supports and its limits, learned once from ``POST /register``.

    ``None`` means the server did not say; checks against it are skipped.
    """

    feature_level: int = msgspec.field(default=0, name="zulip_feature_level")
    zulip_version: str = ""
    max_topic_length: int | None = None
    max_message_length: int | None = None
    max_stream_name_length: int | None = None
    max_stream_description_length: int | None = None
    max_channel_folder_name_length: int | None = None
    max_channel_folder_description_length: int | None = None
    max_file_upload_size_mib: int | None = None
    max_reminder_note_length: int | None = None
    max_bulk_new_subscription_messages: int | None = None
    realm_empty_topic_display_name: str | None = None

    def at_least(self, feature_level: int) -> bool:
        """Whether the server is at or past ``feature_level``."""
        return self.feature_level >= feature_level


class Linkifier(Record):
    """A linkifier: a pattern with named groups and the URL template they fill."""

    id: int
    pattern: str
    url_template: str = ""
    url_format_string: str | None = None


class LinkifiersResult(Record):
    """``GET /realm/linkifiers``."""

    linkifiers: list[Linkifier] = []


class RealmEmoji(Record):
    """A custom emoji of the organization."""

    id: str
    name: str
    source_url: str = ""
    still_url: str | None = None
    deactivated: bool = False
    author_id: int | None = None


class RealmEmojiResult(Record):
    """``GET /realm/emoji``."""

    emoji: dict[str, RealmEmoji] = {}


class CustomProfileField(Record):
    """A custom profile field of the organization.

    ``type``: 1 short text, 2 long text, 3 list of options, 4 date, 5 link, 6 person picker,
    7 external account, 8 pronouns. ``field_data`` is JSON text (options of type 3, the
    subtype of type 7) or empty.
    """

    id: int
    name: str
    type: int
    hint: str = ""
    field_data: str = ""
    order: int = 0
    required: bool = False
    editable_by_user: bool = True
    display_in_profile_summary: bool = False


class CustomProfileFieldsResult(Record):
    """``GET /realm/profile_fields``."""

    custom_fields: list[CustomProfileField] = []


# -- uploads: files and attachments ----------------------------------------------------------------


class UploadResult(Record):
    """``POST /user_uploads``. Servers before feature level 272 send only ``uri``."""

    url: str = ""
    uri: str = ""
    filename: str | None = None

    def __post_init__(self) -> None:
        if not self.url:
            self.url = self.uri
        if not self.uri:
            self.uri = self.url

    @property
    def markdown(self) -> str:
        """A Markdown link to the file, as the web app writes it."""
        name = (self.filename or self.url.rsplit("/", 1)[-1]).replace("[", "").replace("]", "")
        return f"[{name}]({self.url})"


class AttachmentMessage(Record):
    """A message linking an attachment; ``date_sent`` in milliseconds."""

    id: int
    date_sent: int = 0


class Attachment(Record):
    """An uploaded file; ``create_time`` is in milliseconds (seconds from feature level 443)."""

    id: int
    name: str
    path_id: str
    size: int
    create_time: int = 0
    messages: list[AttachmentMessage] = []
    message_ids: list[int] | None = None


class AttachmentsResult(Record):
    """``GET /attachments``."""

    attachments: list[Attachment] = []
    upload_space_used: int | None = None


# -- events: event queues --------------------------------------------------------------------------


class QueueRegistration(Record):
    """``POST /register``: the event queue (the initial state's other blocks are ignored)."""

    queue_id: str | None = None
    last_event_id: int = -1
    feature_level: int = msgspec.field(default=0, name="zulip_feature_level")
    max_message_id: int | None = None
    event_queue_longpoll_timeout_seconds: int | None = None


class EventsResult(Record):
    """``GET /events``: event objects (plain dicts: each ``type`` has its own shape)."""

    events: list[dict[str, Any]] = []
    queue_id: str | None = None


# -- scheduled: scheduled messages and reminders ---------------------------------------------------


class ScheduledMessage(Record):
    """A scheduled message; ``to`` is a channel id or a list of user ids; ``failed`` if sending failed."""

    scheduled_message_id: int
    type: str
    to: int | list[int]
    content: str
    rendered_content: str = ""
    topic: str | None = None
    scheduled_delivery_timestamp: int = 0
    failed: bool = False


class ScheduledMessagesResult(Record):
    """``GET /scheduled_messages``."""

    scheduled_messages: list[ScheduledMessage] = []


class ScheduledMessageIdResult(Record):
    """``POST /scheduled_messages``."""

    scheduled_message_id: int


class Reminder(Record):
    """A message reminder: a direct message to oneself, later, linking a message."""

    reminder_id: int
    type: str = "private"
    to: list[int] = []
    content: str = ""
    rendered_content: str = ""
    scheduled_delivery_timestamp: int = 0
    failed: bool = False
    reminder_target_message_id: int | None = None


class RemindersResult(Record):
    """``GET /reminders``."""

    reminders: list[Reminder] = []


class ReminderIdResult(Record):
    """``POST /reminders``."""

    reminder_id: int


# -- personal: navigation views and saved snippets -------------------------------------------------


class NavigationView(Record):
    """A navigation view: a built-in fragment, or a custom one with a name."""

    fragment: str
    is_pinned: bool
    name: str | None = None


class NavigationViewsResult(Record):
    """``GET /navigation_views``."""

    navigation_views: list[NavigationView] = []


class SavedSnippet(Record):
    """A saved snippet: a title and Markdown content."""

    id: int
    title: str
    content: str
    date_created: int | None = None


class SavedSnippetsResult(Record):
    """``GET /saved_snippets``."""

    saved_snippets: list[SavedSnippet] = []


class SavedSnippetIdResult(Record):
    """``POST /saved_snippets``."""

    saved_snippet_id: int


class AlertWordsResult(Record):
    """``GET``/``POST``/``DELETE /users/me/alert_words``: the words after the change."""

    alert_words: list[str] = []


class Draft(Record):
    """A draft kept on the server: ``type`` ``stream``, ``private`` or ``""``; ``to`` holds the
    channel ID or the user IDs."""

    type: str
    to: list[int]
    topic: str
    content: str
    id: int | None = None
    timestamp: float | None = None


class DraftsResult(Record):
    """``GET /drafts``."""

    drafts: list[Draft] = []
    count: int = 0


class DraftIdsResult(Record):
    """``POST /drafts``: the IDs of the new drafts, in order."""

    ids: list[int] = []


# -- bots: bots ------------------------------------------------------------------------------------


class BotService(Record):
    """An outgoing-webhook bot's receiving URL and its fixed token (kept out of the repr)."""

    base_url: str
    interface: int = 1
    token: str = ""

    def __repr__(self) -> str:
        return f"BotService(base_url={self.base_url!r}, interface={self.interface!r})"


class BotResult(Record):
    """``POST /bots``: the new bot; ``api_key`` is kept out of the repr."""

    user_id: int
    api_key: str = ""
    email: str = ""
    services: list[BotService] = []

    def __repr__(self) -> str:
        return f"BotResult(user_id={self.user_id!r}, email={self.email!r})"


class OwnBot(Record):
    """One of the requester's bots (``GET /bots``); ``api_key`` is kept out of the repr."""

    username: str
    full_name: str
    api_key: str = ""
    avatar_url: str | None = None
    default_sending_stream: str | None = None
    default_events_register_stream: str | None = None
    default_all_public_streams: bool = False

    def __repr__(self) -> str:
        return f"OwnBot(username={self.username!r}, full_name={self.full_name!r})"


class OwnBotsResult(Record):
    """``GET /bots``."""

    bots: list[OwnBot]


class BotUpdateResult(Record):
    """``PATCH /bots/{bot_id}``: the bot after the change; ``bot_owner`` is the owner's email."""

    full_name: str
    avatar_url: str | None = None
    service_interface: int | None = None
    service_payload_url: str | None = None
    config_data: dict[str, str] | None = None
    default_sending_stream: str | None = None
    default_events_register_stream: str | None = None
    default_all_public_streams: bool = False
    bot_owner: str | None = None


class BotApiKeyResult(Record):
    """``POST /bots/{bot_id}/api_key/regenerate``: the new key (kept out of the repr)."""

    api_key: str

    def __repr__(self) -> str:
        return "BotApiKeyResult(api_key=...)"


class BotStorageResult(Record):
    """``GET /bot_storage``: the requested entries."""

    storage: dict[str, str]
