"""HTTP handlers of the uploads area. Uploads: files, attachments, temporary links and tus resumable uploads (spec 4.23)."""

from __future__ import annotations

import mimetypes
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from .. import (
    bounds,
    tus,
    uploads,
)
from ..errors import ApiError
from ..params import (
    Params,
)
from ..state import SandboxState
from ..store import Row
from ._http import API, authenticate, endpoint, json_response


@endpoint()
async def upload_file(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise ApiError("You must specify a file to upload")
    form = await request.form(max_part_size=uploads.max_upload_bytes() + 1)
    files = [v for _, v in form.multi_items() if isinstance(v, UploadFile)]
    if not files:
        raise ApiError("You must specify a file to upload")
    if len(files) > 1:
        raise ApiError("You may only upload one file at a time")
    upload = files[0]
    data = await upload.read()
    result = await run_in_threadpool(
        uploads.save_upload,
        state.store,
        user,
        state.upload_dir,
        upload.filename or "uploaded-file",
        data,
        upload.content_type
        or mimetypes.guess_type(upload.filename or "")[0]
        or "application/octet-stream",
    )
    if state.feature_level < 285:  # filename added at 285
        result.pop("filename", None)
    if state.feature_level < 272:  # url added at 272 as the new name of uri
        result.pop("url", None)
    return result


#: Even a file shown inline may load or run nothing: no script, no frame, no form.
UPLOAD_CSP = "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'"


def _file_response(state: SandboxState, att: Row) -> Response:
    path = state.upload_dir / att["path_id"]
    content_type = att["content_type"] or "application/octet-stream"
    inline = uploads.served_inline(content_type)
    return FileResponse(
        path,
        media_type=content_type if inline else "application/octet-stream",
        filename=att["name"],
        content_disposition_type="inline" if inline else "attachment",
        headers={"X-Content-Type-Options": "nosniff", "Content-Security-Policy": UPLOAD_CSP},
    )


@endpoint()
def api_file_url(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    path_id = f"{request.path_params['realm_id']}/{request.path_params['rest']}"
    uploads.access_file(state.store, user, path_id)
    return {"url": uploads.temporary_url(state.secret, path_id)}


@endpoint()
def serve_file(request: Request, state: SandboxState, user: Row | None, p: Params) -> Response:
    assert user is not None
    att = uploads.access_file(state.store, user, request.path_params["path_id"])
    return _file_response(state, att)


async def serve_temporary_file(request: Request) -> Response:
    state: SandboxState = request.app.state.sandbox
    att = await run_in_threadpool(
        uploads.temporary_file,
        state.store,
        state.secret,
        request.path_params["token"],
        request.path_params["path_id"],
    )
    return _file_response(state, att)


@endpoint()
def list_attachments(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return uploads.attachment_records(state.store, user)


@endpoint()
def delete_attachment(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    uploads.delete_attachment(
        state.store, user, request.path_params["attachment_id"], state.upload_dir
    )
    return {}


TUS_FEATURE_LEVEL = 296


def _tus_headers(**extra: str) -> dict[str, str]:
    return {"Tus-Resumable": tus.TUS_VERSION, "Cache-Control": "no-store", **extra}


def _tus_error(exc: ApiError) -> Response:
    headers = {**_tus_headers(), **exc.headers}
    if exc.status == 412:
        headers["Tus-Version"] = tus.TUS_VERSION
    return json_response(exc.envelope(), status=exc.status, headers=headers)


TusHandler = Callable[[Request, SandboxState, Row], Awaitable[Response]]


def tus_endpoint(handler: TusHandler) -> Callable[[Request], Awaitable[Response]]:
    """Authenticate by API key, check ``Tus-Resumable``, answer errors with tus headers."""

    async def respond(request: Request) -> Response:
        state: SandboxState = request.app.state.sandbox
        try:
            if state.feature_level < TUS_FEATURE_LEVEL:
                raise ApiError("Not found", status=404)
            user = await authenticate(request)
            if request.headers.get("tus-resumable") != tus.TUS_VERSION:
                raise ApiError("Unsupported tus version", status=412)
            return await handler(request, state, user)
        except ApiError as exc:
            return _tus_error(exc)

    respond.__name__ = handler.__name__
    return respond


async def tus_options(request: Request) -> Response:
    """``OPTIONS /tus``: what this server supports (no authentication, as tus says)."""
    return Response(
        status_code=204,
        headers=_tus_headers(
            **{
                "Tus-Version": tus.TUS_VERSION,
                "Tus-Extension": tus.EXTENSIONS,
                "Tus-Max-Size": str(uploads.max_upload_bytes()),
            }
        ),
    )


def _header_int(request: Request, name: str) -> int | None:
    raw = request.headers.get(name)
    if raw is None or not raw.strip().isdigit():
        return None
    return bounds.in_range(name, int(raw))


def _finished(result: dict[str, Any]) -> dict[str, Any]:
    """The answer to the request that completes an upload, as the real server gives it.

    There tusd answers that request with what Zulip's pre-finish hook returns: HTTP 200 and
    ``{"url", "filename"}`` (``zerver/views/tusd.py``), not tus's bare 204, so that the client
    learns where the file is. Every other PATCH answers 204.
    """
    return {"url": result["url"], "filename": result["filename"]}


@tus_endpoint
async def tus_create(request: Request, state: SandboxState, user: Row) -> Response:
    """``POST /tus``: create an upload of ``Upload-Length`` bytes."""
    if "upload-defer-length" in request.headers:
        raise ApiError("Upload-Defer-Length is not supported", status=400)
    length = _header_int(request, "upload-length")
    if length is None:
        raise ApiError("Missing or invalid Upload-Length", status=400)
    metadata = tus.parse_metadata(request.headers.get("upload-metadata"))
    upload_id = await run_in_threadpool(
        tus.create, state.store, user, state.upload_dir, length, metadata
    )
    location = f"{str(request.base_url).rstrip('/')}{API}/tus/{upload_id}"
    headers = _tus_headers(Location=location, **{"Upload-Offset": "0"})
    if length == 0:
        upload = await run_in_threadpool(tus.get, state.store, user, upload_id)
        result = await run_in_threadpool(tus.finish, state.store, user, upload, state.upload_dir)
        return json_response(_finished(result), 201, headers)
    return Response(status_code=201, headers=headers)


@tus_endpoint
async def tus_head(request: Request, state: SandboxState, user: Row) -> Response:
    """``HEAD /tus/{id}``: the offset to resume from."""
    upload = await run_in_threadpool(tus.get, state.store, user, request.path_params["upload_id"])
    return Response(
        status_code=200,
        headers=_tus_headers(
            **{
                "Upload-Offset": str(upload["upload_offset"]),
                "Upload-Length": str(upload["length"]),
            }
        ),
    )


@tus_endpoint
async def tus_patch(request: Request, state: SandboxState, user: Row) -> Response:
    """``PATCH /tus/{id}``: append the body at ``Upload-Offset``; the last byte finishes it."""
    store = state.store
    upload = await run_in_threadpool(tus.get, store, user, request.path_params["upload_id"])
    if request.headers.get("content-type", "").split(";")[0].strip() != (
        "application/offset+octet-stream"
    ):
        raise ApiError("Content-Type must be application/offset+octet-stream", status=415)
    tus.check_append(upload, _header_int(request, "upload-offset"))
    offset = int(upload["upload_offset"])
    length = int(upload["length"])
    path = tus.storage_path(state.upload_dir, upload["id"])
    if upload["path_id"] is None:
        too_long = False
        try:
            with path.open("r+b") as f:
                f.seek(offset)
                f.truncate()
                async for chunk in request.stream():
                    if offset + len(chunk) > length:
                        too_long = True
                        chunk = chunk[: length - offset]
                    f.write(chunk)
                    offset += len(chunk)
                    if too_long:
                        break
        except ClientDisconnect:
            pass  # keep what arrived: the client resumes from the recorded offset
        finally:
            await run_in_threadpool(tus.record_offset, store, upload["id"], offset)
        if too_long:
            raise ApiError("The body goes past Upload-Length", status=413)
    headers = _tus_headers(**{"Upload-Offset": str(offset)})
    if offset == length:
        upload = await run_in_threadpool(tus.get, store, user, upload["id"])
        result = await run_in_threadpool(tus.finish, store, user, upload, state.upload_dir)
        return json_response(_finished(result), 200, headers)
    return Response(status_code=204, headers=headers)


ROUTES: list[Route] = [
    Route(f"{API}/user_uploads", upload_file, methods=["POST"]),
    Route(f"{API}/user_uploads/{{realm_id:int}}/{{rest:path}}", api_file_url, methods=["GET"]),
    Route(f"{API}/attachments", list_attachments, methods=["GET"]),
    Route(f"{API}/attachments/{{attachment_id:int}}", delete_attachment, methods=["DELETE"]),
    Route("/user_uploads/temporary/{token}/{path_id:path}", serve_temporary_file, methods=["GET"]),
    Route("/user_uploads/{path_id:path}", serve_file, methods=["GET"]),
    Route(f"{API}/tus", tus_options, methods=["OPTIONS"]),
    Route(f"{API}/tus", tus_create, methods=["POST"]),
    Route(f"{API}/tus/{{upload_id}}", tus_options, methods=["OPTIONS"]),
    Route(f"{API}/tus/{{upload_id}}", tus_head, methods=["HEAD"]),
    Route(f"{API}/tus/{{upload_id}}", tus_patch, methods=["PATCH"]),
]
