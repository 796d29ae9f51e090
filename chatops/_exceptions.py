"""One error tree for the whole client, keyed by the API's ``code``.

::

    ChatopsError
     ├── ConfigError                       bad or missing credentials / zuliprc
     ├── LimitError (also ValueError)      input over a server limit, caught before sending
     ├── ResponseTooLarge                  an answer over the client's max_response_size
     ├── TransportError                    connection failed after the retries
     │    ├── Timeout                      no whole answer within the call's timeout
     │    └── UploadInterrupted            a resumable upload stopped; has ``upload_url``
     └── ApiError(code, msg, status, extra)
          ├── BadRequest                   BAD_REQUEST (400)
          │    ├── NotFound                BAD_REQUEST with HTTP 404
          │    └── PermissionDenied        BAD_REQUEST with HTTP 403
          ├── AuthenticationError          any HTTP 401 (UNAUTHORIZED, INVALID_API_KEY, ...)
          ├── RateLimited                  RATE_LIMIT_HIT / HTTP 429, has ``retry_after``
          ├── ServerError                  HTTP 5xx
          ├── ReactionDoesNotExist         REACTION_DOES_NOT_EXIST
          ├── ReactionAlreadyExists        REACTION_ALREADY_EXISTS
          ├── MoveMessagesTimeLimitExceeded  MOVE_MESSAGES_TIME_LIMIT_EXCEEDED
          ├── StreamWildcardMentionNotAllowed STREAM_WILDCARD_MENTION_NOT_ALLOWED
          ├── TopicWildcardMentionNotAllowed  TOPIC_WILDCARD_MENTION_NOT_ALLOWED
          ├── StreamDoesNotExist           STREAM_DOES_NOT_EXIST
          ├── UnauthorizedPrincipal        UNAUTHORIZED_PRINCIPAL
          ├── ExpectationMismatch          EXPECTATION_MISMATCH
          ├── CannotDeactivateGroupInUse   CANNOT_DEACTIVATE_GROUP_IN_USE
          ├── InvalidPushDeviceToken       INVALID_PUSH_DEVICE_TOKEN
          ├── InvalidRemotePushDeviceToken INVALID_REMOTE_PUSH_DEVICE_TOKEN
          ├── InvitationFailed             INVITATION_FAILED, has ``errors`` per address
          ├── CannotDeactivateLastUser     CANNOT_DEACTIVATE_LAST_USER
          ├── BadEventQueueId              BAD_EVENT_QUEUE_ID
          ├── BadNarrow                    BAD_NARROW
          ├── RequestVariableMissing       REQUEST_VARIABLE_MISSING
          ├── SystemGroupRequired          SYSTEM_GROUP_REQUIRED, has ``setting_name``
          └── CannotAdministerChannel      CANNOT_ADMINISTER_CHANNEL

    IgnoredParametersWarning (UserWarning) the server ignored some request parameters

The extra fields of an error body are attributes of the exception: ``e.objections``,
``e.first_message_id_allowed_to_move``, ``e.stream_id``, ``e.var_name``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "ApiError",
    "AuthenticationError",
    "BadEventQueueId",
    "BadNarrow",
    "BadRequest",
    "CannotAdministerChannel",
    "CannotDeactivateGroupInUse",
    "CannotDeactivateLastUser",
    "ChatopsError",
    "ConfigError",
    "ExpectationMismatch",
    "IgnoredParametersWarning",
    "InvalidPushDeviceToken",
    "InvalidRemotePushDeviceToken",
    "InvitationFailed",
    "LimitError",
    "MoveMessagesTimeLimitExceeded",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "ReactionAlreadyExists",
    "ReactionDoesNotExist",
    "RequestVariableMissing",
    "ResponseTooLarge",
    "ServerError",
    "StreamDoesNotExist",
    "StreamWildcardMentionNotAllowed",
    "SystemGroupRequired",
    "Timeout",
    "TopicWildcardMentionNotAllowed",
    "TransportError",
    "UnauthorizedPrincipal",
    "UploadInterrupted",
    "error_from_response",
]


class ChatopsError(Exception):
    """Base of every error raised by chatops."""


class ConfigError(ChatopsError):
    """Credentials or a zuliprc file are missing or malformed; the message names what."""


class LimitError(ChatopsError, ValueError):
    """An input exceeds a server limit; raised before anything is sent."""

    def __init__(self, param: str, limit: int, actual: int, unit: str = "characters") -> None:
        self.param = param
        self.limit = limit
        self.actual = actual
        super().__init__(f"{param} is {actual} {unit} long; the server allows at most {limit}")


class TransportError(ChatopsError):
    """The server could not be reached (after any retries)."""


class Timeout(TransportError):
    """No whole answer within the call's ``timeout``: every try, wait and byte counted."""


