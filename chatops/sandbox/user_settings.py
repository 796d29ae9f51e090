"""Each person's own settings (``PATCH /settings``): display, notification and privacy choices.

Stored as the values that differ from the defaults; ``timezone`` and
``email_address_visibility`` live on the user row because other areas read them there. A change
is announced as a ``user_settings`` event and, to clients that did not declare the
``user_settings_object`` capability, as the legacy ``update_display_settings`` or
``update_global_notifications`` event.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from zoneinfo import available_timezones

from . import realm as realm_mod
from . import user_admin, users
from .bus import EventQueue, event_bus
from .errors import ApiError
from .store import Row, Store

Check = Callable[[str, Any], Any]


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ApiError(f"{name} is not a boolean", var_name=name)
    return value


def _choice(*allowed: Any) -> Check:
    def check(name: str, value: Any) -> Any:
        if isinstance(value, bool) or value not in allowed:
            raise ApiError(f"Invalid {name}", var_name=name)
        return value

    return check


def _int_range(low: int, high: int) -> Check:
    def check(name: str, value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ApiError(f"Invalid {name}", var_name=name)
        return value

    return check


LANGUAGES = {
    "en": "English",
    "de": "Deutsch",
    "es": "español",
    "fr": "français",
    "it": "italiano",
    "ja": "日本語",
    "pt": "Português",
    "ru": "Русский",
    "zh-hans": "简体中文",
}
EMOJISETS = ("google", "google-blob", "twitter", "text")
NOTIFICATION_SOUNDS = ("zulip", "ding", "chime-short", "none")

#: every setting: its default and how a new value is checked
SETTINGS: dict[str, tuple[Any, Check]] = {
    "twenty_four_hour_time": (False, _bool),
    "web_mark_read_on_scroll_policy": (1, _choice(1, 2, 3)),
    "web_channel_default_view": (1, _choice(1, 2)),
    "starred_message_counts": (True, _bool),
    "receives_typing_notifications": (True, _bool),
    "web_suggest_update_timezone": (True, _bool),
    "fluid_layout_width": (False, _bool),
    "high_contrast_mode": (False, _bool),
    "web_font_size_px": (16, _int_range(12, 24)),
    "web_line_height_percent": (140, _int_range(122, 158)),
    "color_scheme": (1, _choice(1, 2, 3)),
    "enable_drafts_synchronization": (True, _bool),
    "translate_emoticons": (False, _bool),
    "display_emoji_reaction_users": (True, _bool),
    "default_language": ("en", _choice(*LANGUAGES)),
    "web_home_view": ("inbox", _choice("recent_topics", "inbox", "all_messages")),
    "web_escape_navigates_to_home_view": (True, _bool),
    "left_side_userlist": (False, _bool),
    "emojiset": ("google", _choice(*EMOJISETS)),
    "demote_inactive_streams": (1, _choice(1, 2, 3)),
    "user_list_style": (2, _choice(1, 2, 3)),
    "web_animate_image_previews": ("on_hover", _choice("always", "on_hover", "never")),
    "web_stream_unreads_count_display_policy": (2, _choice(1, 2, 3)),
    "hide_ai_features": (False, _bool),
    "enable_stream_desktop_notifications": (False, _bool),
    "enable_stream_email_notifications": (False, _bool),
    "enable_stream_push_notifications": (False, _bool),
    "enable_stream_audible_notifications": (False, _bool),
    "notification_sound": ("zulip", _choice(*NOTIFICATION_SOUNDS)),
    "enable_desktop_notifications": (True, _bool),
    "enable_sounds": (True, _bool),
    "email_notifications_batching_period_seconds": (120, _int_range(120, 7 * 86400)),
    "enable_offline_email_notifications": (True, _bool),
    "enable_offline_push_notifications": (True, _bool),
    "enable_online_push_notifications": (True, _bool),
    "enable_followed_topic_desktop_notifications": (True, _bool),
    "enable_followed_topic_email_notifications": (True, _bool),
    "enable_followed_topic_push_notifications": (True, _bool),
    "enable_followed_topic_audible_notifications": (True, _bool),
    "enable_digest_emails": (True, _bool),
    "enable_marketing_emails": (True, _bool),
    "enable_login_emails": (True, _bool),
    "message_content_in_email_notifications": (True, _bool),
    "pm_content_in_desktop_notifications": (True, _bool),
    "wildcard_mentions_notify": (True, _bool),
    "enable_followed_topic_wildcard_mentions_notify": (True, _bool),
    "desktop_icon_count_display": (1, _choice(1, 2, 3, 4)),
    "realm_name_in_email_notifications_policy": (1, _choice(1, 2, 3)),
    "automatically_follow_topics_policy": (3, _choice(1, 2, 3, 4)),
    "automatically_unmute_topics_in_muted_streams_policy": (4, _choice(1, 2, 3, 4)),
    "automatically_follow_topics_where_mentioned": (True, _bool),
    "presence_enabled": (True, _bool),
    "enter_sends": (False, _bool),
    "send_private_typing_notifications": (True, _bool),
    "send_stream_typing_notifications": (True, _bool),
    "send_read_receipts": (True, _bool),
    "allow_private_data_export": (False, _bool),
    "web_navigate_to_sent_message": (True, _bool),
}
#: the settings kept on the user row, with how a new value is checked
ROW_SETTINGS: dict[str, Check] = {
    "timezone": lambda name, value: _timezone(value),
    "email_address_visibility": _choice(1, 2, 3, 4, 5),
}

#: the legacy top-level display settings of ``POST /register`` (``update_display_settings``):
#: the real server's ``display_settings_legacy``; settings added later (``user_list_style``,
#: ``display_emoji_reaction_users``) exist only in ``user_settings``
DISPLAY_LEGACY = (
    "color_scheme",
    "default_language",
    "demote_inactive_streams",
    "emojiset",
    "enable_drafts_synchronization",
    "enter_sends",
    "fluid_layout_width",
    "high_contrast_mode",
    "left_side_userlist",
    "starred_message_counts",
    "translate_emoticons",
    "twenty_four_hour_time",
    "web_home_view",
)
#: the legacy top-level notification settings (``update_global_notifications``)
NOTIFICATIONS_LEGACY = (
    "enable_desktop_notifications",
    "enable_digest_emails",
    "enable_login_emails",
    "enable_marketing_emails",
    "email_notifications_batching_period_seconds",
    "enable_offline_email_notifications",
    "enable_offline_push_notifications",
    "enable_online_push_notifications",
    "enable_sounds",
    "enable_stream_desktop_notifications",
    "enable_stream_email_notifications",
    "enable_stream_push_notifications",
    "enable_stream_audible_notifications",
    "message_content_in_email_notifications",
    "notification_sound",
    "pm_content_in_desktop_notifications",
    "desktop_icon_count_display",
    "presence_enabled",
    "wildcard_mentions_notify",
)

EMOJISET_CHOICES = [
    {"key": "google", "text": "Google"},
    {"key": "twitter", "text": "Twitter"},
    {"key": "text", "text": "Plain text"},
]


def _timezone(value: Any) -> str:
    if not isinstance(value, str) or (value and value not in _zones()):
        raise ApiError("Not a recognized time zone", var_name="timezone")
    return value


_ZONES: set[str] = set()


def _zones() -> set[str]:
    if not _ZONES:
        _ZONES.update(available_timezones())
        _ZONES.add("UTC")
    return _ZONES


def _stored(store: Store, user_id: int) -> dict[str, Any]:
    raw = store.scalar("SELECT settings FROM user_settings WHERE user_id = ?", [user_id])
    return {} if raw is None else dict(json.loads(raw))


def setting(store: Store, user_id: int, name: str) -> Any:
    """One setting of one person (its default when never changed)."""
    return _stored(store, user_id).get(name, SETTINGS[name][0])


def settings_of(store: Store, user: Row) -> dict[str, Any]:
    """Every setting of ``user`` with its current value (the ``user_settings`` object)."""
    stored = _stored(store, user["id"])
    out = {name: stored.get(name, default) for name, (default, _check) in SETTINGS.items()}
    out["timezone"] = user["timezone"]
    out["email_address_visibility"] = user["email_address_visibility"]
    return out


def user_settings_object(store: Store, user: Row) -> dict[str, Any]:
    """The ``user_settings`` block of ``POST /register``."""
    out = settings_of(store, user)
    out["emojiset_choices"] = EMOJISET_CHOICES
    out["available_notification_sounds"] = [s for s in NOTIFICATION_SOUNDS if s != "none"]
    return out


def legacy_display(store: Store, user: Row) -> dict[str, Any]:
    """The legacy top-level display settings (``update_display_settings`` block)."""
    values = settings_of(store, user)
    out = {name: values[name] for name in DISPLAY_LEGACY}
    out["emojiset_choices"] = EMOJISET_CHOICES
    out["timezone"] = user["timezone"]
    return out


def legacy_notifications(store: Store, user: Row) -> dict[str, Any]:
    """The legacy top-level notification settings (``update_global_notifications`` block)."""
    values = settings_of(store, user)
    out = {name: values[name] for name in NOTIFICATIONS_LEGACY}
    out["available_notification_sounds"] = [s for s in NOTIFICATION_SOUNDS if s != "none"]
    return out


def update_settings(store: Store, user: Row, changes: dict[str, Any]) -> dict[str, Any]:
    """``PATCH /settings``: check every value first, then store and announce the changed ones.

    ``full_name`` renames the person (unless the organization disabled name changes).
    """
    checked: dict[str, Any] = {}
    new_name = changes.get("full_name")
    if new_name is not None:
        new_name = user_admin.check_own_name(store, user, new_name)
    for name, value in changes.items():
        if name in SETTINGS:
            checked[name] = SETTINGS[name][1](name, value)
        elif name in ROW_SETTINGS:
            checked[name] = ROW_SETTINGS[name](name, value)
    with store.atomic():
        fresh = users.get_user(store, user["id"])
        assert fresh is not None
        current = settings_of(store, fresh)
        changed = {k: v for k, v in checked.items() if current[k] != v}
        if new_name is not None and new_name != fresh["full_name"]:
            user_admin.set_own_name(store, fresh, new_name)
        if not changed:
            return {}
        stored = _stored(store, user["id"])
        for name, value in changed.items():
            if name in ROW_SETTINGS:
                store.execute(f"UPDATE users SET {name} = ? WHERE id = ?", [value, user["id"]])
            else:
                stored[name] = value
        store.execute(
            "INSERT OR REPLACE INTO user_settings (user_id, settings) VALUES (?, ?)",
            [user["id"], json.dumps(stored)],
        )
        for name, value in changed.items():
            _announce(store, fresh, name, value)
    return {}


def _announce(store: Store, user: Row, name: str, value: Any) -> None:
    bus = event_bus(store)
    event: dict[str, Any] = {"type": "user_settings", "op": "update", "property": name}
    event["value"] = value
    if name == "default_language":
        event["language_name"] = LANGUAGES[value]
    bus.publish(event, [user["id"]])
    if name == "allow_private_data_export":  # the administrators see who consents
        admins = store.query(
            "SELECT id FROM users WHERE is_active = 1 AND is_bot = 0 AND role <= ?",
            [realm_mod.ROLE_ADMIN],
        )
        bus.publish(
            {"type": "realm_export_consent", "user_id": user["id"], "consented": value},
            [int(a["id"]) for a in admins],
        )
    email = users.api_email(store, user)
    if name in DISPLAY_LEGACY or name == "timezone":
        legacy: dict[str, Any] = {
            "type": "update_display_settings",
            "user": email,
            "setting_name": name,
            "setting": value,
        }
        if name == "default_language":
            legacy["language_name"] = LANGUAGES[value]
        bus.publish_each([user["id"]], "update_display_settings", _unless_capable(legacy))
    elif name in NOTIFICATIONS_LEGACY:
        legacy = {
            "type": "update_global_notifications",
            "user": email,
            "notification_name": name,
            "setting": value,
        }
        bus.publish_each([user["id"]], "update_global_notifications", _unless_capable(legacy))


def _unless_capable(event: dict[str, Any]) -> Callable[[EventQueue], dict[str, Any] | None]:
    def make(queue: EventQueue) -> dict[str, Any] | None:
        return None if queue.client_capabilities.get("user_settings_object") else event

    return make


# -- the organization's settings for new users ---------------------------------------------------
#: what ``PATCH /realm/user_settings_defaults`` changes: the personal preferences, not the
#: settings of one person's identity or account (language, login and marketing emails, data
#: export consent), as the 10.2 description lists them
DEFAULTS_SETTINGS: tuple[str, ...] = (
    *(
        name
        for name in SETTINGS
        if name
        not in (
            "default_language",
            "enable_marketing_emails",
            "enable_login_emails",
            "allow_private_data_export",
        )
    ),
    "email_address_visibility",
)


def _stored_defaults(store: Store) -> dict[str, Any]:
    raw = store.scalar("SELECT settings FROM realm_user_defaults WHERE id = 1")
    return {} if raw is None else dict(json.loads(raw))


def realm_defaults(store: Store) -> dict[str, Any]:
    """The ``realm_user_settings_defaults`` block of ``POST /register``: every personal setting
    a new user starts with, and the choices offered for the emoji set and sounds."""
    stored = _stored_defaults(store)
    out = {name: stored.get(name, default) for name, (default, _check) in SETTINGS.items()}
    out["email_address_visibility"] = stored.get(
        "email_address_visibility", users.EMAIL_VISIBLE_EVERYONE
    )
    out["emojiset_choices"] = EMOJISET_CHOICES
    out["available_notification_sounds"] = [s for s in NOTIFICATION_SOUNDS if s != "none"]
    return out


def update_realm_defaults(store: Store, user: Row, changes: dict[str, Any]) -> None:
    """``PATCH /realm/user_settings_defaults``: administrators change what new users start with.

    Every value is checked first, as ``PATCH /settings`` checks it, so a refused one changes
    nothing; each value that differs is announced to everyone as a
    ``realm_user_settings_defaults`` event. People who already have an account keep theirs.

    Args:
        store: the organization.
        user: who asks (an administrator).
        changes: setting name -> new value, names from :data:`DEFAULTS_SETTINGS`.
    """
    checked: dict[str, Any] = {}
    for name, value in changes.items():
        check = ROW_SETTINGS[name] if name in ROW_SETTINGS else SETTINGS[name][1]
        checked[name] = check(name, value)
    with store.atomic():
        current = realm_defaults(store)
        changed = {k: v for k, v in checked.items() if current[k] != v}
        if not changed:
            return
        stored = _stored_defaults(store) | changed
        store.execute(
            "INSERT OR REPLACE INTO realm_user_defaults (id, settings) VALUES (1, ?)",
            [json.dumps(stored)],
        )
        everyone = [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]
        for name, value in changed.items():
            event_bus(store).publish(
                {
                    "type": "realm_user_settings_defaults",
                    "op": "update",
                    "property": name,
                    "value": value,
                },
                everyone,
            )
