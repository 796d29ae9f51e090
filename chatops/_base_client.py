"""Request building and response decoding, with no I/O.

``Client`` and ``AsyncClient`` share everything here and differ only where they wait.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import random
import ssl
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeVar, overload
from urllib.parse import urlsplit

import httpx
import msgspec

from ._config import Credentials
from ._deadline import BodyReader, BodyTooLarge
from ._exceptions import (
    ApiError,
    IgnoredParametersWarning,
    LimitError,
    ResponseTooLarge,
    Timeout,
    TransportError,
    error_from_response,
)
from ._retry import RateBudget, backoff, parse_retry_after, should_retry
from .types import Capabilities

__all__ = [
    "NOT_GIVEN",
    "DEFAULT_MAX_RESPONSE_SIZE",
    "DEFAULT_USER_AGENT",
    "FileTypes",
    "NotGiven",
    "RequestOptions",
    "check_length",
    "content_sha256",
    "decode_response",
    "encode_params",
    "ssl_context",
    # the retry policy lives in _retry; its names are still importable from here
    "RateBudget",
    "backoff",
    "parse_retry_after",
    "should_retry",
]

logger = logging.getLogger("chatops")


@functools.cache
def ssl_context(verify: bool | str, cert: str | tuple[str, str] | None) -> ssl.SSLContext:
    """The TLS settings of a client, made once per process for each setting.

    Making one reads the whole CA bundle (tens of milliseconds, more than a request on
    loopback); a context is safe to share between clients and threads. ``SSL_CERT_FILE`` and
    ``SSL_CERT_DIR`` are read when the first client with that setting is made.
    """
    return httpx.create_ssl_context(verify=verify, cert=cert)


T = TypeVar("T")

DEFAULT_USER_AGENT: Final = "chatops/0.1 (python-httpx)"
#: the largest answer a client reads by default (a 5,000-message page with content is ~10 MB)
DEFAULT_MAX_RESPONSE_SIZE: Final = 128 * 1024 * 1024
#: a file part for multipart upload: (filename, bytes, content type)
FileTypes = tuple[str, bytes, str]


class NotGiven:
    """Marks an argument the caller did not give, where ``None`` means something.

    >>> NOT_GIVEN
    NOT_GIVEN
    """

    _instance: NotGiven | None = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __reduce__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Final = NotGiven()


# -- request building ---------------------------------------------------------------------------


def _encode_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return msgspec.json.encode(value).decode()


def encode_params(params: Mapping[str, Any] | None) -> dict[str, str]:
    """Encode parameters as spec section 1 says: strings raw, everything else as JSON text.

    ``NOT_GIVEN`` values are dropped; ``None`` becomes JSON ``null``.
    """
    if not params:
        return {}
    return {k: _encode_value(v) for k, v in params.items() if not isinstance(v, NotGiven)}


def content_sha256(content: str) -> str:
    """Lowercase hex SHA-256 of the UTF-8 text, as ``prev_content_sha256`` wants."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def check_length(param: str, value: str | bytes | int, limit: int | None, unit: str = "") -> None:
    """Raise ``LimitError`` naming ``param`` when ``value`` exceeds ``limit`` (None: no check).

    A ``str`` is measured in characters, ``bytes`` in bytes, an ``int`` is the size itself.
    """
    if limit is None:
        return
    size = value if isinstance(value, int) else len(value)
    if size > limit:
        default_unit = "characters" if isinstance(value, str) else "bytes"
        raise LimitError(param, limit, size, unit or default_unit)


@dataclass
class RequestOptions:
    """One API call as the client will send it (and re-send it on retry)."""

    method: str
    url: str
    params: dict[str, str] = field(default_factory=dict)
    files: dict[str, FileTypes] | None = None
    idempotent: bool = False
    auth: bool = True

    @property
    def endpoint(self) -> str:
        """``METHOD /path`` for messages and logs."""
        return f"{self.method} {urlsplit(self.url).path}"


# -- response decoding --------------------------------------------------------------------------


class _Envelope(msgspec.Struct, forbid_unknown_fields=False):
    result: str | None = None
    ignored_parameters_unsupported: list[str] | None = None