class ResponseTooLarge(ChatopsError):
    """An answer grew past the client's ``max_response_size``; reading stopped there."""

    def __init__(self, message: str, *, limit: int, size: int) -> None:
        super().__init__(message)
        self.limit = limit
        self.size = size


class UploadInterrupted(TransportError):
    """A resumable upload stopped; ``uploads.resume(e.upload_url, file)`` continues it."""

    def __init__(self, message: str, *, upload_url: str, offset: int) -> None:
        super().__init__(message)
        self.upload_url = upload_url
        self.offset = offset


class IgnoredParametersWarning(UserWarning):
    """The server ignored request parameters it does not support."""


class ApiError(ChatopsError):
    """The server answered with an error envelope.

    ``code`` and ``msg`` come from the body, ``status`` is the HTTP status and ``extra`` holds the
    remaining fields, which are also readable as attributes::

        try:
            client.messages.edit(42, topic="new", propagate_mode="change_all")
        except MoveMessagesTimeLimitExceeded as e:
            print(e.first_message_id_allowed_to_move)
    """

    def __init__(
        self, code: str, msg: str, status: int, extra: Mapping[str, Any] | None = None
    ) -> None:
        self.code = code
        self.msg = msg
        self.status = status
        self.extra: dict[str, Any] = dict(extra or {})
        super().__init__(f"{msg} (code {code}, HTTP {status})")

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails; guard against recursion during unpickling.
        if name.startswith("__") or name == "extra":
            raise AttributeError(name)
        try:
            return self.__dict__["extra"][name]
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__} has no attribute or extra field {name!r}"
            ) from None

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.msg, self.status, self.extra))


class BadRequest(ApiError):
    """BAD_REQUEST: invalid input or insufficient permission."""


class NotFound(BadRequest):
    """BAD_REQUEST answered with HTTP 404: the resource does not exist."""


class PermissionDenied(BadRequest):
    """BAD_REQUEST answered with HTTP 403: access denied."""


class AuthenticationError(ApiError):
    """HTTP 401 whatever the code: bad key, deactivated user or realm, wrong password."""


class RateLimited(ApiError):
    """RATE_LIMIT_HIT (HTTP 429); ``retry_after`` is the seconds to wait, if known."""

    @property
    def retry_after(self) -> float | None:
        value = self.extra.get("retry-after", self.extra.get("retry_after"))
        try:
            return None if value is None else float(value)
        except (TypeError, ValueError):
            return None


class ServerError(ApiError):
    """HTTP 5xx: the server failed."""


class ReactionDoesNotExist(ApiError):
    """REACTION_DOES_NOT_EXIST: removing a reaction that is not there."""


class ReactionAlreadyExists(ApiError):
    """REACTION_ALREADY_EXISTS: adding a reaction the user already made."""


class MoveMessagesTimeLimitExceeded(ApiError):
    """Part of the topic is older than the move time limit.

    Extra fields: ``first_message_id_allowed_to_move`` (int or None),
    ``total_messages_allowed_to_move``, ``total_messages_in_topic``.
    """


class StreamWildcardMentionNotAllowed(ApiError):
    """STREAM_WILDCARD_MENTION_NOT_ALLOWED."""


class TopicWildcardMentionNotAllowed(ApiError):
    """TOPIC_WILDCARD_MENTION_NOT_ALLOWED."""


class StreamDoesNotExist(ApiError):
    """STREAM_DOES_NOT_EXIST; extra ``stream_id`` or ``stream``."""


class UnauthorizedPrincipal(ApiError):
    """UNAUTHORIZED_PRINCIPAL: the role does not allow the operation."""


class ExpectationMismatch(ApiError):
    """EXPECTATION_MISMATCH: an ``old`` value or ``prev_content_sha256`` did not match."""


class CannotDeactivateGroupInUse(ApiError):
    """CANNOT_DEACTIVATE_GROUP_IN_USE; extra ``objections`` lists what uses the group."""


class InvalidPushDeviceToken(ApiError):
    """INVALID_PUSH_DEVICE_TOKEN: the device is unknown to the server."""


class InvalidRemotePushDeviceToken(ApiError):
    """INVALID_REMOTE_PUSH_DEVICE_TOKEN: the device is unknown to the push bouncer."""


