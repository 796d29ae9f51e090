"""chatops: a typed client for Zulip-compatible team chat, plus audits, panels and a sandbox.

    >>> import chatops
    >>> client = chatops.connect()          # arguments > ZULIP_* environment > ~/.zuliprc
    >>> client.messages.send_to_channel("general", "hello", "Hi!")  # doctest: +SKIP

The sandbox server is imported separately: ``from chatops.sandbox import Sandbox``.
"""

from __future__ import annotations

from ._base_client import NOT_GIVEN, NotGiven
from ._client import AsyncClient, Client, connect, fetch_api_key
from ._config import Credentials, resolve_credentials, write_zuliprc
from ._exceptions import (
    ApiError,
    AuthenticationError,
    BadEventQueueId,
    BadNarrow,
    BadRequest,
    CannotDeactivateGroupInUse,
    ChatopsError,
    ConfigError,
    ExpectationMismatch,
    IgnoredParametersWarning,
    InvalidPushDeviceToken,
    InvalidRemotePushDeviceToken,
    LimitError,
    MoveMessagesTimeLimitExceeded,
    NotFound,
    PermissionDenied,
    RateLimited,
    ReactionAlreadyExists,
    ReactionDoesNotExist,
    RequestVariableMissing,
    ServerError,
    StreamDoesNotExist,
    StreamWildcardMentionNotAllowed,
    TopicWildcardMentionNotAllowed,
    TransportError,
    UnauthorizedPrincipal,
)
from .types import (
    ApiKeyResult,
    Attachment,
    Capabilities,
    Channel,
    EditResult,
    Message,
    MessagesPage,
    Reaction,
    SendResult,
    ServerSettings,
    Topic,
    UploadResult,
    User,
)

__all__ = [
    "ApiError",
    "ApiKeyResult",
    "AsyncClient",
    "Attachment",
    "AuthenticationError",
    "BadEventQueueId",
    "BadNarrow",
    "BadRequest",
    "CannotDeactivateGroupInUse",
    "Capabilities",
    "Channel",
    "ChatopsError",
    "Client",
    "ConfigError",
    "Credentials",
    "EditResult",
    "ExpectationMismatch",
    "IgnoredParametersWarning",
    "InvalidPushDeviceToken",
    "InvalidRemotePushDeviceToken",
    "LimitError",
    "Message",
    "MessagesPage",
    "MoveMessagesTimeLimitExceeded",
    "NOT_GIVEN",
    "NotFound",
    "NotGiven",
    "PermissionDenied",
    "RateLimited",
    "Reaction",
    "ReactionAlreadyExists",
    "ReactionDoesNotExist",
    "RequestVariableMissing",
    "SendResult",
    "ServerError",
    "ServerSettings",
    "StreamDoesNotExist",
    "StreamWildcardMentionNotAllowed",
    "Topic",
    "TopicWildcardMentionNotAllowed",
    "TransportError",
    "UnauthorizedPrincipal",
    "UploadResult",
    "User",
    "connect",
    "fetch_api_key",
    "resolve_credentials",
    "write_zuliprc",
]
