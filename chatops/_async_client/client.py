"""The client of one account on one server, with its requests, waits and resources."""

from __future__ import annotations

import asyncio
import os
import time
import warnings
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, overload

import httpx

from .._base_client import (
    DEFAULT_MAX_RESPONSE_SIZE,
    DEFAULT_USER_AGENT,
    FileTypes,
    RequestOptions,
    _BaseClient,
    logger,
    ssl_context,
)
from .._config import Credentials, resolve_credentials
from .._deadline import DEADLINE, BodyTooLarge, install
from .._exceptions import ApiError, AuthenticationError, RateLimited
from ..resources._base import Resource
from ..types import Capabilities, ServerSettings

if TYPE_CHECKING:
    from .resources.bots import AsyncBots
    from .resources.channels import AsyncChannels
    from .resources.events import AsyncEvents
    from .resources.invitations import AsyncInvitations
    from .resources.messages import AsyncMessages
    from .resources.personal import (
        AsyncAlertWords,
        AsyncDrafts,
        AsyncNavigationViews,
        AsyncSavedSnippets,
        AsyncTyping,
    )
    from .resources.push import AsyncPush
    from .resources.realm import AsyncRealm
    from .resources.scheduled import AsyncReminders, AsyncScheduledMessages
    from .resources.server import AsyncServer
    from .resources.uploads import AsyncUploads
    from .resources.user_groups import AsyncUserGroups
    from .resources.users import AsyncUsers

__all__ = ["AsyncClient"]

T = TypeVar("T")

#: the initial-state blocks that carry the feature level, the max_* limits and the
#: empty-topic display name
_REGISTER_PARAMS: Mapping[str, Any] = {
    "fetch_event_types": ["realm"],
    "event_types": ["realm"],
    "apply_markdown": False,
}


def _capabilities_from_settings(settings: ServerSettings) -> Capabilities:
    return Capabilities(
        feature_level=settings.zulip_feature_level, zulip_version=settings.zulip_version
    )


def _credentials(
    site: str | None,
    email: str | None,
    api_key: str | None,
    config_file: str | os.PathLike[str] | None,
    credentials: Credentials | None,
) -> Credentials:
    if credentials is not None:
        return credentials
    return resolve_credentials(site, email, api_key, config_file=config_file)


