"""Organization settings (``PATCH /realm``), linkifiers (spec 4.15) and custom emoji."""

from __future__ import annotations

import builtins
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..types import (
    Capabilities,
    IdResult,
    Linkifier,
    LinkifiersResult,
    RealmEmoji,
    RealmEmojiResult,
)
from ._base import AsyncResource, GroupSettingValue, SyncResource
from ._base import group_setting_param as _setting_value

__all__ = ["AsyncRealm", "Realm", "format_string_from_template"]

#: realm settings whose values are group-setting values (sent as ``{"new": ..., "old"?: ...}``)
GROUP_SETTINGS = frozenset(
    {
        "can_access_all_users_group",
        "can_add_custom_emoji_group",
        "can_add_subscribers_group",
        "can_create_groups",
        "can_create_private_channel_group",
        "can_create_public_channel_group",
        "can_create_web_public_channel_group",
        "can_delete_any_message_group",
        "can_delete_own_message_group",
        "can_invite_users_group",
        "can_manage_all_groups",
        "can_manage_billing_group",
        "can_mention_many_users_group",
        "can_move_messages_between_channels_group",
        "can_move_messages_between_topics_group",
        "can_resolve_topics_group",
        "can_summarize_topics_group",
        "create_multiuse_invite_group",
        "direct_message_initiator_group",
        "direct_message_permission_group",
    }
)


