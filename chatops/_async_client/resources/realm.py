"""Organization settings (``PATCH /realm``), linkifiers (spec 4.15) and custom emoji."""

from __future__ import annotations

import asyncio
import builtins
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from ..._base_client import NOT_GIVEN, NotGiven
from ...resources._base import AsyncResource, GroupSettingValue, given, group_setting_param
from ...types import (
    Capabilities,
    CustomProfileField,
    CustomProfileFieldsResult,
    ExportConsent,
    ExportConsentsResult,
    IdResult,
    Linkifier,
    LinkifiersResult,
    RealmEmoji,
    RealmEmojiResult,
    RealmExport,
    RealmExportsResult,
)
from .uploads import FileInput, _api_file_path, _file_part, _Source

__all__ = ["format_string_from_template", "AsyncRealm"]

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
                params[name] = {
                    "new": group_setting_param(value[0]),
                    "old": group_setting_param(value[1]),
                }
            else:
                params[name] = {"new": group_setting_param(value)}
        else:
            params[name] = value
    return params


def _field_params(params: dict[str, Any]) -> dict[str, Any]:
    if "field_data" in params:
        params["field_data"] = dict(params["field_data"])
    return params


def _linkifiers(result: LinkifiersResult) -> builtins.list[Linkifier]:
    for item in result.linkifiers:
        if not item.url_template and item.url_format_string:
            item.url_template = _template_from_format_string(item.url_format_string)
    return result.linkifiers