class InvitationFailed(ApiError):
    """INVITATION_FAILED: some addresses were refused.

    Extra fields: ``errors`` (``[email, reason, is_deactivated]`` per refused address),
    ``sent_invitations`` (whether the other addresses were invited).
    """


class CannotDeactivateLastUser(ApiError):
    """CANNOT_DEACTIVATE_LAST_USER; extra ``is_last_owner`` and ``entity``."""


class BadEventQueueId(ApiError):
    """BAD_EVENT_QUEUE_ID: the event queue expired or never existed."""


class BadNarrow(ApiError):
    """BAD_NARROW: the narrow is invalid."""


class RequestVariableMissing(ApiError):
    """REQUEST_VARIABLE_MISSING; extra ``var_name`` names the parameter."""


class SystemGroupRequired(ApiError):
    """SYSTEM_GROUP_REQUIRED: the setting takes only a system group; extra ``setting_name``."""


class CannotAdministerChannel(ApiError):
    """CANNOT_ADMINISTER_CHANNEL: the caller may not change this channel's settings."""


_BY_CODE: dict[str, type[ApiError]] = {
    "RATE_LIMIT_HIT": RateLimited,
    "REACTION_DOES_NOT_EXIST": ReactionDoesNotExist,
    "REACTION_ALREADY_EXISTS": ReactionAlreadyExists,
    "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED": MoveMessagesTimeLimitExceeded,
    "STREAM_WILDCARD_MENTION_NOT_ALLOWED": StreamWildcardMentionNotAllowed,
    "TOPIC_WILDCARD_MENTION_NOT_ALLOWED": TopicWildcardMentionNotAllowed,
    "STREAM_DOES_NOT_EXIST": StreamDoesNotExist,
    "UNAUTHORIZED_PRINCIPAL": UnauthorizedPrincipal,
    "EXPECTATION_MISMATCH": ExpectationMismatch,
    "CANNOT_DEACTIVATE_GROUP_IN_USE": CannotDeactivateGroupInUse,
    "INVALID_PUSH_DEVICE_TOKEN": InvalidPushDeviceToken,
    "INVALID_REMOTE_PUSH_DEVICE_TOKEN": InvalidRemotePushDeviceToken,
    "INVITATION_FAILED": InvitationFailed,
    "CANNOT_DEACTIVATE_LAST_USER": CannotDeactivateLastUser,
    "BAD_EVENT_QUEUE_ID": BadEventQueueId,
    "BAD_NARROW": BadNarrow,
    "REQUEST_VARIABLE_MISSING": RequestVariableMissing,
    "SYSTEM_GROUP_REQUIRED": SystemGroupRequired,
    "CANNOT_ADMINISTER_CHANNEL": CannotAdministerChannel,
    # Authentication failures keep their code; before feature level 76 they came with HTTP 403.
    "UNAUTHORIZED": AuthenticationError,
    "UNAUTHENTICATED_USER": AuthenticationError,
    "AUTHENTICATION_FAILED": AuthenticationError,
    "USER_DEACTIVATED": AuthenticationError,
    "REALM_DEACTIVATED": AuthenticationError,
    "INVALID_API_KEY": AuthenticationError,
    "PASSWORD_AUTH_DISABLED": AuthenticationError,
    "PASSWORD_RESET_REQUIRED": AuthenticationError,
}


def error_from_response(status: int, body: Mapping[str, Any] | None) -> ApiError:
    """Build the exception for an error response: by the body's ``code`` first, then status."""
    body = body or {}
    code = str(body.get("code") or "")
    msg = str(body.get("msg") or f"HTTP {status} error")
    extra = {k: v for k, v in body.items() if k not in ("result", "code", "msg")}
    cls: type[ApiError]
    if code in _BY_CODE:
        cls = _BY_CODE[code]
    elif status == 401:
        cls = AuthenticationError
    elif status == 429:
        cls = RateLimited
    elif status >= 500:
        cls = ServerError
    elif status == 404:
        cls = NotFound
    elif status == 403 and code in ("", "BAD_REQUEST"):
        cls = PermissionDenied
    elif code == "BAD_REQUEST" or (status == 400 and not code):
        cls = BadRequest
    else:
        cls = ApiError
    return cls(code or _default_code(status), msg, status, extra)


def _default_code(status: int) -> str:
    if status == 401:
        return "UNAUTHORIZED"
    if status == 429:
        return "RATE_LIMIT_HIT"
    if status >= 500:
        return "SERVER_ERROR"
    return "BAD_REQUEST"