def format_string_from_template(url_template: str) -> str:
    """An RFC 6570 template as the ``%(name)s`` format string of servers before level 176."""
    return re.sub(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", r"%(\1)s", url_template)


def _template_from_format_string(value: str) -> str:
    return re.sub(r"%\(([A-Za-z_][A-Za-z0-9_]*)\)s", r"{\1}", value)


def _linkifier_params(caps: Capabilities, pattern: str, url_template: str) -> dict[str, Any]:
    if caps.at_least(176):
        return {"pattern": pattern, "url_template": url_template}
    return {"pattern": pattern, "url_format_string": format_string_from_template(url_template)}


def _realm_params(settings: Mapping[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name, value in settings.items():
        if name in GROUP_SETTINGS:
            if isinstance(value, tuple):
                params[name] = {"new": _setting_value(value[0]), "old": _setting_value(value[1])}
            else:
                params[name] = {"new": _setting_value(value)}
        else:
            params[name] = value
    return params


def _linkifiers(result: LinkifiersResult) -> builtins.list[Linkifier]:
    for item in result.linkifiers:
        if not item.url_template and item.url_format_string:
            item.url_template = _template_from_format_string(item.url_format_string)
    return result.linkifiers


class Realm(SyncResource):
    """``client.realm``."""

    def update(
        self, **settings: GroupSettingValue | tuple[GroupSettingValue, GroupSettingValue] | Any
    ) -> None:
        """``PATCH /realm`` (administrators): change organization settings.

        Group-valued settings (``create_multiuse_invite_group``, ``can_invite_users_group``,
        ...) take a group id, an anonymous group dict, or ``(new, old)`` to have the server
        check the current value; the others take plain values (``allow_message_editing=True``,
        ``message_content_edit_limit_seconds=600`` or ``"unlimited"``, ``name="..."``).
        """
        self._client._request("PATCH", "/realm", params=_realm_params(settings))

    # -- linkifiers --------------------------------------------------------------------------------

    def linkifiers(self) -> builtins.list[Linkifier]:
        """``GET /realm/linkifiers``: the linkifiers in the order they apply."""
        result = self._client._request("GET", "/realm/linkifiers", cast_to=LinkifiersResult)
        return _linkifiers(result)

    def add_linkifier(self, pattern: str, url_template: str) -> int:
        """``POST /realm/filters`` (administrators); returns the linkifier id.

        Args:
            pattern: a regular expression; its named groups (``(?P<id>[0-9]+)``) fill the template.
            url_template: an RFC 6570 URL template using those groups (``https://x/{id}``).
        """
        caps = self._client.get_capabilities()
        params = _linkifier_params(caps, pattern, url_template)
        result = self._client._request("POST", "/realm/filters", params=params, cast_to=IdResult)
        return result.id

    def update_linkifier(self, filter_id: int, *, pattern: str, url_template: str) -> None:
        """Spec 4.15 ``PATCH /realm/filters/{filter_id}``: replace pattern and template (level 57)."""
        caps = self._client.get_capabilities()
        params = _linkifier_params(caps, pattern, url_template)
        self._client._request("PATCH", f"/realm/filters/{int(filter_id)}", params=params)

    def remove_linkifier(self, filter_id: int) -> None:
        """``DELETE /realm/filters/{filter_id}`` (administrators)."""
        self._client._request("DELETE", f"/realm/filters/{int(filter_id)}")

    def reorder_linkifiers(self, ordered_linkifier_ids: Sequence[int]) -> None:
        """``PATCH /realm/linkifiers``: all linkifier ids in their new order."""
        params = {"ordered_linkifier_ids": list(ordered_linkifier_ids)}
        self._client._request("PATCH", "/realm/linkifiers", params=params)

    # -- custom emoji ------------------------------------------------------------------------------

    def emoji(self) -> dict[str, RealmEmoji]:
        """``GET /realm/emoji``: custom emoji by id (deactivated ones included)."""
        result = self._client._request("GET", "/realm/emoji", cast_to=RealmEmojiResult)
        return result.emoji


class AsyncRealm(AsyncResource):
    """``client.realm`` of an ``AsyncClient``."""

    async def update(
        self, **settings: GroupSettingValue | tuple[GroupSettingValue, GroupSettingValue] | Any
    ) -> None:
        """``PATCH /realm`` (administrators): change organization settings.

        Group-valued settings (``create_multiuse_invite_group``, ``can_invite_users_group``,
        ...) take a group id, an anonymous group dict, or ``(new, old)`` to have the server
        check the current value; the others take plain values (``allow_message_editing=True``,
        ``message_content_edit_limit_seconds=600`` or ``"unlimited"``, ``name="..."``).
        """
        await self._client._request("PATCH", "/realm", params=_realm_params(settings))

    # -- linkifiers --------------------------------------------------------------------------------

    async def linkifiers(self) -> builtins.list[Linkifier]:
        """``GET /realm/linkifiers``: the linkifiers in the order they apply."""
        result = await self._client._request("GET", "/realm/linkifiers", cast_to=LinkifiersResult)
        return _linkifiers(result)

    async def add_linkifier(self, pattern: str, url_template: str) -> int:
        """``POST /realm/filters`` (administrators); returns the linkifier id.

        Args:
            pattern: a regular expression; its named groups (``(?P<id>[0-9]+)``) fill the template.
            url_template: an RFC 6570 URL template using those groups (``https://x/{id}``).
        """
        caps = await self._client.get_capabilities()
        params = _linkifier_params(caps, pattern, url_template)
        result = await self._client._request(
            "POST", "/realm/filters", params=params, cast_to=IdResult
        )
        return result.id

    async def update_linkifier(self, filter_id: int, *, pattern: str, url_template: str) -> None:
        """Spec 4.15 ``PATCH /realm/filters/{filter_id}``: replace pattern and template (level 57)."""
        caps = await self._client.get_capabilities()
        params = _linkifier_params(caps, pattern, url_template)
        await self._client._request("PATCH", f"/realm/filters/{int(filter_id)}", params=params)

    async def remove_linkifier(self, filter_id: int) -> None:
        """``DELETE /realm/filters/{filter_id}`` (administrators)."""
        await self._client._request("DELETE", f"/realm/filters/{int(filter_id)}")

    async def reorder_linkifiers(self, ordered_linkifier_ids: Sequence[int]) -> None:
        """``PATCH /realm/linkifiers``: all linkifier ids in their new order."""
        params = {"ordered_linkifier_ids": list(ordered_linkifier_ids)}
        await self._client._request("PATCH", "/realm/linkifiers", params=params)

    # -- custom emoji ------------------------------------------------------------------------------

    async def emoji(self) -> dict[str, RealmEmoji]:
        """``GET /realm/emoji``: custom emoji by id (deactivated ones included)."""
        result = await self._client._request("GET", "/realm/emoji", cast_to=RealmEmojiResult)
        return result.emoji