def _redact(text: str, secret: str | None) -> str:
    if secret and len(secret) >= 4 and secret in text:
        return text.replace(secret, "***")
    return text


def _snippet(content: bytes, limit: int = 120) -> str:
    text = content[:limit].decode("utf-8", "replace").strip().replace("\n", " ")
    return text + ("..." if len(content) > limit else "")


@overload
def decode_response(
    status: int,
    headers: Mapping[str, str],
    content: bytes,
    cast_to: type[T],
    *,
    endpoint: str,
    secret: str | None = None,
) -> T: ...
@overload
def decode_response(
    status: int,
    headers: Mapping[str, str],
    content: bytes,
    cast_to: None,
    *,
    endpoint: str,
    secret: str | None = None,
) -> None: ...
def decode_response(
    status: int,
    headers: Mapping[str, str],
    content: bytes,
    cast_to: type[T] | None,
    *,
    endpoint: str,
    secret: str | None = None,
) -> T | None:
    """Decode a response: 2xx into ``cast_to``, anything else into the matching ``ApiError``.

    ``cast_to=bytes`` returns the raw body; ``None`` checks the envelope and returns None.
    Unsupported parameters the server reports become an ``IgnoredParametersWarning``.
    """
    if 200 <= status < 300:
        if cast_to is bytes:
            return content  # type: ignore[return-value]
        # The envelope is decoded on its own only when it can matter (a warning to give, an
        # error result, or no type to decode into): a second pass over a 1,000-message page
        # costs as much as the client's whole request.
        if cast_to is None or b"ignored_parameters_unsupported" in content or b'"error"' in content:
            try:
                envelope = msgspec.json.decode(content, type=_Envelope)
            except msgspec.DecodeError:
                raise _not_json(status, headers, content, endpoint, secret) from None
            if envelope.ignored_parameters_unsupported:
                warnings.warn(
                    f"{endpoint}: the server ignored unsupported parameters "
                    f"{', '.join(envelope.ignored_parameters_unsupported)}",
                    IgnoredParametersWarning,
                    stacklevel=4,
                )
            if envelope.result == "error":
                raise _error(status, content, headers, endpoint, secret)
            if cast_to is None:
                return None
        try:
            return _decoder(cast_to).decode(content)  # type: ignore[no-any-return]
        except msgspec.ValidationError as exc:
            raise ApiError(
                "INVALID_RESPONSE",
                f"{endpoint} answered with an unexpected shape: {exc}",
                status,
            ) from None
        except msgspec.DecodeError:
            raise _not_json(status, headers, content, endpoint, secret) from None
    raise _error(status, content, headers, endpoint, secret)


_DECODERS: dict[Any, msgspec.json.Decoder[Any]] = {}


def _decoder(cast_to: Any) -> msgspec.json.Decoder[Any]:
    decoder = _DECODERS.get(cast_to)
    if decoder is None:
        decoder = _DECODERS[cast_to] = msgspec.json.Decoder(cast_to)
    return decoder


def _not_json(
    status: int, headers: Mapping[str, str], content: bytes, endpoint: str, secret: str | None
) -> ApiError:
    return ApiError(
        "INVALID_RESPONSE",
        f"{endpoint} answered HTTP {status} with a body that is not JSON "
        f"({headers.get('content-type', 'no content type')}): "
        f"{_redact(_snippet(content), secret)!r}",
        status,
    )


def _error(
    status: int, content: bytes, headers: Mapping[str, str], endpoint: str, secret: str | None
) -> ApiError:
    body: dict[str, Any]
    try:
        decoded = msgspec.json.decode(content)
    except msgspec.DecodeError:
        decoded = None
    if isinstance(decoded, dict):
        body = decoded
    else:
        kind = headers.get("content-type", "no content type")
        body = {
            "msg": f"{endpoint} answered HTTP {status} with a non-JSON body ({kind}): "
            f"{_snippet(content)!r}"
        }
    body["msg"] = _redact(str(body.get("msg", "")), secret)
    if status == 429 and "retry-after" not in body:
        header = parse_retry_after(headers, None)
        if header is not None:
            body["retry-after"] = header
    return error_from_response(status, body)


# -- the shared base ----------------------------------------------------------------------------


