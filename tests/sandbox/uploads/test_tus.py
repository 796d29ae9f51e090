"""The tus 1.0 resumable upload endpoint (spec 4.23, 5.3, 8; facts 2.22), over raw HTTP."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest

from chatops.sandbox import Sandbox
from chatops.sandbox import uploads as uploads_mod
from tests.conftest import unchanged

TUS = {"Tus-Resumable": "1.0.0"}


def meta(**values: str) -> str:
    return ",".join(f"{k} {base64.b64encode(v.encode()).decode()}" for k, v in values.items())


@pytest.fixture
def http(sandbox: Sandbox) -> httpx.Client:
    acc = sandbox.accounts["member"]
    return httpx.Client(base_url=f"{sandbox.site}/api/v1", auth=(acc.email, acc.api_key))


def create(http: httpx.Client, length: int, **headers: str) -> httpx.Response:
    return http.post(
        "/tus",
        headers={
            **TUS,
            "Upload-Length": str(length),
            "Upload-Metadata": meta(filename="a.txt"),
            **headers,
        },
    )


def patch(http: httpx.Client, url: str, offset: int, data: bytes, **headers: Any) -> httpx.Response:
    return http.patch(
        url,
        content=data,
        headers={
            **TUS,
            "Upload-Offset": str(offset),
            "Content-Type": "application/offset+octet-stream",
            **headers,
        },
    )


def test_options_advertises_the_protocol(http: httpx.Client) -> None:
    r = http.options("/tus")
    assert r.status_code == 204
    assert r.headers["tus-version"] == "1.0.0" and r.headers["tus-resumable"] == "1.0.0"
    assert "creation" in r.headers["tus-extension"]
    assert int(r.headers["tus-max-size"]) == uploads_mod.max_upload_bytes()


def test_create_append_head_finish(http: httpx.Client, sandbox: Sandbox) -> None:
    r = create(http, 11)
    assert r.status_code == 201 and r.headers["tus-resumable"] == "1.0.0"
    url = r.headers["location"]
    assert url.startswith(f"{sandbox.site}/api/v1/tus/")
    assert http.head(url, headers=TUS).headers["upload-offset"] == "0"
    r = patch(http, url, 0, b"hello ")
    assert r.status_code == 204 and r.headers["upload-offset"] == "6"
    head = http.head(url, headers=TUS)
    assert (head.headers["upload-offset"], head.headers["upload-length"]) == ("6", "11")
    r = patch(http, url, 6, b"world")
    # the last PATCH answers as the real server's tusd does with Zulip's pre-finish hook:
    # 200 and the file's url and name (a bare tus 204 would not say where the file is)
    assert r.status_code == 200 and r.headers["upload-offset"] == "11"
    body = r.json()
    assert set(body) == {"url", "filename"}
    assert body["filename"] == "a.txt" and body["url"].startswith("/user_uploads/1/")
    att = sandbox.store.one(
        "SELECT * FROM attachments WHERE path_id = ?", [body["url"].removeprefix("/user_uploads/")]
    )
    assert att is not None and att["size"] == 11 and att["name"] == "a.txt"
    # finishing again is idempotent: same attachment
    again = patch(http, url, 11, b"")
    assert again.status_code == 200 and again.json()["url"] == body["url"]


def test_wrong_offset_is_a_conflict(http: httpx.Client, sandbox: Sandbox) -> None:
    url = create(http, 10).headers["location"]
    patch(http, url, 0, b"abc")
    with unchanged(sandbox.store):
        r = patch(http, url, 1, b"xyz")
    assert r.status_code == 409
    assert http.head(url, headers=TUS).headers["upload-offset"] == "3"


def test_patch_needs_the_tus_content_type(http: httpx.Client, sandbox: Sandbox) -> None:
    url = create(http, 10).headers["location"]
    with unchanged(sandbox.store):
        r = patch(http, url, 0, b"abc", **{"Content-Type": "application/octet-stream"})
    assert r.status_code == 415


def test_body_past_the_length_is_refused(http: httpx.Client, sandbox: Sandbox) -> None:
    url = create(http, 3).headers["location"]
    r = patch(http, url, 0, b"abcdef")
    assert r.status_code == 413
    assert (
        sandbox.store.scalar(
            "SELECT path_id FROM tus_uploads WHERE id = ?", [url.rsplit("/", 1)[1]]
        )
        is None
    )


def test_size_limit(http: httpx.Client, sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        r = create(http, uploads_mod.max_upload_bytes() + 1)
    assert r.status_code == 413
    assert "maximum upload size" in r.json()["msg"]


def test_missing_or_bad_headers(http: httpx.Client, sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        r = http.post("/tus", headers={"Upload-Length": "5"})
        assert r.status_code == 412 and r.headers["tus-version"] == "1.0.0"
        assert http.post("/tus", headers=TUS).status_code == 400
        assert create(http, 5, **{"Upload-Metadata": "filename !!!"}).status_code == 400


def test_needs_api_key_authentication(sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        r = httpx.post(f"{sandbox.site}/api/v1/tus", headers={**TUS, "Upload-Length": "5"})
    assert r.status_code == 401 and r.json()["code"] == "UNAUTHORIZED"


def test_another_users_upload_does_not_exist_for_them(http: httpx.Client, sandbox: Sandbox) -> None:
    url = create(http, 5).headers["location"]
    other = sandbox.accounts["admin"]
    auth = (other.email, other.api_key)
    assert httpx.head(url, headers=TUS, auth=auth).status_code == 404
    with unchanged(sandbox.store):
        r = httpx.patch(
            url,
            content=b"12345",
            auth=auth,
            headers={
                **TUS,
                "Upload-Offset": "0",
                "Content-Type": "application/offset+octet-stream",
            },
        )
    assert r.status_code == 404