class AsyncRealm(AsyncResource):
    """``client.realm``."""

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

    # -- code playgrounds --------------------------------------------------------------------------

    async def add_playground(self, *, name: str, pygments_language: str, url_template: str) -> int:
        """``POST /realm/playgrounds`` (administrators); returns the playground's id.

        Args:
            name: what people see when they choose among playgrounds.
            pygments_language: the language of the code blocks it opens (``Python``).
            url_template: an RFC 6570 template whose only variable is ``code``
                (``https://play.example.com/?code={code}``).
        """
        params = {
            "name": name,
            "pygments_language": pygments_language,
            "url_template": url_template,
        }
        result = await self._client._request(
            "POST", "/realm/playgrounds", params=params, cast_to=IdResult
        )
        return result.id

    async def remove_playground(self, playground_id: int) -> None:
        """``DELETE /realm/playgrounds/{playground_id}`` (administrators)."""
        await self._client._request("DELETE", f"/realm/playgrounds/{int(playground_id)}")

    # -- settings for new users --------------------------------------------------------------------

    async def update_user_settings_defaults(self, **settings: Any) -> None:
        """``PATCH /realm/user_settings_defaults`` (administrators): the personal settings new
        users start with (``emojiset="text"``, ``enter_sends=True``, ...). People who already
        have an account keep theirs; unknown names come back in
        ``ignored_parameters_unsupported``."""
        if not settings:
            raise ValueError("give at least one setting to change")
        await self._client._request(
            "PATCH", "/realm/user_settings_defaults", params=settings, idempotent=True
        )

    # -- custom emoji ------------------------------------------------------------------------------

    async def emoji(self) -> dict[str, RealmEmoji]:
        """``GET /realm/emoji``: custom emoji by id (deactivated ones included)."""
        result = await self._client._request("GET", "/realm/emoji", cast_to=RealmEmojiResult)
        return result.emoji

    async def upload_emoji(
        self, emoji_name: str, file: FileInput, *, filename: str | None = None
    ) -> None:
        """``POST /realm/emoji/{emoji_name}``: add a custom emoji (PNG, GIF, JPEG or WebP).

        Args:
            emoji_name: lowercase letters, digits, ``-`` and ``_``, ending in a letter or digit.
            file: a path, bytes or a binary file object.
            filename: the name to send; default the path's or file object's name.
        """
        source = _Source(file, filename, None)
        await self._client._request(
            "POST", f"/realm/emoji/{quote(emoji_name, safe='')}", files=_file_part(source)
        )

    async def deactivate_emoji(self, emoji_name: str) -> None:
        """``DELETE /realm/emoji/{emoji_name}``: its author or an administrator."""
        await self._client._request("DELETE", f"/realm/emoji/{quote(emoji_name, safe='')}")

    # -- custom profile fields ---------------------------------------------------------------------

    async def profile_fields(self) -> builtins.list[CustomProfileField]:
        """``GET /realm/profile_fields``: the organization's fields in display order."""
        result = await self._client._request(
            "GET", "/realm/profile_fields", cast_to=CustomProfileFieldsResult
        )
        return result.custom_fields

    async def create_profile_field(
        self,
        *,
        field_type: int,
        name: str | NotGiven = NOT_GIVEN,
        hint: str | NotGiven = NOT_GIVEN,
        field_data: Mapping[str, Any] | NotGiven = NOT_GIVEN,
        display_in_profile_summary: bool | NotGiven = NOT_GIVEN,
        required: bool | NotGiven = NOT_GIVEN,
        editable_by_user: bool | NotGiven = NOT_GIVEN,
    ) -> int:
        """``POST /realm/profile_fields`` (administrators); returns the field's id.

        Args:
            field_type: 1 short text, 2 long text, 3 list of options, 4 date, 5 link,
                6 person picker, 7 external account, 8 pronouns.
            field_data: options of type 3 (``{"key": {"text": ..., "order": "1"}}``), the
                ``subtype`` of type 7 (``{"subtype": "github"}``).
        """
        params = _field_params(given(locals()))
        result = await self._client._request(
            "POST", "/realm/profile_fields", params=params, cast_to=IdResult
        )
        return result.id

    async def update_profile_field(
        self,
        field_id: int,
        *,
        name: str | NotGiven = NOT_GIVEN,
        hint: str | NotGiven = NOT_GIVEN,
        field_data: Mapping[str, Any] | NotGiven = NOT_GIVEN,
        display_in_profile_summary: bool | NotGiven = NOT_GIVEN,
        required: bool | NotGiven = NOT_GIVEN,
        editable_by_user: bool | NotGiven = NOT_GIVEN,
    ) -> None:
        """``PATCH /realm/profile_fields/{field_id}`` (administrators)."""
        params = _field_params(given(locals(), "field_id"))
        await self._client._request(
            "PATCH", f"/realm/profile_fields/{int(field_id)}", params=params
        )

    async def reorder_profile_fields(self, order: Sequence[int]) -> None:
        """``PATCH /realm/profile_fields``: every field's id, in the new order."""
        await self._client._request("PATCH", "/realm/profile_fields", params={"order": list(order)})

    async def delete_profile_field(self, field_id: int) -> None:
        """``DELETE /realm/profile_fields/{field_id}``: the field and all users' values."""
        await self._client._request("DELETE", f"/realm/profile_fields/{int(field_id)}")

    # -- organization data exports -----------------------------------------------------------------

    async def create_export(self, *, export_type: int | NotGiven = NOT_GIVEN) -> int:
        """``POST /export/realm`` (administrators): ask for a data export; returns its id.

        The server writes it in the background: :meth:`wait_for_export` waits for it, and
        :meth:`download_export` fetches the tarball.

        Args:
            export_type: 1 public data (the default), 2 standard: also the private data of the
                people who consent (feature level 304).

        Example::

            export = client.realm.wait_for_export(client.realm.create_export(export_type=2))
            Path("org.tar.gz").write_bytes(client.realm.download_export(export))
        """
        result = await self._client._request(
            "POST", "/export/realm", params=given(locals()), cast_to=IdResult
        )
        return result.id

    async def exports(self) -> builtins.list[RealmExport]:
        """``GET /export/realm`` (administrators): every data export of the organization."""
        result = await self._client._request("GET", "/export/realm", cast_to=RealmExportsResult)
        return result.exports

    async def export_consents(self) -> builtins.list[ExportConsent]:
        """``GET /export/realm/consents`` (administrators; feature level 295): whether each
        active person consents to the export of their private data."""
        result = await self._client._request(
            "GET", "/export/realm/consents", cast_to=ExportConsentsResult
        )
        return result.export_consents

    async def wait_for_export(
        self, export_id: int, *, timeout: float = 600.0, poll_seconds: float = 1.0
    ) -> RealmExport:
        """The export ``export_id`` once it is no longer pending (written, or failed).

        Args:
            export_id: what :meth:`create_export` returned.
            timeout: seconds to wait at most; then ``TimeoutError``.
            poll_seconds: seconds between two reads of ``GET /export/realm``.

        Raises ``LookupError`` when the organization has no such export.
        """
        stop = time.monotonic() + timeout
        while True:
            found = [e for e in await self.exports() if e.id == export_id]
            if not found:
                raise LookupError(f"the organization has no data export {export_id}")
            if not found[0].pending:
                return found[0]
            if time.monotonic() >= stop:
                raise TimeoutError(f"data export {export_id} still pending after {timeout:g} s")
            await asyncio.sleep(poll_seconds)

    async def download_export(self, export: RealmExport | str) -> bytes:
        """The tarball of a written export: its record, or its ``export_url``.

        Raises ``ValueError`` for an export that has no URL (pending, failed or deleted).
        """
        url = export if isinstance(export, str) else export.export_url
        if not url:
            raise ValueError(f"data export {getattr(export, 'id', '')} has no URL to download")
        target, _ = _api_file_path(self._client.site, url)
        return await self._client._request("GET", target, cast_to=bytes)
