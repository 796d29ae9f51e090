"""Errors raised by the sandbox's domain rules; the app renders them as the API envelope.

Domain modules know nothing of HTTP: they raise :class:`ApiError` with the API's ``code``,
the HTTP status the real server uses for it, and any extra fields of spec section 7.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An API error: ``code``, ``msg``, HTTP ``status`` and the extra envelope fields."""

    def __init__(self, msg: str, *, code: str = "BAD_REQUEST", status: int = 400, **extra: Any):
        super().__init__(msg)
        self.msg = msg
        self.code = code
        self.status = status
        self.extra = extra
        self.headers: dict[str, str] = {}

    def envelope(self) -> dict[str, Any]:
        return {"result": "error", "msg": self.msg, "code": self.code, **self.extra}


def bad_request(msg: str, **extra: Any) -> ApiError:
    return ApiError(msg, **extra)


def not_found(msg: str) -> ApiError:
    """A missing resource that the real server reports with HTTP 404 and code BAD_REQUEST."""
    return ApiError(msg, status=404)


def missing_argument(name: str) -> ApiError:
    return ApiError(f"Missing '{name}' argument", code="REQUEST_VARIABLE_MISSING", var_name=name)


def invalid_argument(name: str, why: str = "") -> ApiError:
    msg = f"Invalid {name}" + (f": {why}" if why else "")
    return ApiError(msg, code="BAD_REQUEST", var_name=name)


def unauthorized(msg: str) -> ApiError:
    err = ApiError(msg, code="UNAUTHORIZED", status=401)
    err.headers["WWW-Authenticate"] = 'Basic realm="zulip"'
    return err
