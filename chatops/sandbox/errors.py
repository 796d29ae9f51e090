"""Errors raised by the sandbox's domain rules; the app renders them as the API envelope.

Domain modules know nothing of HTTP: they raise :class:`ApiError` with the API's ``code``,
the HTTP status the real server uses for it, and any extra fields of spec section 7.
"""

from __future__ import annotations

from typing import Any

#: the codes whose envelope has ``var_name`` (RequestVariableMissingError and
#: RequestVariableConversionError in zerver/lib/exceptions.py)
NAMES_THE_PARAMETER = frozenset({"REQUEST_VARIABLE_MISSING", "REQUEST_VARIABLE_INVALID"})


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
        extra = self.extra
        if "var_name" in extra and self.code not in NAMES_THE_PARAMETER:
            # the message names the parameter; only the request-variable errors carry it as a
            # field (the real server's data_fields), so a body never has a field its code lacks
            extra = {k: v for k, v in extra.items() if k != "var_name"}
        return {"result": "error", "msg": self.msg, "code": self.code, **extra}


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
