from __future__ import annotations

import pickle
from typing import Any

import pytest

import chatops
from chatops import (
    ApiError,
    AuthenticationError,
    BadNarrow,
    BadRequest,
    CannotDeactivateGroupInUse,
    ExpectationMismatch,
    MoveMessagesTimeLimitExceeded,
    NotFound,
    PermissionDenied,
    RateLimited,
    ReactionAlreadyExists,
    ReactionDoesNotExist,
    RequestVariableMissing,
    ServerError,
    StreamDoesNotExist,
    UnauthorizedPrincipal,
)
from chatops._exceptions import error_from_response


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (400, "BAD_REQUEST", BadRequest),
        (404, "BAD_REQUEST", NotFound),
        (403, "BAD_REQUEST", PermissionDenied),
        (400, "REACTION_DOES_NOT_EXIST", ReactionDoesNotExist),
        (400, "REACTION_ALREADY_EXISTS", ReactionAlreadyExists),
        (400, "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED", MoveMessagesTimeLimitExceeded),
        (400, "STREAM_DOES_NOT_EXIST", StreamDoesNotExist),
        (400, "UNAUTHORIZED_PRINCIPAL", UnauthorizedPrincipal),
        (403, "UNAUTHORIZED_PRINCIPAL", UnauthorizedPrincipal),
        (400, "EXPECTATION_MISMATCH", ExpectationMismatch),
        (400, "CANNOT_DEACTIVATE_GROUP_IN_USE", CannotDeactivateGroupInUse),
        (400, "BAD_NARROW", BadNarrow),
        (400, "REQUEST_VARIABLE_MISSING", RequestVariableMissing),
        (401, "UNAUTHORIZED", AuthenticationError),
        (401, "INVALID_API_KEY", AuthenticationError),
        (401, "USER_DEACTIVATED", AuthenticationError),
        (401, "SOMETHING_NEW", AuthenticationError),
        (403, "INVALID_API_KEY", AuthenticationError),
        (429, "RATE_LIMIT_HIT", RateLimited),
        (429, "", RateLimited),
        (500, "", ServerError),
        (503, "SERVER_NOT_READY", ServerError),
        (400, "SOME_FUTURE_CODE", ApiError),
        (400, "", BadRequest),
    ],
)
def test_error_mapping(status: int, code: str, cls: type[ApiError]) -> None:
    body: dict[str, Any] = {"result": "error", "msg": "boom"}
    if code:
        body["code"] = code
    err = error_from_response(status, body)
    assert type(err) is cls
    assert err.status == status and err.msg == "boom"
    if code:
        assert err.code == code


def test_extra_fields_are_attributes() -> None:
    err = error_from_response(
        400,
        {
            "result": "error",
            "code": "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
            "msg": "too old",
            "first_message_id_allowed_to_move": None,
            "total_messages_allowed_to_move": 2,
            "total_messages_in_topic": 5,
        },
    )
    assert err.first_message_id_allowed_to_move is None
    assert err.total_messages_in_topic == 5
    with pytest.raises(AttributeError, match="no_such_field"):
        _ = err.no_such_field
    objections = [{"settings": ["can_mention_group"], "type": "realm"}]
    err = error_from_response(
        400, {"code": "CANNOT_DEACTIVATE_GROUP_IN_USE", "msg": "in use", "objections": objections}
    )
    assert err.objections == objections
    assert error_from_response(400, {"code": "REQUEST_VARIABLE_MISSING", "var_name": "to"}).var_name


def test_rate_limited_retry_after() -> None:
    err = error_from_response(429, {"code": "RATE_LIMIT_HIT", "msg": "x", "retry-after": 2.5})
    assert isinstance(err, RateLimited) and err.retry_after == 2.5


def test_errors_pickle() -> None:
    err = error_from_response(400, {"code": "STREAM_DOES_NOT_EXIST", "msg": "x", "stream_id": 9})
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is StreamDoesNotExist and back.stream_id == 9


def test_tree() -> None:
    assert issubclass(chatops.LimitError, ValueError)
    assert issubclass(chatops.LimitError, chatops.ChatopsError)
    assert issubclass(NotFound, BadRequest)
    for name in chatops.__all__:
        obj = getattr(chatops, name)
        if isinstance(obj, type) and issubclass(obj, Exception) and not issubclass(obj, Warning):
            assert issubclass(obj, chatops.ChatopsError), name
