"""HTTP handlers of the messages area. Messages: send, fetch, edit and move, delete, reactions, topics, mark as read (spec 4.1, 4.5, 4.9, 4.10)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import (
    edit_history,
    message_delete,
    message_edit,
    message_fetch,
    message_flags,
    messages,
    reactions,
    topics,
)
from ..errors import ApiError
from ..params import (
    MISSING,
    P,
    Params,
    boolean,
    choice,
    int_list,
    integer,
    json_list,
    json_value,
    message_text,
    text,
)
from ..state import SandboxState
from ..store import Row
from ._http import API, endpoint, json_response, since

SEND_SPEC = {
    "type": P(choice("direct", "private", "stream", "channel"), required=True),
    "to": P(required=True),
    "content": P(message_text, required=True),
    "topic": P(message_text, default=None),
    "queue_id": P(),
    "local_id": P(),
    "read_by_sender": P(boolean, default=True),
}


@endpoint(SEND_SPEC, aliases={"subject": "topic"})
def send_message(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    client = request.headers.get("user-agent", "API").split("/")[0] or "API"
    message_id = messages.send_message(
        state.store,
        user,
        message_type=p["type"],
        to=p["to"],
        content=p["content"],
        topic=p["topic"],
        client=client[:30],
        read_by_sender=p["read_by_sender"],
    )
    return {"id": message_id}


def _anchor(name: str, raw: str) -> str | int:
    if raw in ("newest", "oldest", "first_unread"):
        return raw
    try:
        return integer(name, raw)
    except ApiError:
        raise ApiError(f"Invalid anchor: {raw}", var_name=name) from None


GET_MESSAGES_SPEC = {
    "anchor": P(_anchor, default=MISSING),
    "include_anchor": P(boolean, default=True),
    "num_before": P(integer, default=0),
    "num_after": P(integer, default=0),
    "narrow": P(json_value, default=None),
    "message_ids": P(int_list, default=None),
    "client_gravatar": P(boolean, default=True),
    "apply_markdown": P(boolean, default=True),
    "allow_empty_topic_name": P(boolean, default=False),
    "use_first_unread_anchor": P(boolean, default=False),
}


#: pages from this many messages are built in a read worker process, when the sandbox has them
WORKER_PAGE = 1000


def _large_page(p: Params) -> bool:
    return bool(p["num_before"] + p["num_after"] >= WORKER_PAGE)


@endpoint(GET_MESSAGES_SPEC, in_worker=_large_page)
def get_messages(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    anchor = p["anchor"]
    if p["message_ids"] is not None and (
        anchor is not MISSING or p["num_before"] or p["num_after"]
    ):
        raise ApiError(
            "Unsupported parameter combination: num_before, num_after, anchor, message_ids"
        )
    if anchor is MISSING:
        anchor = "first_unread" if p["use_first_unread_anchor"] else "newest"
    result = message_fetch.fetch_messages(
        state.store,
        user,
        anchor=anchor,
        num_before=p["num_before"],
        num_after=p["num_after"],
        include_anchor=p["include_anchor"],
        narrow=p["narrow"],
        message_ids=p["message_ids"],
        apply_markdown=p["apply_markdown"],
        client_gravatar=p["client_gravatar"],
        allow_empty_topic_name=p["allow_empty_topic_name"],
    )
    if state.feature_level < 118:
        for record in result.get("messages", []):
            _old_edit_history(record)
    return result


def _old_edit_history(record: dict[str, Any]) -> None:
    """Before feature level 118: ``prev_subject`` instead of ``prev_topic``; no ``stream``/``topic``."""
    for entry in record.get("edit_history") or []:
        if "prev_topic" in entry:
            entry["prev_subject"] = entry.pop("prev_topic")
        entry.pop("topic", None)
        entry.pop("stream", None)


@endpoint(
    {
        "apply_markdown": P(boolean, default=True),
        "allow_empty_topic_name": P(boolean, default=False),
    }
)
def get_single_message(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return message_fetch.get_message(
        state.store,
        user,
        request.path_params["message_id"],
        apply_markdown=p["apply_markdown"],
        allow_empty_topic_name=p["allow_empty_topic_name"],
    )


@endpoint()
def delete_message(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    message_delete.delete_message(state.store, user, request.path_params["message_id"])
    return {}


@endpoint()
def read_receipts(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``GET /messages/{message_id}/read_receipts``."""
    assert user is not None
    ids = message_flags.read_receipts(state.store, user, request.path_params["message_id"])
    return {"user_ids": ids}


EDIT_SPEC = {
    "topic": P(message_text),
    "propagate_mode": P(choice(*message_edit.PROPAGATE_MODES), default="change_one"),
    "send_notification_to_old_thread": P(boolean, default=False),
    "send_notification_to_new_thread": P(boolean, default=True),
    "content": P(message_text),
    "prev_content_sha256": P(),
    "stream_id": P(integer),
}


