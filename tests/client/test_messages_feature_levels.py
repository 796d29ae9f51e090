"""Spec 9 for messages, reactions, users, uploads and fetch_api_key: the client adapts to a
sandbox that reports an old feature level (117: before 118, 171, 193, 211, 229, 272, 285)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import topics as topics_mod
from tests.conftest import group_id, realm_settings, unchanged
from tests.sandbox.helpers import api_error, assert_error, fetch, raw

LEVEL = 117


@pytest.fixture(scope="module")
def old(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(
        tmp_path_factory.mktemp("old117"), size="small", seed=3, feature_level=LEVEL
    ) as sb:
        yield sb


@pytest.fixture
def old_member(old: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(old.zuliprc("member")) as client:
        yield client


def test_client_sees_the_old_level(old_member: chatops.Client) -> None:
    assert old_member.get_capabilities().feature_level == LEVEL


def test_edit_history_prev_subject_before_118(old_member: chatops.Client, old: Sandbox) -> None:
    mid = old_member.messages.send_to_channel("general", "old history", "x").id
    old_member.messages.edit(mid, topic="new history", send_notification_to_new_thread=False)
    _, body = raw(
        old,
        "member",
        "GET",
        "/messages",
        anchor=mid,
        num_before=0,
        num_after=0,
        apply_markdown="false",
    )
    entry = body["messages"][0]["edit_history"][0]
    assert entry["prev_subject"] == "old history"
    assert "prev_topic" not in entry and "topic" not in entry
    # The client presents it under the current name.
    assert fetch(old_member, mid).edit_history[0].prev_topic == "old history"


def test_fetch_api_key_without_user_id_before_171(old: Sandbox) -> None:
    acc = old.accounts["moderator"]
    result = chatops.fetch_api_key(old.site, acc.email, old.password("moderator"))
    assert result.api_key == acc.api_key and result.email == acc.email
    assert result.user_id is None


def test_missing_reaction_is_bad_request_before_193(
    old_member: chatops.Client, old: Sandbox
) -> None:
    mid = old_member.messages.send_to_channel("general", "old reactions", "x").id
    with unchanged(old.store), api_error("BAD_REQUEST"):
        old_member.messages.remove_reaction(mid, emoji_name="tada")


def test_wildcard_refusal_is_bad_request_before_229(
    old_member: chatops.Client, old: Sandbox
) -> None:
    mid = old_member.messages.send_to_channel("general", "old wildcards", "hello").id
    admins = group_id(old.store, "role:administrators")
    with realm_settings(old.store, can_mention_many_users_group=admins):
        with unchanged(old.store), api_error("BAD_REQUEST"):
            old_member.messages.edit(mid, content="hey @**all**")


def test_upload_gives_only_uri_before_272(
    old_member: chatops.Client, old: Sandbox, tmp_path: Path
) -> None:
    import httpx

    path = tmp_path / "old.txt"
    path.write_bytes(b"old data")
    acc = old.accounts["member"]
    body = httpx.post(
        f"{old.site}/api/v1/user_uploads",
        files={"file": ("old.txt", b"old data")},
        auth=(acc.email, acc.api_key),
    ).json()
    assert "url" not in body and "filename" not in body
    assert body["uri"].startswith("/user_uploads/")
    result = old_member.uploads.upload(path)
    assert result.url == result.uri and result.url.startswith("/user_uploads/")
    assert result.filename is None
    assert result.markdown == f"[{result.url.rsplit('/', 1)[-1]}]({result.url})"


def test_mark_all_partially_completed_before_211(
    old_member: chatops.Client, old: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = topics_mod.mark_all_as_read
    calls: list[int] = []

    def partial_first(store: Any, user: Any, *, budget_seconds: float) -> dict[str, bool]:
        calls.append(1)
        if len(calls) == 1:
            return {"complete": False}
        return real(store, user, budget_seconds=budget_seconds)

    monkeypatch.setattr(topics_mod, "mark_all_as_read", partial_first)
    status, body = raw(old, "member", "POST", "/mark_all_as_read")
    assert status == 200 and body["result"] == "partially_completed" and "code" in body
    calls.clear()
    old_member.messages.mark_all_as_read()
    assert len(calls) == 2, "the client repeats a partial run"
    assert topics_mod.unread_count(old.store, old.accounts["member"].user_id) == 0


def test_current_level_still_uses_new_codes(sandbox: Sandbox, member: chatops.Client) -> None:
    mid = member.messages.send_to_channel("general", "new reactions", "x").id
    assert_error(
        raw(sandbox, "member", "DELETE", f"/messages/{mid}/reactions", emoji_name="tada"),
        "REACTION_DOES_NOT_EXIST",
    )
