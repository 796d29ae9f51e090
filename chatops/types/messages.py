"""Typed records: messages (see :mod:`chatops.types`)."""

from __future__ import annotations

from ._base import Record
from .uploads import Attachment

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


class ReadReceiptsResult(Record):
    """``GET /messages/{message_id}/read_receipts``: who has read the message, by user ID."""

    user_ids: list[int] = []
