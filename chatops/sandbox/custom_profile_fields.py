"""Custom profile fields of the organization and the values users give them.

Administrators define the fields (``/realm/profile_fields``); users fill them in
(``/users/me/profile_data``), administrators for anyone (``PATCH /users/{id}``). Every change
of a field announces the whole list (``custom_profile_fields``); a changed value is a
``realm_user`` update.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from . import realm as realm_mod
from . import users
from .bus import event_bus
from .errors import ApiError
from .rendering import render
from .store import Row, Store

SHORT_TEXT, LONG_TEXT, SELECT, DATE, URL, USER, EXTERNAL_ACCOUNT, PRONOUNS = range(1, 9)
FIELD_TYPES = (SHORT_TEXT, LONG_TEXT, SELECT, DATE, URL, USER, EXTERNAL_ACCOUNT, PRONOUNS)
NAME_MAX_LENGTH = 40
HINT_MAX_LENGTH = 80
SHORT_VALUE_MAX_LENGTH = 50
LONG_VALUE_MAX_LENGTH = 500
MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS = 2
#: the external-account subtypes the server knows: (name, hint, url pattern)
DEFAULT_EXTERNAL_ACCOUNTS: dict[str, tuple[str, str, str]] = {
    "github": ("GitHub", "Enter your GitHub username", "https://github.com/%(username)s"),
    "twitter": ("Twitter", "Enter your Twitter username", "https://twitter.com/%(username)s"),
}


# -- records ------------------------------------------------------------------------------------
def field_record(row: Row) -> dict[str, Any]:
    """A field as ``GET /realm/profile_fields`` and register's ``custom_profile_fields`` give it."""
    record: dict[str, Any] = {
        "id": row["id"],
        "name": row["name"],
        "type": row["field_type"],
        "hint": row["hint"],
        "field_data": row["field_data"],
        "order": row["field_order"],
        "required": bool(row["required"]),
        "editable_by_user": bool(row["editable_by_user"]),
    }
    if row["display_in_profile_summary"]:
        record["display_in_profile_summary"] = True
    return record


def list_fields(store: Store) -> list[dict[str, Any]]:
    """Every field of the organization, in display order."""
    rows = store.query("SELECT * FROM custom_profile_fields ORDER BY field_order, id")
    return [field_record(r) for r in rows]


def _announce_fields(store: Store) -> None:
    ids = [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]
    event_bus(store).publish({"type": "custom_profile_fields", "fields": list_fields(store)}, ids)


def _field(store: Store, field_id: int) -> Row:
    row = store.one("SELECT * FROM custom_profile_fields WHERE id = ?", [field_id])
    if row is None:
        raise ApiError(f"Field id {field_id} not found.")
    return row


