"""The words Zulip's own settings pages use for group-valued settings, so the panels say
"Who can post to this channel" where the API says ``can_send_message_group``.

The labels are those of the Zulip web app (``web/src/settings_config.ts``,
``all_group_setting_labels``); the API name stays available as a tooltip.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["SETTING_LABELS", "Labelled", "Markdown", "api_name", "render_markdown", "setting_label"]

SettingKind = Literal["realm", "stream", "group"]

SETTING_LABELS: dict[str, dict[str, str]] = {
    "realm": {
        "create_multiuse_invite_group": "Who can create reusable invitation links",
        "can_invite_users_group": "Who can send email invitations to new users",
        "can_create_public_channel_group": "Who can create public channels",
        "can_create_web_public_channel_group": "Who can create web-public channels",
        "can_create_private_channel_group": "Who can create private channels",
        "can_add_subscribers_group": "Who can subscribe others to channels",
        "direct_message_permission_group": "Who can authorize a direct message conversation",
        "direct_message_initiator_group": "Who can start a direct message conversation",
        "can_manage_all_groups": "Who can administer all user groups",
        "can_manage_billing_group": "Who can manage plans and billing",
        "can_create_groups": "Who can create user groups",
        "can_move_messages_between_topics_group": "Who can move messages to another topic",
        "can_move_messages_between_channels_group": "Who can move messages to another channel",
        "can_resolve_topics_group": "Who can resolve topics",
        "can_delete_any_message_group": "Who can delete any message",
        "can_delete_own_message_group": "Who can delete their own messages",
        "can_access_all_users_group": "Who can view all other users in the organization",
        "can_summarize_topics_group": "Who can use AI summaries",
        "can_create_write_only_bots_group": "Who can create bots that send messages into Zulip",
        "can_create_bots_group": "Who can create any bot",
        "can_add_custom_emoji_group": "Who can add custom emoji",
        "can_mention_many_users_group": (
            "Who can notify a large number of users with a wildcard mention"
        ),
        "can_set_topics_policy_group": "Who can configure per-channel topic settings",
    },
    "stream": {
        "can_add_subscribers_group": "Who can subscribe anyone to this channel",
        "can_move_messages_within_channel_group": "Who can move messages inside this channel",
        "can_move_messages_out_of_channel_group": "Who can move messages out of this channel",
        "can_send_message_group": "Who can post to this channel",
        "can_administer_channel_group": "Who can administer this channel",
        "can_subscribe_group": "Who can subscribe to this channel",
        "can_remove_subscribers_group": "Who can unsubscribe anyone from this channel",
        "can_delete_any_message_group": "Who can delete any message in this channel",
        "can_delete_own_message_group": "Who can delete their own messages in this channel",
        "can_resolve_topics_group": "Who can resolve topics in this channel",
    },
    "group": {
        "can_add_members_group": "Who can add members to this group",
        "can_join_group": "Who can join this group",
        "can_leave_group": "Who can leave this group",
        "can_manage_group": "Who can administer this group",
        "can_mention_group": "Who can mention this group",
        "can_remove_members_group": "Who can remove members from this group",
    },
}


#: Each label back to its API name (no label stands for two names).
_API_NAMES: dict[str, str] = {
    label: name for labels in SETTING_LABELS.values() for name, label in labels.items()
}


def api_name(label: str) -> str | None:
    """The API name a label stands for (``"Who can post to this channel"`` ->
    ``can_send_message_group``), or None for text that is no setting's label."""
    return _API_NAMES.get(label)


class Labelled(str):
    """Text for the admin that stands for an API name: compares, prints and exports as the
    text; tables show :attr:`api` as its tooltip."""

    api: str

    def __new__(cls, text: str, api: str) -> Labelled:
        made = super().__new__(cls, text)
        made.api = api
        return made

    def __reduce__(self) -> tuple[type[Labelled], tuple[str, str]]:
        return (Labelled, (str(self), self.api))


def setting_label(kind: SettingKind | str, name: str) -> Labelled:
    """``setting_label("stream", "can_send_message_group")`` -> "Who can post to this channel"
    (an unknown setting keeps its API name, with underscores as spaces)."""
    label = SETTING_LABELS.get(kind, {}).get(name)
    if label is None:
        label = SETTING_LABELS["realm"].get(name) or name.replace("_", " ")
    return Labelled(label, name)


class Markdown(str):
    """Text written in Markdown (a folder's description): compares and exports as typed; tables
    show it rendered."""


def render_markdown(text: str) -> str:
    """``text`` as HTML, with raw HTML in it escaped (never passed through)."""
    from markdown_it import MarkdownIt

    rendered = str(MarkdownIt("commonmark", {"html": False}).render(text)).strip()
    # a one-paragraph description stays inline in its table cell
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<p>") == 1:
        rendered = rendered[3:-4]
    return rendered
