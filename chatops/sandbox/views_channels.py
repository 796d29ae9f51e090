"""HTTP views: Channels, subscriptions, topic preferences and personal tools (spec 4.2-4.4, 4.6, 4.11-4.14, 4.16)."""

from __future__ import annotations

from starlette.routing import Route

ROUTES: list[Route] = []
