"""HTTP handlers of the personal area. Personal tools: navigation views, saved snippets, typing notifications (spec 4.11-4.14)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import (
    drafts,
    personal,
    typing_notifications,
)
from ..params import (
    P,
    Params,
    boolean,
    choice,
    integer,
    json_value,
)
from ..state import SandboxState
from ..store import Row
from ._http import API, endpoint
from ._http import me as _me
from ._http import path_int as _path_int
from ._http import since as _since


@endpoint({"fragment": P(required=True), "is_pinned": P(boolean, required=True), "name": P()})
def create_navigation_view(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    personal.create_view(
        state.store,
        _me(user),
        fragment=p["fragment"],
        is_pinned=p["is_pinned"],
        name=p.optional("name"),
    )
    return {}


@endpoint()
def list_navigation_views(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    return {"navigation_views": personal.list_views(state.store, _me(user))}


@endpoint({"is_pinned": P(boolean), "name": P()})
def update_navigation_view(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    personal.update_view(
        state.store,
        _me(user),
        request.path_params["fragment"],
        is_pinned=p.optional("is_pinned"),
        name=p.optional("name"),
    )
    return {}


@endpoint()
def delete_navigation_view(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    personal.delete_view(state.store, _me(user), request.path_params["fragment"])
    return {}


@endpoint({"title": P(required=True), "content": P(required=True)})
def create_snippet(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    snippet_id = personal.create_snippet(
        state.store, _me(user), title=p["title"], content=p["content"]
    )
    return {"saved_snippet_id": snippet_id}


@endpoint()
def list_snippets(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {"saved_snippets": personal.list_snippets(state.store, _me(user))}


@endpoint({"title": P(), "content": P()})
def update_snippet(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    personal.update_snippet(
        state.store,
        _me(user),
        _path_int(request, "snippet_id"),
        title=p.optional("title"),
        content=p.optional("content"),
    )
    return {}


@endpoint()
def delete_snippet(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    personal.delete_snippet(state.store, _me(user), _path_int(request, "snippet_id"))
    return {}


@endpoint(
    {
        "type": P(choice("direct", "private", "stream", "channel"), default="direct"),
        "op": P(required=True),
        "to": P(json_value, default=None),
        "stream_id": P(integer, default=None),
        "topic": P(default=None),
    }
)
def set_typing(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    to = p["to"]
    stream_id = p["stream_id"]
    if p["type"] in ("stream", "channel") and stream_id is None and to is not None:
        # before feature level 248 the channel went in ``to``
        to_list = to if isinstance(to, list) else [to]
        if len(to_list) == 1 and isinstance(to_list[0], int):
            stream_id = to_list[0]
    typing_notifications.send_typing(
        state.store,
        _me(user),
        op=p["op"],
        message_type=p["type"],
        to=to,
        stream_id=stream_id,
        topic=p["topic"],
    )
    return {}


@endpoint({"op": P(required=True)})
def set_edit_typing(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    _since(state, 361)
    typing_notifications.send_edit_typing(
        state.store, _me(user), _path_int(request, "message_id"), op=p["op"]
    )
    return {}


@endpoint({"op": P(required=True), "message_id": P(integer, required=True)})
def set_edit_typing_legacy(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    """The path before feature level 361, ``message_id`` in the body."""
    typing_notifications.send_edit_typing(state.store, _me(user), p["message_id"], op=p["op"])
    return {}


# -- alert words, drafts, muted users ------------------------------------------------------------
@endpoint()
def list_alert_words(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {"alert_words": personal.list_alert_words(state.store, _me(user))}


@endpoint({"alert_words": P(json_value, required=True)})
def add_alert_words(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {"alert_words": personal.add_alert_words(state.store, _me(user), p["alert_words"])}


@endpoint({"alert_words": P(json_value, required=True)})
def remove_alert_words(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {"alert_words": personal.remove_alert_words(state.store, _me(user), p["alert_words"])}


@endpoint()
def list_drafts(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    found = drafts.list_drafts(state.store, _me(user))
    return {"count": len(found), "drafts": found}


@endpoint({"drafts": P(json_value, default=[])})
def create_drafts(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {"ids": drafts.create_drafts(state.store, _me(user), p["drafts"])}


@endpoint({"draft": P(json_value, required=True)})
def edit_draft(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    drafts.edit_draft(state.store, _me(user), _path_int(request, "draft_id"), p["draft"])
    return {}


@endpoint()
def delete_draft(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    drafts.delete_draft(state.store, _me(user), _path_int(request, "draft_id"))
    return {}


@endpoint()
def mute_user(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    personal.mute_user(state.store, _me(user), _path_int(request, "muted_user_id"))
    return {}


@endpoint()
def unmute_user(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    personal.unmute_user(state.store, _me(user), _path_int(request, "muted_user_id"))
    return {}


ROUTES: list[Route] = [
    Route(f"{API}/navigation_views", create_navigation_view, methods=["POST"]),
    Route(f"{API}/navigation_views", list_navigation_views, methods=["GET"]),
    Route(f"{API}/navigation_views/{{fragment:path}}", update_navigation_view, methods=["PATCH"]),
    Route(f"{API}/navigation_views/{{fragment:path}}", delete_navigation_view, methods=["DELETE"]),
    Route(f"{API}/saved_snippets", create_snippet, methods=["POST"]),
    Route(f"{API}/saved_snippets", list_snippets, methods=["GET"]),
    Route(f"{API}/saved_snippets/{{snippet_id:int}}", update_snippet, methods=["PATCH"]),
    Route(f"{API}/saved_snippets/{{snippet_id:int}}", delete_snippet, methods=["DELETE"]),
    Route(f"{API}/typing", set_typing, methods=["POST"]),
    Route(f"{API}/messages/{{message_id:int}}/typing", set_edit_typing, methods=["POST"]),
    Route(f"{API}/message_edit_typing", set_edit_typing_legacy, methods=["POST"]),
    Route(f"{API}/users/me/alert_words", list_alert_words, methods=["GET"]),
    Route(f"{API}/users/me/alert_words", add_alert_words, methods=["POST"]),
    Route(f"{API}/users/me/alert_words", remove_alert_words, methods=["DELETE"]),
    Route(f"{API}/drafts", list_drafts, methods=["GET"]),
    Route(f"{API}/drafts", create_drafts, methods=["POST"]),
    Route(f"{API}/drafts/{{draft_id:int}}", edit_draft, methods=["PATCH"]),
    Route(f"{API}/drafts/{{draft_id:int}}", delete_draft, methods=["DELETE"]),
    Route(f"{API}/users/me/muted_users/{{muted_user_id:int}}", mute_user, methods=["POST"]),
    Route(f"{API}/users/me/muted_users/{{muted_user_id:int}}", unmute_user, methods=["DELETE"]),
]
