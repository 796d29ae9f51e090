from __future__ import annotations

import hashlib
import warnings

import pytest

from chatops import NOT_GIVEN, ApiError, BadRequest, IgnoredParametersWarning, LimitError
from chatops._base_client import check_length, content_sha256, decode_response, encode_params
from chatops.types import EditResult, MessagesPage, SendResult, UploadResult, User


@pytest.mark.parametrize(
    ("value", "wire"),
    [
        ("plain text", "plain text"),
        ("", ""),
        ('{"looks": "json"}', '{"looks": "json"}'),
        (True, "true"),
        (False, "false"),
        (42, "42"),
        (None, "null"),
        ([1, 2], "[1,2]"),
        (["a@x.org"], '["a@x.org"]'),
        ({"new": 5}, '{"new":5}'),
        (
            [{"operator": "channel", "operand": "general"}],
            '[{"operator":"channel","operand":"general"}]',
        ),
        ("✔ done", "✔ done"),
    ],
)
def test_encode_value(value: object, wire: str) -> None:
    assert encode_params({"p": value}) == {"p": wire}


def test_encode_drops_not_given() -> None:
    assert encode_params({"a": NOT_GIVEN, "b": 1, "c": None}) == {"b": "1", "c": "null"}
    assert encode_params(None) == {}


def test_content_sha256_is_lowercase_hex_of_utf8() -> None:
    text = "héllo ✔"
    assert content_sha256(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert content_sha256(text) == content_sha256(text).lower()


def test_check_length() -> None:
    check_length("topic", "x" * 60, 60)
    check_length("topic", "x" * 999, None)
    with pytest.raises(
        LimitError, match="topic is 61 characters long; the server allows at most 60"
    ):
        check_length("topic", "x" * 61, 60)
    with pytest.raises(ValueError, match="file"):
        check_length("file", 11, 10, "bytes")


def _decode(body: bytes, cast: type, status: int = 200) -> object:
    return decode_response(status, {}, body, cast, endpoint="POST /messages", secret="SECRETKEY")


def test_decode_typed() -> None:
    result = _decode(b'{"result":"success","msg":"","id":12}', SendResult)
    assert result == SendResult(id=12)
    page = _decode(
        b'{"result":"success","msg":"","anchor":5,"found_anchor":true,"found_oldest":true,'
        b'"found_newest":false,"history_limited":false,"messages":[{"id":5,"type":"stream",'
        b'"sender_id":1,"subject":"t","display_recipient":"general","timestamp":1,'
        b'"reactions":[{"emoji_name":"smile","emoji_code":"1f604","reaction_type":"unicode_emoji",'
        b'"user_id":2}],"new_future_field":1},{"id":6,"type":"private","sender_id":1,'
        b'"display_recipient":[{"id":1,"email":"a@x","full_name":"A"}]}]}',
        MessagesPage,
    )
    assert isinstance(page, MessagesPage)
    assert page.messages[0].topic == "t" and page.messages[0].channel_name == "general"
    assert page.messages[0].reactions[0].emoji_code == "1f604"
    assert not isinstance(page.messages[1].display_recipient, str)


def test_decode_user_me_flat_and_hidden_email() -> None:
    user = _decode(
        b'{"result":"success","msg":"","user_id":3,"email":"u@x","full_name":"U",'
        b'"delivery_email":null,"role":400,"is_bot":false}',
        User,
    )
    assert isinstance(user, User) and user.delivery_email is None


def test_decode_upload_uri_only() -> None:
    result = _decode(b'{"result":"success","msg":"","uri":"/user_uploads/1/a/f.txt"}', UploadResult)
    assert isinstance(result, UploadResult) and result.url == "/user_uploads/1/a/f.txt"


def test_ignored_parameters_warn() -> None:
    with pytest.warns(IgnoredParametersWarning, match=r"POST /messages.*foo, bar"):
        _decode(
            b'{"result":"success","msg":"","detached_uploads":[],'
            b'"ignored_parameters_unsupported":["foo","bar"]}',
            EditResult,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _decode(b'{"result":"success","msg":"","detached_uploads":[]}', EditResult)


def test_error_body_becomes_exception() -> None:
    with pytest.raises(BadRequest, match="Invalid message"):
        _decode(
            b'{"result":"error","code":"BAD_REQUEST","msg":"Invalid message(s)"}', EditResult, 400
        )


def test_non_json_bodies() -> None:
    with pytest.raises(ApiError, match="not JSON") as info:
        _decode(b"<html>proxy</html>", EditResult)
    assert info.value.code == "INVALID_RESPONSE"
    with pytest.raises(ApiError, match="non-JSON body") as info2:
        _decode(b"<html>Bad gateway</html>", EditResult, 502)
    assert info2.value.status == 502


def test_secret_redacted_from_error_text() -> None:
    with pytest.raises(ApiError) as info:
        _decode(
            b'{"result":"error","code":"BAD_REQUEST","msg":"key SECRETKEY bad"}', EditResult, 400
        )
    assert "SECRETKEY" not in str(info.value)


def test_unexpected_shape() -> None:
    with pytest.raises(ApiError, match="unexpected shape"):
        _decode(b'{"result":"success","msg":"","id":"not-an-int"}', SendResult)