class AsyncClient(_BaseClient):
    """A client for one account on one server.

    No request is made until a method needs one::

        async with AsyncClient.from_zuliprc("~/.zuliprc") as client:
            me = await client.users.me()
            await client.messages.send_to_channel("general", "greetings", f"Hello, {me.full_name}")

    ``timeout`` (seconds, None for none) bounds each call as a whole: connecting, every retry
    and wait, and the whole answer, however slowly it arrives (:class:`~chatops.Timeout`).
    ``max_response_size`` (bytes, after decompression; None for no limit) refuses a larger
    answer as it arrives (:class:`~chatops.ResponseTooLarge`).
    """

    def __init__(
        self,
        site: str | None = None,
        email: str | None = None,
        api_key: str | None = None,
        *,
        config_file: str | os.PathLike[str] | None = None,
        credentials: Credentials | None = None,
        timeout: float | None = 30.0,
        max_retries: int = 3,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
        user_agent: str = DEFAULT_USER_AGENT,
        max_response_size: int | None = DEFAULT_MAX_RESPONSE_SIZE,
    ) -> None:
        creds = _credentials(site, email, api_key, config_file, credentials)
        super().__init__(
            creds,
            timeout=timeout,
            max_retries=max_retries,
            user_agent=user_agent,
            max_response_size=max_response_size,
        )
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(
            transport=transport, verify=ssl_context(creds.verify, creds.cert), timeout=timeout
        )
        if transport is None and http_client is None:
            # the connections it opens keep each call's deadline (chatops._deadline)
            install(self._http._transport)

    @classmethod
    def from_zuliprc(cls, path: str | os.PathLike[str], **kwargs: Any) -> AsyncClient:
        """A client from a zuliprc file (``ZULIP_*`` variables still win, as documented)."""
        return cls(config_file=path, **kwargs)

    # -- resources ------------------------------------------------------------------------------
    # Each resource module is imported on first use of its attribute, so that ``import
    # chatops`` and a client that touches two areas do not load all twelve.

    #: send, fetch, edit, move, react to and delete messages
    messages: Resource[AsyncMessages] = Resource("messages")
    #: own user, single user and user list
    users: Resource[AsyncUsers] = Resource("users")
    #: upload, download and manage files
    uploads: Resource[AsyncUploads] = Resource("uploads")
    #: server settings and registration
    server: Resource[AsyncServer] = Resource("server")
    #: channels
    channels: Resource[AsyncChannels] = Resource("channels")
    #: messages the server sends later
    scheduled_messages: Resource[AsyncScheduledMessages] = Resource("scheduled")
    #: reminders about a message
    reminders: Resource[AsyncReminders] = Resource("scheduled")
    #: pinned and hidden sidebar views
    navigation_views: Resource[AsyncNavigationViews] = Resource("personal")
    #: reusable Markdown snippets
    saved_snippets: Resource[AsyncSavedSnippets] = Resource("personal")
    #: words that notify the person wherever they appear
    alert_words: Resource[AsyncAlertWords] = Resource("personal")
    #: message drafts kept on the server
    drafts: Resource[AsyncDrafts] = Resource("personal")
    #: typing notifications while composing or editing
    typing: Resource[AsyncTyping] = Resource("personal")
    #: event queues: register, poll, and an iterator that survives queue expiry
    events: Resource[AsyncEvents] = Resource("events")
    #: user groups: list, create, change, members, deactivate and reactivate
    user_groups: Resource[AsyncUserGroups] = Resource("user_groups")
    #: invitations: reusable links and email invitations, one by one or in bulk
    invitations: Resource[AsyncInvitations] = Resource("invitations")
    #: organization settings, linkifiers and custom emoji
    realm: Resource[AsyncRealm] = Resource("realm")
    #: mobile push devices and the test notification
    push: Resource[AsyncPush] = Resource("push")
    #: bots owned by the requester: create, deactivate
    bots: Resource[AsyncBots] = Resource("bots")

    @property
    def invites(self) -> AsyncInvitations:
        """Deprecated name of :attr:`invitations` (it goes in the next release)."""
        warnings.warn(
            "client.invites is deprecated; use client.invitations", DeprecationWarning, stacklevel=2
        )
        return self.invitations

    # -- capabilities ---------------------------------------------------------------------------

    @property
    def capabilities(self) -> Capabilities | None:
        """The capabilities if already learned, else None (:meth:`get_capabilities` fetches)."""
        return self._capabilities

    async def get_capabilities(self, *, refresh: bool = False) -> Capabilities:
        """The server's feature level and limits (one ``POST /register`` on first use)."""
        if self._capabilities is None or refresh:
            try:
                caps = await self._request(
                    "POST",
                    "/register",
                    params=_REGISTER_PARAMS,
                    cast_to=Capabilities,
                    idempotent=True,
                )
            except (AuthenticationError, RateLimited):
                raise
            except ApiError as exc:
                logger.info("POST /register refused (%s); reading /server_settings", exc.code)
                settings = await self._request(
                    "GET", "/server_settings", cast_to=ServerSettings, auth=False
                )
                caps = _capabilities_from_settings(settings)
            self._capabilities = caps
        return self._capabilities

    # -- the raw path -------------------------------------------------------------------------

    async def get(self, path: str, *, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``GET {path}``: the decoded JSON object of any endpoint; errors raise as usual.

        For endpoints and fields the typed resources do not cover::

            realm = (await client.get("/realm/linkifiers"))["linkifiers"]
        """
        return await self._request("GET", path, params=params, cast_to=dict[str, Any])

    async def post(self, path: str, *, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``POST {path}`` with form parameters (lists and objects sent as JSON text)."""
        return await self._request("POST", path, params=params, cast_to=dict[str, Any])

    async def patch(self, path: str, *, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``PATCH {path}`` with form parameters."""
        return await self._request("PATCH", path, params=params, cast_to=dict[str, Any])

    async def delete(self, path: str, *, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``DELETE {path}``."""
        return await self._request("DELETE", path, params=params, cast_to=dict[str, Any])

    # -- requests -------------------------------------------------------------------------------

    @overload
    async def _request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = ...,
        files: dict[str, FileTypes] | None = ...,
        cast_to: type[T],
        idempotent: bool | None = ...,
        auth: bool = ...,
    ) -> T: ...
    @overload
    async def _request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = ...,
        files: dict[str, FileTypes] | None = ...,
        cast_to: None = ...,
        idempotent: bool | None = ...,
        auth: bool = ...,
    ) -> None: ...
    async def _request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        files: dict[str, FileTypes] | None = None,
        cast_to: type[T] | None = None,
        idempotent: bool | None = None,
        auth: bool = True,
    ) -> T | None:
        opts = self._options(method, path, params, files, idempotent, auth)
        deadline = self._deadline()
        token = DEADLINE.set(deadline)
        try:
            attempt = 0
            while True:
                budget = self.rate_budget
                while budget is not None and (wait := budget.acquire()) > 0:
                    self._wait_before(opts, deadline, wait, "waiting for the rate limit")
                    await asyncio.sleep(wait)
                try:
                    request = self._build_request(self._http, opts, self._time_left(opts, deadline))
                    response = await self._http.send(request, stream=True)
                    try:
                        content = await self._read(opts, response, deadline)
                    finally:
                        await response.aclose()
                except BaseException as exc:
                    if budget is not None:
                        budget.release(None, None)
                    if isinstance(exc, httpx.TimeoutException) and deadline is not None:
                        if time.monotonic() >= deadline - 0.05:
                            raise self._timeout(opts) from None
                    if not isinstance(exc, httpx.TransportError):
                        raise
                    delay = self._retry_delay(opts, attempt, exc, None)
                    if delay is None:
                        raise self._transport_error(opts, exc) from None
                    why = type(exc).__name__
                else:
                    status = response.status_code
                    if budget is not None:
                        budget.release(response.headers, status)
                    delay = (
                        None
                        if status < 400
                        else self._retry_delay(opts, attempt, status, response, content)
                    )
                    if delay is None:
                        return self._decode(opts, response, content, cast_to)
                    why = f"HTTP {status}"
                self._wait_before(opts, deadline, delay, why)
                await asyncio.sleep(delay)
                attempt += 1
        finally:
            DEADLINE.reset(token)

    async def _read(
        self, opts: RequestOptions, response: httpx.Response, deadline: float | None
    ) -> bytes:
        """The whole body of ``response``, within the deadline and the size limit."""
        if response.is_stream_consumed:  # a transport that handed over a body already read
            return self._whole(opts, response.content)
        reader = self._body_reader(opts, response)
        pieces = response.aiter_raw() if reader.decodes else response.aiter_bytes()
        try:
            async for piece in pieces:
                reader.feed(piece)
                self._time_left(opts, deadline)
            return reader.body()
        except BodyTooLarge as exc:
            raise self._too_large(opts, exc.size) from None

    # -- lifecycle ------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the connection pool (unless it was passed in)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