@endpoint(EDIT_SPEC, aliases={"subject": "topic"})
def edit_message(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return message_edit.edit_message(
        state.store,
        user,
        request.path_params["message_id"],
        topic=p["topic"],
        content=p["content"],
        stream_id=p["stream_id"],
        propagate_mode=p["propagate_mode"],
        send_notification_to_old_thread=p["send_notification_to_old_thread"],
        send_notification_to_new_thread=p["send_notification_to_new_thread"],
        prev_content_sha256=p["prev_content_sha256"],
    )


REACTION_SPEC = {"emoji_name": P(), "emoji_code": P(), "reaction_type": P()}


@endpoint({**REACTION_SPEC, "emoji_name": P(required=True)})
def add_reaction(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    reactions.add_reaction(
        state.store,
        user,
        request.path_params["message_id"],
        emoji_name=p["emoji_name"],
        emoji_code=p.optional("emoji_code"),
        reaction_type=p.optional("reaction_type"),
    )
    return {}


@endpoint(REACTION_SPEC)
def remove_reaction(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    reactions.remove_reaction(
        state.store,
        user,
        request.path_params["message_id"],
        emoji_name=p.optional("emoji_name"),
        emoji_code=p.optional("emoji_code"),
        reaction_type=p.optional("reaction_type"),
    )
    return {}


@endpoint({"allow_empty_topic_name": P(boolean, default=False)})
def stream_topics(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return {
        "topics": topics.channel_topics(
            state.store,
            user,
            request.path_params["stream_id"],
            allow_empty_topic_name=p["allow_empty_topic_name"],
        )
    }


@endpoint()
def mark_all_as_read(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    assert user is not None
    budget = float(getattr(request.app.state, "mark_read_budget", 50.0))
    result = topics.mark_all_as_read(state.store, user, budget_seconds=budget)
    if state.feature_level < 211 and not result["complete"]:
        return json_response(
            {"result": "partially_completed", "msg": "", "code": "REQUEST_TIMEOUT"}
        )
    return result


@endpoint(
    {"messages": P(int_list, required=True), "op": P(required=True), "flag": P(required=True)}
)
def update_message_flags(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    result = message_flags.update_flags(
        state.store, user, p["messages"], op=p["op"], flag=p["flag"]
    )
    return _before_355(state, result)


def _before_355(state: SandboxState, result: dict[str, Any]) -> dict[str, Any]:
    """``ignored_because_not_subscribed_channels`` is new in feature level 355."""
    if state.feature_level < 355:
        result.pop("ignored_because_not_subscribed_channels", None)
    return result


FLAGS_NARROW_SPEC = {
    "anchor": P(_anchor, required=True),
    "include_anchor": P(boolean, default=True),
    "num_before": P(integer, required=True),
    "num_after": P(integer, required=True),
    "narrow": P(json_list, required=True),
    "op": P(required=True),
    "flag": P(required=True),
}


@endpoint(FLAGS_NARROW_SPEC)
def update_message_flags_for_narrow(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    since(state, 155)
    result = message_flags.update_flags_for_narrow(
        state.store,
        user,
        anchor=p["anchor"],
        include_anchor=p["include_anchor"],
        num_before=p["num_before"],
        num_after=p["num_after"],
        narrow=p["narrow"],
        op=p["op"],
        flag=p["flag"],
    )
    return _before_355(state, result)


@endpoint({"stream_id": P(integer, required=True)})
def mark_stream_as_read(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    message_flags.mark_channel_as_read(state.store, user, p["stream_id"])
    return {}


@endpoint({"stream_id": P(integer, required=True), "topic_name": P(text, required=True)})
def mark_topic_as_read(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    message_flags.mark_channel_as_read(state.store, user, p["stream_id"], p["topic_name"])
    return {}


@endpoint({"allow_empty_topic_name": P(boolean, default=False)})
def message_history(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    history = edit_history.message_history(
        state.store,
        user,
        request.path_params["message_id"],
        allow_empty_topic_name=p["allow_empty_topic_name"],
    )
    return {"message_history": history}


@endpoint({"content": P(text, required=True)})
def render_message(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return messages.render_message(state.store, user, p["content"])


@endpoint({"msg_ids": P(int_list, required=True), "narrow": P(json_list, required=True)})
def matches_narrow(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return message_fetch.matches_narrow(state.store, user, p["msg_ids"], p["narrow"])


ROUTES: list[Route] = [
    Route(f"{API}/users/me/{{stream_id:int}}/topics", stream_topics, methods=["GET"]),
    Route(f"{API}/messages", send_message, methods=["POST"]),
    Route(f"{API}/messages", get_messages, methods=["GET"]),
    Route(f"{API}/messages/{{message_id:int}}", get_single_message, methods=["GET"]),
    Route(f"{API}/messages/{{message_id:int}}", edit_message, methods=["PATCH"]),
    Route(f"{API}/messages/{{message_id:int}}", delete_message, methods=["DELETE"]),
    Route(f"{API}/messages/{{message_id:int}}/reactions", add_reaction, methods=["POST"]),
    Route(f"{API}/messages/{{message_id:int}}/reactions", remove_reaction, methods=["DELETE"]),
    Route(f"{API}/mark_all_as_read", mark_all_as_read, methods=["POST"]),
    Route(f"{API}/messages/flags", update_message_flags, methods=["POST"]),
    Route(f"{API}/messages/flags/narrow", update_message_flags_for_narrow, methods=["POST"]),
    Route(f"{API}/mark_stream_as_read", mark_stream_as_read, methods=["POST"]),
    Route(f"{API}/mark_topic_as_read", mark_topic_as_read, methods=["POST"]),
    Route(f"{API}/messages/{{message_id:int}}/history", message_history, methods=["GET"]),
    Route(f"{API}/messages/{{message_id:int}}/read_receipts", read_receipts, methods=["GET"]),
    Route(f"{API}/messages/render", render_message, methods=["POST"]),
    Route(f"{API}/messages/matches_narrow", matches_narrow, methods=["GET"]),
]
