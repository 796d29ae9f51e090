"""What the newer operations send has the description's shapes (``additionalProperties:
false`` included): the ``realm_playgrounds``, ``realm_user_settings_defaults`` and
``first_message_id`` events as ``GET /events`` answers them, the two register blocks, and
``DELETE /users/me``'s refusal (an operation the conformance run leaves out: it would
deactivate the account the run uses)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from chatops.sandbox import Sandbox
from tests.sandbox.conformance import SKIP_WITHOUT_SPEC
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import post, raw, stream_id
from tests.sandbox.users.test_user_record_shapes import validate

pytestmark = pytest.mark.skipif(**SKIP_WITHOUT_SPEC)

JSON = "application/json"


def _events_answer(queue: Queue) -> dict[str, Any]:
    r = queue.http.get(
        "/events",
        params={
            "queue_id": queue.queue_id,
            "last_event_id": queue.last_event_id,
            "dont_block": "true",
        },
    )
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def test_events_and_register_blocks(fresh_sandbox: Sandbox) -> None:
    queue = Queue(
        fresh_sandbox,
        "member",
        event_types=["realm_playgrounds", "realm_user_settings_defaults", "stream"],
    )
    try:
        status, _ = raw(
            fresh_sandbox,
            "admin",
            "POST",
            "/realm/playgrounds",
            name="Py",
            pygments_language="Python",
            url_template="https://p.test/?c={code}",
        )
        assert status == 200
        status, _ = raw(
            fresh_sandbox,
            "admin",
            "PATCH",
            "/realm/user_settings_defaults",
            emojiset="text",
            enter_sends="true",
            web_font_size_px="14",
        )
        assert status == 200
        fresh_sandbox.store.execute(
            "DELETE FROM messages WHERE stream_id = ?", [stream_id(fresh_sandbox, "general")]
        )
        post(fresh_sandbox, "member", "general", "first", "one")
        post(fresh_sandbox, "member", "general", "second", "two")
        status, _ = raw(
            fresh_sandbox,
            "admin",
            "POST",
            f"/streams/{stream_id(fresh_sandbox, 'general')}/delete_topic",
            topic_name="first",
        )
        assert status == 200
        body = _events_answer(queue)
        kinds = [(e["type"], e.get("property")) for e in body["events"]]
        assert ("realm_playgrounds", None) in kinds
        assert ("realm_user_settings_defaults", "web_font_size_px") in kinds
        assert ("stream", "first_message_id") in kinds
        validate(body, "paths", "/events", "get", "responses", "200", "content", JSON, "schema")
    finally:
        queue.close()
    acc = fresh_sandbox.accounts["guest"]
    r = httpx.post(
        f"{fresh_sandbox.site}/api/v1/register",
        data={"fetch_event_types": '["realm_playgrounds", "realm_user_settings_defaults"]'},
        auth=(acc.email, acc.api_key),
    )
    assert r.status_code == 200
    registered = r.json()
    assert registered["realm_playgrounds"] and registered["realm_user_settings_defaults"]
    validate(
        registered, "paths", "/register", "post", "responses", "200", "content", JSON, "schema"
    )


def test_the_last_owners_refusal(fresh_sandbox: Sandbox) -> None:
    status, body = raw(fresh_sandbox, "owner", "DELETE", "/users/me")
    assert status == 400 and body["code"] == "CANNOT_DEACTIVATE_LAST_USER"
    validate(body, "paths", "/users/me", "delete", "responses", "400", "content", JSON, "schema")
