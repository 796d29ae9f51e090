"""Typed records: realm (see :mod:`chatops.types`)."""

from __future__ import annotations

from typing import Any

import msgspec

from ._base import Record

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


class RealmPlayground(Record):
    """A code playground: where code blocks of ``pygments_language`` can be opened
    (``url_template``'s only variable is ``code``). In ``POST /register``'s
    ``realm_playgrounds`` and in ``realm_playgrounds`` events."""

    id: int
    name: str
    pygments_language: str
    url_template: str


class BigBlueButtonCall(Record):
    """``GET /calls/bigbluebutton/create``: the join link of a new call."""

    url: str


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


class RealmExport(Record):
    """An organization data export (``GET /export/realm``, the ``realm_export`` event).

    ``export_type``: 1 public data, 2 standard (with the consenting people's private data);
    absent before feature level 304, when every export was public. ``export_url`` is set once
    the export is written; ``pending`` while it is being written; ``failed_timestamp`` and
    ``deleted_timestamp`` say when it failed or was deleted.
    """

    id: int
    acting_user_id: int
    export_time: float
    export_url: str | None = None
    deleted_timestamp: float | None = None
    failed_timestamp: float | None = None
    pending: bool = False
    export_type: int = 1


class RealmExportsResult(Record):
    """``GET /export/realm``."""

    exports: list[RealmExport] = []


class ExportConsent(Record):
    """Whether a person consents to administrators exporting their private data."""

    user_id: int
    consented: bool


class ExportConsentsResult(Record):
    """``GET /export/realm/consents``."""

    export_consents: list[ExportConsent] = []