# -- checks of a field --------------------------------------------------------------------------
def _required_string(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ApiError(f"{name} is not a string")
    if not value.strip():
        raise ApiError(f"{name} cannot be blank.")
    return value


def _check_option(key: str, option: Any) -> str:
    """One choice of a list-of-options field; returns its text."""
    name = f'field_data["{key}"]'
    if not isinstance(option, dict):
        raise ApiError(f"{name} is not a dict")
    for part in ("text", "order"):
        if part not in option:
            raise ApiError(f"{part} key is missing from {name}")
        _required_string(f'{name}["{part}"]', option[part])
    extra = sorted(set(option) - {"text", "order"})
    if extra:
        raise ApiError(f"Unexpected arguments: {', '.join(extra)}")
    return str(option["text"])


def _check_field_data(field_type: int, field_data: Any) -> None:
    """The options of a list-of-options field, the subtype of an external account."""
    if not isinstance(field_data, dict):
        raise ApiError("field_data is not a dict", var_name="field_data")
    if field_type == SELECT:
        if len(field_data) < 1:
            raise ApiError("Field must have at least one choice.")
        texts: set[str] = set()
        for key, option in field_data.items():
            if not key.strip():
                raise ApiError("'value' cannot be blank.")
            texts.add(_check_option(key, option))
        if len(texts) != len(field_data):
            raise ApiError("Field must not have duplicate choices.")
    elif field_type == EXTERNAL_ACCOUNT:
        if "subtype" not in field_data:
            raise ApiError("subtype key is missing from field_data")
        for key, value in field_data.items():
            _required_string(f'field_data["{key}"]', value)
        subtype = field_data["subtype"]
        if subtype == "custom" and "url_pattern" not in field_data:
            raise ApiError("Custom external account must define URL pattern")
        if subtype != "custom" and subtype not in DEFAULT_EXTERNAL_ACCOUNTS:
            raise ApiError("Invalid external account type")
        pattern = field_data.get("url_pattern")
        if pattern:
            if pattern.count("%(username)s") != 1:
                raise ApiError("URL pattern must contain '%(username)s'.")
            parts = urlsplit(pattern.replace("%(username)s", "username"))
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ApiError("field_data['url_pattern'] is not a URL")


def _is_default_external(field_type: int, field_data: Any) -> bool:
    return (
        field_type == EXTERNAL_ACCOUNT
        and isinstance(field_data, dict)
        and field_data.get("subtype") != "custom"
    )


def _check_name_and_hint(name: str, hint: str) -> None:
    if not name.strip():
        raise ApiError("Label cannot be blank.")
    if len(hint) > HINT_MAX_LENGTH:
        raise ApiError(f"hint is too long (limit: {HINT_MAX_LENGTH} characters)")
    if len(name) > NAME_MAX_LENGTH:
        raise ApiError(f"name is too long (limit: {NAME_MAX_LENGTH} characters)")


def _check_summary(store: Store, field_type: int, summary: bool, field_id: int | None) -> None:
    if not summary:
        return
    shown = store.scalar(
        "SELECT count(*) FROM custom_profile_fields WHERE display_in_profile_summary = 1 "
        "AND id != ?",
        [field_id or 0],
    )
    if int(shown) >= MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS:
        raise ApiError("Only 2 custom profile fields can be displayed in the profile summary.")
    if field_type in (LONG_TEXT, USER):
        raise ApiError("Field type not supported for display in profile summary.")


def _check_unique_name(store: Store, name: str, field_id: int | None) -> None:
    if store.one(
        "SELECT 1 FROM custom_profile_fields WHERE name = ? AND id != ?", [name, field_id or 0]
    ):
        raise ApiError("A field with that label already exists.")


# -- administering fields -----------------------------------------------------------------------
def create_field(
    store: Store,
    user: Row,
    *,
    field_type: int,
    name: str = "",
    hint: str = "",
    field_data: Any = None,
    display_in_profile_summary: bool = False,
    required: bool = False,
    editable_by_user: bool = True,
) -> int:
    """``POST /realm/profile_fields`` (administrators); returns the new field's id."""
    name = name.strip()
    data = {} if field_data is None else field_data
    with store.atomic():
        _check_summary(store, field_type, display_in_profile_summary, None)
        _check_field_data(field_type, data)
        if _is_default_external(field_type, data):
            name, hint, _ = DEFAULT_EXTERNAL_ACCOUNTS[data["subtype"]]
            data = {"subtype": data["subtype"]}
        else:
            _check_name_and_hint(name, hint)
        if field_type not in FIELD_TYPES:
            raise ApiError("Invalid field type.")
        _check_unique_name(store, name, None)
        field_id = store.insert(
            "custom_profile_fields",
            {
                "name": name,
                "field_type": field_type,
                "hint": hint,
                "field_data": json.dumps(data) if field_type in (SELECT, EXTERNAL_ACCOUNT) else "",
                "display_in_profile_summary": int(display_in_profile_summary),
                "required": int(required),
                "editable_by_user": int(editable_by_user),
            },
        )
        store.execute(
            "UPDATE custom_profile_fields SET field_order = ? WHERE id = ?", [field_id, field_id]
        )
        _announce_fields(store)
    return field_id


def update_field(
    store: Store,
    user: Row,
    field_id: int,
    *,
    name: str | None = None,
    hint: str | None = None,
    field_data: Any = None,
    display_in_profile_summary: bool | None = None,
    required: bool | None = None,
    editable_by_user: bool | None = None,
) -> None:
    """``PATCH /realm/profile_fields/{field_id}`` (administrators)."""
    with store.atomic():
        field = _field(store, field_id)
        field_type = int(field["field_type"])
        if display_in_profile_summary:
            _check_summary(store, field_type, True, field_id)
        current_data = json.loads(field["field_data"]) if field["field_data"] else {}
        name = name.strip() if name is not None else None
        if _is_default_external(field_type, current_data) and (
            (name is not None and name != field["name"])
            or (hint is not None and hint != field["hint"])
            or (field_data is not None and field_data != current_data)
        ):
            raise ApiError("Default custom field cannot be updated.")
        new_name = field["name"] if name is None else name
        new_hint = field["hint"] if hint is None else hint
        new_data = current_data if field_data is None else field_data
        _check_field_data(field_type, new_data)
        if not _is_default_external(field_type, new_data):
            _check_name_and_hint(new_name, new_hint)
        _check_unique_name(store, new_name, field_id)
        if field_type == SELECT and field_data is not None:
            removed = set(current_data) - set(field_data)
            for key in removed:  # values naming a removed option go with it
                store.execute(
                    "DELETE FROM custom_profile_values WHERE field_id = ? AND value = ?",
                    [field_id, key],
                )
        changes: dict[str, Any] = {"name": new_name, "hint": new_hint}
        if field_type in (SELECT, EXTERNAL_ACCOUNT):
            changes["field_data"] = json.dumps(new_data)
        for column, value in (
            ("display_in_profile_summary", display_in_profile_summary),
            ("required", required),
            ("editable_by_user", editable_by_user),
        ):
            if value is not None:
                changes[column] = int(value)
        assignments = ", ".join(f"{k} = ?" for k in changes)
        store.execute(
            f"UPDATE custom_profile_fields SET {assignments} WHERE id = ?",
            [*changes.values(), field_id],
        )
        _announce_fields(store)


def reorder_fields(store: Store, user: Row, order: list[int]) -> None:
    """``PATCH /realm/profile_fields``: every field's id, in the new order."""
    position = {field_id: i for i, field_id in enumerate(order)}
    with store.atomic():
        ids = [int(r["id"]) for r in store.query("SELECT id FROM custom_profile_fields")]
        if any(field_id not in position for field_id in ids):
            raise ApiError("Invalid order mapping.")
        for field_id in ids:
            store.execute(
                "UPDATE custom_profile_fields SET field_order = ? WHERE id = ?",
                [position[field_id], field_id],
            )
        _announce_fields(store)


def delete_field(store: Store, user: Row, field_id: int) -> None:
    """``DELETE /realm/profile_fields/{field_id}``: the field and every user's value for it."""
    with store.atomic():
        _field(store, field_id)
        store.execute("DELETE FROM custom_profile_values WHERE field_id = ?", [field_id])
        store.execute("DELETE FROM custom_profile_fields WHERE id = ?", [field_id])
        _announce_fields(store)


# -- users' values ------------------------------------------------------------------------------
def _text(name: str, value: Any, limit: int) -> str:
    if not isinstance(value, str):
        raise ApiError(f"{name} is not a string")
    if len(value) > limit:
        raise ApiError(f"{name} is too long (limit: {limit} characters)")
    return value


def _check_value(store: Store, field: Row, value: Any) -> str:
    """The value as stored (text), or BAD_REQUEST naming the field."""
    name = str(field["name"])
    field_type = int(field["field_type"])
    if field_type in (SHORT_TEXT, EXTERNAL_ACCOUNT, PRONOUNS):
        return _text(name, value, SHORT_VALUE_MAX_LENGTH)
    if field_type == LONG_TEXT:
        return _text(name, value, LONG_VALUE_MAX_LENGTH)
    if field_type == DATE:
        try:
            datetime.strptime(_text(name, value, SHORT_VALUE_MAX_LENGTH), "%Y-%m-%d")
        except ValueError:
            raise ApiError(f"{name} is not a date") from None
        return str(value)
    if field_type == URL:
        parts = urlsplit(_text(name, value, 2048))
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ApiError(f"{name} is not a URL")
        return str(value)
    if field_type == SELECT:
        choices = json.loads(field["field_data"] or "{}")
        if not isinstance(value, str) or value not in choices:
            raise ApiError(f"'{value}' is not a valid choice for '{name}'.")
        return value
    if not isinstance(value, list):
        raise ApiError(f"{name} is not a list")
    for i, user_id in enumerate(value):
        if not isinstance(user_id, int) or isinstance(user_id, bool):
            raise ApiError(f"{name}[{i}] is not an integer")
        target = users.get_user(store, user_id)
        if target is None or not target["is_active"] or target["is_system_bot"]:
            raise ApiError(f"Invalid user ID: {user_id}")
    return json.dumps(value)


def _check_items(data: Any) -> list[tuple[int, Any]]:
    if not isinstance(data, list):
        raise ApiError("data is not a list", var_name="data")
    out: list[tuple[int, Any]] = []
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            raise ApiError(f"data[{i}] is not a dict")
        for key in ("id", "value"):
            if key not in item:
                raise ApiError(f"{key} key is missing from data[{i}]")
        if set(item) - {"id", "value"}:
            raise ApiError(
                f"Unexpected arguments: {', '.join(sorted(set(item) - {'id', 'value'}))}"
            )
        if not isinstance(item["id"], int) or isinstance(item["id"], bool):
            raise ApiError(f"data[{i}]['id'] is not an integer")
        out.append((item["id"], item["value"]))
    return out


def _announce_value(store: Store, target: Row, field: Row, value: str | None) -> None:
    payload: dict[str, Any] = {"id": field["id"], "value": value}
    rendered = _rendered(field, value)
    if rendered:
        payload["rendered_value"] = rendered
    ids = [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]
    event_bus(store).publish(
        {
            "type": "realm_user",
            "op": "update",
            "person": {"user_id": target["id"], "custom_profile_field": payload},
        },
        ids,
    )


def _rendered(field: Row, value: str | None) -> str | None:
    if value is None or int(field["field_type"]) not in (SHORT_TEXT, LONG_TEXT):
        return None
    return render(value)


def update_values(
    store: Store, actor: Row, target: Row, data: Any, *, empty_removes: bool = False
) -> None:
    """Set ``target``'s values; ``data`` is ``[{"id": field_id, "value": ...}, ...]``.

    Users change their own fields that are ``editable_by_user``; administrators any field of
    anyone (and there an empty value removes it, as ``PATCH /users/{id}`` does).
    """
    if target["is_bot"]:
        raise ApiError("This endpoint does not accept bot requests.")
    items = _check_items(data)
    with store.atomic():
        checked: list[tuple[Row, str | None]] = []
        for field_id, value in items:
            field = _field(store, field_id)
            if not realm_mod.is_admin(actor) and not field["editable_by_user"]:
                raise ApiError(
                    "You are not allowed to change this field. Contact an administrator to "
                    "update it."
                )
            if empty_removes and (value is None or value == "" or value == []):
                checked.append((field, None))
            else:
                checked.append((field, _check_value(store, field, value)))
        for field, stored in checked:
            old = store.one(
                "SELECT value FROM custom_profile_values WHERE user_id = ? AND field_id = ?",
                [target["id"], field["id"]],
            )
            if stored is None:
                if old is None:
                    continue
                store.execute(
                    "DELETE FROM custom_profile_values WHERE user_id = ? AND field_id = ?",
                    [target["id"], field["id"]],
                )
            elif old is not None and old["value"] == stored:
                continue
            else:
                store.execute(
                    "INSERT OR REPLACE INTO custom_profile_values "
                    "(user_id, field_id, value, rendered_value) VALUES (?, ?, ?, ?)",
                    [target["id"], field["id"], stored, _rendered(field, stored)],
                )
            _announce_value(store, target, field, stored)


def remove_values(store: Store, user: Row, field_ids: list[int]) -> None:
    """``DELETE /users/me/profile_data``: clear the user's values of these fields."""
    if user["is_bot"]:
        raise ApiError("This endpoint does not accept bot requests.")
    with store.atomic():
        for field_id in field_ids:
            field = _field(store, field_id)
            if not realm_mod.is_admin(user) and not field["editable_by_user"]:
                raise ApiError(
                    "You are not allowed to change this field. Contact an administrator to "
                    "update it."
                )
            if store.one(
                "SELECT 1 FROM custom_profile_values WHERE user_id = ? AND field_id = ?",
                [user["id"], field_id],
            ):
                store.execute(
                    "DELETE FROM custom_profile_values WHERE user_id = ? AND field_id = ?",
                    [user["id"], field_id],
                )
                _announce_value(store, user, field, None)
