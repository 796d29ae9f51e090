"""Spec 4.23 (upload a file), serving rules and attachments."""

from __future__ import annotations

from pathlib import Path

import httpx

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import realm as realm_mod
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error


def raw_file(sandbox: Sandbox, account: str, url: str) -> httpx.Response:
    acc = sandbox.accounts[account]
    return httpx.get(sandbox.site + url, auth=(acc.email, acc.api_key))


def test_upload_sanitizes_name_and_returns_url_uri_filename(
    member: chatops.Client, tmp_path: Path
) -> None:
    path = tmp_path / "weird name [v2] (final).txt"
    path.write_bytes(b"data")
    result = member.uploads.upload(path)
    assert result.url == result.uri
    assert result.url.startswith("/user_uploads/1/")
    assert result.filename == "weird-name-v2-final.txt"
    assert result.url.endswith("/" + result.filename)


def test_only_the_uploader_until_shared(
    member: chatops.Client, sandbox: Sandbox, tmp_path: Path
) -> None:
    path = tmp_path / "plan.txt"
    path.write_bytes(b"the plan")
    result = member.uploads.upload(path)
    assert raw_file(sandbox, "member", result.url).content == b"the plan"
    assert raw_file(sandbox, "admin", result.url).status_code == 403
    admin = chatops.Client.from_zuliprc(sandbox.zuliprc("admin"))
    with api_error("BAD_REQUEST", 403):
        admin.uploads.download(result.url)
    # A direct message to the admin shares it with the admin, not with the guest.
    member.messages.send_direct([sandbox.accounts["admin"].user_id], f"[plan]({result.url})")
    assert admin.uploads.download(result.url) == b"the plan"
    assert raw_file(sandbox, "guest", result.url).status_code == 403


def test_shared_in_a_public_channel(
    member: chatops.Client, sandbox: Sandbox, tmp_path: Path
) -> None:
    path = tmp_path / "public.txt"
    path.write_bytes(b"everyone")
    result = member.uploads.upload(path)
    member.messages.send_to_channel("general", "files", f"[public.txt]({result.url})")
    assert raw_file(sandbox, "moderator", result.url).content == b"everyone"


def test_size_limit(sandbox: Sandbox, member: chatops.Client) -> None:
    acc = sandbox.accounts["member"]
    too_big = b"x" * (realm_mod.LIMITS["max_file_upload_size_mib"] * 1024 * 1024 + 1)
    with unchanged(sandbox.store):
        r = httpx.post(
            f"{sandbox.site}/api/v1/user_uploads",
            files={"file": ("big.bin", too_big)},
            auth=(acc.email, acc.api_key),
        )
    assert r.status_code == 400
    assert "maximum upload size" in r.json()["msg"]


def test_one_file_per_request(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["member"]
    with unchanged(sandbox.store):
        none = httpx.post(
            f"{sandbox.site}/api/v1/user_uploads", data={"a": "b"}, auth=(acc.email, acc.api_key)
        )
        two = httpx.post(
            f"{sandbox.site}/api/v1/user_uploads",
            files=[("a", ("a.txt", b"1")), ("b", ("b.txt", b"2"))],
            auth=(acc.email, acc.api_key),
        )
    assert none.status_code == 400 and none.json()["msg"] == "You must specify a file to upload"
    assert two.status_code == 400 and two.json()["msg"] == "You may only upload one file at a time"


def test_attachments_list_and_delete(
    member: chatops.Client, sandbox: Sandbox, tmp_path: Path
) -> None:
    path = tmp_path / "listed.txt"
    path.write_bytes(b"12345")
    result = member.uploads.upload(path)
    mid = member.messages.send_to_channel("general", "files", f"[listed]({result.url})").id
    listed = {a.path_id: a for a in member.uploads.attachments()}
    att = listed[result.url.removeprefix("/user_uploads/")]
    assert att.size == 5 and [m.id for m in att.messages] == [mid]
    admin = chatops.Client.from_zuliprc(sandbox.zuliprc("admin"))
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        admin.uploads.delete_attachment(att.id)
    member.uploads.delete_attachment(att.id)
    assert att.path_id not in {a.path_id for a in member.uploads.attachments()}
    assert raw_file(sandbox, "member", result.url).status_code == 403


def _upload_raw(sandbox: Sandbox, name: str, data: bytes, content_type: str) -> str:
    acc = sandbox.accounts["member"]
    r = httpx.post(
        f"{sandbox.site}/api/v1/user_uploads",
        files={"file": (name, data, content_type)},
        auth=(acc.email, acc.api_key),
    )
    assert r.status_code == 200, r.text
    url: str = r.json()["url"]
    return url


def _temporary(sandbox: Sandbox, url: str) -> httpx.Response:
    acc = sandbox.accounts["member"]
    api = f"{sandbox.site}/api/v1{url}"
    link = httpx.get(api, auth=(acc.email, acc.api_key)).json()["url"]
    return httpx.get(sandbox.site + link)


def test_uploaded_html_and_svg_are_downloads_never_pages(sandbox: Sandbox) -> None:
    script = b"<script>alert(document.cookie)</script>"
    for name, ctype in (("x.html", "text/html"), ("x.svg", "image/svg+xml"), ("x.js", "")):
        url = _upload_raw(sandbox, name, script, ctype or "application/javascript")
        for r in (raw_file(sandbox, "member", url), _temporary(sandbox, url)):
            assert r.status_code == 200 and r.content == script
            assert r.headers["content-type"] == "application/octet-stream"
            assert r.headers["content-disposition"].startswith("attachment")
            assert r.headers["x-content-type-options"] == "nosniff"
            assert "default-src 'none'" in r.headers["content-security-policy"]


def test_images_and_text_stay_inline_with_nosniff_and_csp(sandbox: Sandbox) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
    for name, data, ctype in (("a.png", png, "image/png"), ("a.txt", b"hi", "text/plain")):
        url = _upload_raw(sandbox, name, data, ctype)
        for r in (raw_file(sandbox, "member", url), _temporary(sandbox, url)):
            assert r.headers["content-type"].startswith(ctype)
            assert r.headers["content-disposition"].startswith("inline")
            assert r.headers["x-content-type-options"] == "nosniff"
            assert "script-src" not in r.headers["content-security-policy"]
