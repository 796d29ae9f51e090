"""Code playgrounds: where a code block's "View in playground" link goes, per language.

An administrator adds one with a name, the Pygments language of the code blocks it serves and
an RFC 6570 URL template whose only variable is ``code``; each change is announced to
everyone as a ``realm_playgrounds`` event carrying the whole list, as the real server does
(``zerver/actions/realm_playgrounds.py``).
"""

from __future__ import annotations

import re
from typing import Any

import uritemplate

from .bus import event_bus
from .errors import ApiError
from .store import Row, Store

__all__ = ["MAX_PYGMENTS_LANGUAGE_LENGTH", "add", "list_playgrounds", "remove"]

#: the longest language name (the real server's ``RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH``)
MAX_PYGMENTS_LANGUAGE_LENGTH = 40
#: what the request's language may hold (spaces included: the stored one may not hold them)
_REQUEST_LANGUAGE = re.compile(r"^[ a-zA-Z0-9_+\-./#]*$")
#: a language as code blocks name it
_LANGUAGE = re.compile(r"^[a-zA-Z0-9_+\-./#]+$")
_BLANK = "This field cannot be blank."
INVALID_LANGUAGE = "Invalid characters in pygments language"


def _record(row: Row) -> dict[str, Any]:
    return {
        "id": int(row["id"]),
        "name": row["name"],
        "pygments_language": row["pygments_language"],
        "url_template": row["url_template"],
    }


def list_playgrounds(store: Store) -> list[dict[str, Any]]:
    """The organization's playgrounds (the ``realm_playgrounds`` of ``POST /register``)."""
    return [_record(r) for r in store.query("SELECT * FROM realm_playgrounds ORDER BY id")]


def _announce(store: Store) -> None:
    ids = [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]
    event_bus(store).publish(
        {"type": "realm_playgrounds", "realm_playgrounds": list_playgrounds(store)}, ids
    )


def _template_errors(url_template: str) -> list[str]:
    """The URL template's field errors, then what the model's ``clean`` says of it."""
    if not url_template:
        return [_BLANK]
    try:
        if url_template.count("{") != url_template.count("}"):
            raise ValueError(url_template)
        variables = set(uritemplate.URITemplate(url_template).variable_names)
    except Exception:
        return ["Invalid URL template."]
    if "code" not in variables:
        return ['Missing the required variable "code" in the URL template']
    if len(variables) != 1:
        return ['"code" should be the only variable present in the URL template']
    return []


def _check(store: Store, name: str, language: str, url_template: str) -> None:
    """Every field error at once, the first one as the message (``ValidationFailureError``)."""
    errors: dict[str, list[str]] = {}
    template = _template_errors(url_template)
    if template and template[0] in (_BLANK, "Invalid URL template."):
        errors["url_template"] = template
    if not name:
        errors["name"] = [_BLANK]
    if not language:
        errors["pygments_language"] = [_BLANK]
    elif not _LANGUAGE.match(language):
        errors["pygments_language"] = [INVALID_LANGUAGE]
    if template and "url_template" not in errors:
        errors["__all__"] = template
    elif not errors and store.one(
        "SELECT 1 FROM realm_playgrounds WHERE pygments_language = ? AND name = ?",
        [language, name],
    ):
        errors["__all__"] = [
            "Realm playground with this Realm, Pygments language and Name already exists."
        ]
    if errors:
        first = next(iter(errors.values()))[0]
        raise ApiError(first, errors=errors)


def add(store: Store, user: Row, *, name: str, pygments_language: str, url_template: str) -> int:
    """``POST /realm/playgrounds``: administrators add a playground; returns its id.

    Args:
        store: the organization.
        user: who asks (an administrator).
        name: what people see when choosing a playground.
        pygments_language: the language of the code blocks it serves, at most 40 characters.
        url_template: an RFC 6570 template whose only variable is ``code``.

    Example:
        >>> add(store, admin, name="Python", pygments_language="Python",
        ...     url_template="https://python.example.com?code={code}")  # doctest: +SKIP
    """
    if len(pygments_language) > MAX_PYGMENTS_LANGUAGE_LENGTH:
        raise ApiError(
            f"pygments_language is too long (limit: {MAX_PYGMENTS_LANGUAGE_LENGTH} characters)"
        )
    if not _REQUEST_LANGUAGE.match(pygments_language):
        raise ApiError(INVALID_LANGUAGE)
    name, pygments_language = name.strip(), pygments_language.strip()
    url_template = url_template.strip()
    with store.atomic():
        _check(store, name, pygments_language, url_template)
        new_id = store.insert(
            "realm_playgrounds",
            {"name": name, "pygments_language": pygments_language, "url_template": url_template},
        )
        _announce(store)
    return new_id


def remove(store: Store, user: Row, playground_id: int) -> None:
    """``DELETE /realm/playgrounds/{playground_id}``: administrators remove a playground."""
    with store.atomic():
        if store.one("SELECT 1 FROM realm_playgrounds WHERE id = ?", [playground_id]) is None:
            raise ApiError("Invalid playground")
        store.execute("DELETE FROM realm_playgrounds WHERE id = ?", [playground_id])
        _announce(store)
