"""What the sandbox's handlers share: the store, where uploads live, server-level settings."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import realm as realm_mod
from .errors import ApiError
from .store import Store
from .workers import ReadWorkers


@dataclass
class RateLimit:
    """Requests per window per user, as the real server's ``api_by_user`` rule."""

    max_calls: int = 200
    window_seconds: float = 60.0
    _hits: dict[int, list[float]] = field(default_factory=dict)

    def check(self, user_id: int) -> dict[str, str]:
        now = time.monotonic()
        hits = [t for t in self._hits.get(user_id, []) if now - t < self.window_seconds]
        if len(hits) >= self.max_calls:
            retry = max(0.0, self.window_seconds - (now - hits[0]))
            err = ApiError(
                "API usage exceeded rate limit",
                code="RATE_LIMIT_HIT",
                status=429,
                **{"retry-after": round(retry, 3)},
            )
            err.headers.update(
                {
                    "Retry-After": f"{retry:.3f}",
                    "X-RateLimit-Limit": str(self.max_calls),
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": str(int(time.time() + retry)),
                }
            )
            self._hits[user_id] = hits
            raise err
        hits.append(now)
        self._hits[user_id] = hits
        reset = int(time.time() + self.window_seconds - (now - hits[0]))
        return {
            "X-RateLimit-Limit": str(self.max_calls),
            "X-RateLimit-Remaining": str(self.max_calls - len(hits)),
            "X-RateLimit-Reset": str(reset),
        }


@dataclass
class SandboxState:
    """What the handlers share: the store, where uploads live, and server-level settings."""

    store: Store
    upload_dir: Path
    feature_level: int = realm_mod.FEATURE_LEVEL
    rate_limit: RateLimit | None = None
    password_auth: bool = True
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    base_url: str = ""
    #: told ``(user_id, new_api_key)`` after a key changes, so the credential files keep up
    credentials_changed: Callable[[int, str], None] | None = None
    #: worker processes for the large reads of handlers that allow it; None: all in this process
    read_workers: ReadWorkers | None = None