class _BaseClient:
    """What ``Client`` and ``AsyncClient`` share: configuration, requests, decoding, policy."""

    #: never wait longer than this for a Retry-After; raise RateLimited instead
    max_retry_wait: float = 60.0

    def __init__(
        self,
        credentials: Credentials,
        *,
        timeout: float | None,
        max_retries: int,
        user_agent: str,
        max_response_size: int | None = DEFAULT_MAX_RESPONSE_SIZE,
    ) -> None:
        self.credentials = credentials
        #: seconds one call may take in all: connecting, every retry and wait, the whole body
        self.timeout = timeout
        #: bytes of the largest answer read (decompressed); None reads any size
        self.max_response_size = max_response_size
        self.max_retries = max_retries
        self.user_agent = user_agent
        self._capabilities: Capabilities | None = None
        #: X-RateLimit-Remaining of the last response, for bulk helpers to pace themselves
        self.rate_limit_remaining: int | None = None
        #: when set, every request waits for a place in this shared budget before it is sent
        self.rate_budget: RateBudget | None = None
        self._sleep_jitter: Callable[[], float] | None = random.random

    @property
    def site(self) -> str:
        """The server's root URL."""
        return self.credentials.site

    @property
    def email(self) -> str:
        """The API email the client authenticates as."""
        return self.credentials.email

    @property
    def base_url(self) -> str:
        """The API root, ``{site}/api/v1``."""
        return self.credentials.base_url

    def __repr__(self) -> str:
        return f"{type(self).__name__}(site={self.site!r}, email={self.email!r})"

    def _url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        if not path.startswith("/"):
            path = "/" + path
        return self.base_url + path

    def _same_origin(self, url: str) -> bool:
        a, b = urlsplit(url), urlsplit(self.site)
        return (a.scheme, a.netloc) == (b.scheme, b.netloc)

    def _options(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        files: dict[str, FileTypes] | None = None,
        idempotent: bool | None = None,
        auth: bool = True,
    ) -> RequestOptions:
        method = method.upper()
        if idempotent is None:
            idempotent = method in ("GET", "HEAD")
        url = self._url(path)
        return RequestOptions(
            method=method,
            url=url,
            params=encode_params(params),
            files=files,
            idempotent=idempotent,
            # Credentials never go to another host (e.g. a file served from a CDN).
            auth=auth and self._same_origin(url),
        )

    def _auth_header(self) -> str:
        token = f"{self.credentials.email}:{self.credentials.api_key}".encode()
        return "Basic " + base64.b64encode(token).decode("ascii")

    def _deadline(self) -> float | None:
        """The monotonic time by which a call starting now must end."""
        return None if self.timeout is None else time.monotonic() + self.timeout

    def _time_left(self, opts: RequestOptions, deadline: float | None) -> float | None:
        """Seconds left to ``deadline``; raises :class:`Timeout` once it has passed."""
        if deadline is None:
            return None
        left = deadline - time.monotonic()
        if left <= 0:
            raise self._timeout(opts)
        return left

    def _timeout(self, opts: RequestOptions) -> Timeout:
        return Timeout(
            f"{opts.endpoint}: no whole answer within the client's timeout of {self.timeout:g} s "
            "(every try and wait counted)"
        )

    def _wait_before(
        self, opts: RequestOptions, deadline: float | None, delay: float, why: str
    ) -> None:
        """Raise :class:`Timeout` when waiting ``delay`` seconds would pass the deadline."""
        if deadline is not None and time.monotonic() + delay >= deadline:
            logger.info("%s: %s, but the call's timeout ends before a retry", opts.endpoint, why)
            raise self._timeout(opts)

    def _body_reader(self, opts: RequestOptions, response: httpx.Response) -> BodyReader:
        reader = BodyReader(response.headers.get("content-encoding"), self.max_response_size)
        try:
            reader.check_declared(response.headers.get("content-length"))
        except BodyTooLarge as exc:
            raise self._too_large(opts, exc.size) from None
        return reader

    def _whole(self, opts: RequestOptions, content: bytes) -> bytes:
        """A body some transport already read, held to the size limit all the same."""
        if self.max_response_size is not None and len(content) > self.max_response_size:
            raise self._too_large(opts, len(content))
        return content

    def _too_large(self, opts: RequestOptions, size: int) -> ResponseTooLarge:
        limit = self.max_response_size or 0
        return ResponseTooLarge(
            f"{opts.endpoint}: the answer is over the client's max_response_size of {limit:,} "
            f"bytes ({size:,} bytes read or announced); raise max_response_size to read it",
            limit=limit,
            size=size,
        )

    def _build_request(
        self,
        client: httpx.Client | httpx.AsyncClient,
        opts: RequestOptions,
        timeout: float | None = None,
    ) -> httpx.Request:
        # Built directly rather than by ``client.build_request``: the URL is already absolute,
        # so this skips a second URL parse and the cookie merge, a third of the per-call cost.
        headers = httpx.Headers(client.headers)
        headers["User-Agent"] = self.user_agent
        headers["Accept"] = "application/json"
        # the encodings BodyReader inflates in bounded steps
        headers["Accept-Encoding"] = "gzip, deflate"
        if opts.auth:
            headers["Authorization"] = self._auth_header()
        extensions = {"timeout": httpx.Timeout(timeout).as_dict()}
        if opts.method in ("GET", "HEAD"):
            return httpx.Request(
                opts.method, opts.url, params=opts.params, headers=headers, extensions=extensions
            )
        if opts.files:
            return httpx.Request(
                opts.method,
                opts.url,
                data=opts.params,
                files=opts.files,
                headers=headers,
                extensions=extensions,
            )
        return httpx.Request(
            opts.method, opts.url, data=opts.params or None, headers=headers, extensions=extensions
        )

    @overload
    def _decode(
        self, opts: RequestOptions, response: httpx.Response, content: bytes, cast_to: type[T]
    ) -> T: ...
    @overload
    def _decode(
        self, opts: RequestOptions, response: httpx.Response, content: bytes, cast_to: None
    ) -> None: ...
    def _decode(
        self,
        opts: RequestOptions,
        response: httpx.Response,
        content: bytes,
        cast_to: type[T] | None,
    ) -> T | None:
        self._note_rate_limit(response)
        return decode_response(
            response.status_code,
            response.headers,
            content,
            cast_to,
            endpoint=opts.endpoint,
            secret=self.credentials.api_key,
        )

    def _note_rate_limit(self, response: httpx.Response) -> None:
        remaining = response.headers.get("x-ratelimit-remaining")
        if remaining is not None:
            try:
                self.rate_limit_remaining = int(remaining)
            except ValueError:
                self.rate_limit_remaining = None

    def _retry_delay(
        self,
        opts: RequestOptions,
        attempt: int,
        outcome: int | BaseException,
        response: httpx.Response | None,
        content: bytes = b"",
    ) -> float | None:
        """Seconds to sleep before the next attempt, or None to give up. Logs the decision."""
        what = f"HTTP {outcome}" if isinstance(outcome, int) else type(outcome).__name__
        if attempt >= self.max_retries or not should_retry(opts.idempotent, outcome):
            if not (isinstance(outcome, int) and outcome < 400):
                logger.debug("%s: %s, not retrying (attempt %d)", opts.endpoint, what, attempt + 1)
            return None
        delay: float | None = None
        if outcome == 429 and response is not None:
            body: Mapping[str, Any] | None
            try:
                decoded = msgspec.json.decode(content)
                body = decoded if isinstance(decoded, dict) else None
            except msgspec.DecodeError:
                body = None
            delay = parse_retry_after(response.headers, body)
            if delay is not None and delay > self.max_retry_wait:
                logger.warning(
                    "%s: rate limited for %.1fs, longer than %.0fs; giving up",
                    opts.endpoint,
                    delay,
                    self.max_retry_wait,
                )
                return None
        if delay is None:
            delay = backoff(attempt, jitter=self._sleep_jitter)
        logger.info(
            "%s: %s, retry %d of %d in %.2fs",
            opts.endpoint,
            what,
            attempt + 1,
            self.max_retries,
            delay,
        )
        return delay

    def _transport_error(self, opts: RequestOptions, exc: BaseException) -> TransportError:
        text = _redact(str(exc), self.credentials.api_key)
        return TransportError(f"{opts.endpoint} failed: {type(exc).__name__}: {text}")
