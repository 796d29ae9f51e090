"""HTTP views: Bots, event queues and resumable uploads (spec 4.22, 4.23 tus, section 6)."""

from __future__ import annotations

from starlette.routing import Route

ROUTES: list[Route] = []
