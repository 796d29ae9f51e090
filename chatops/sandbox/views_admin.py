"""HTTP views: Organization administration: invitations, linkifiers, user groups, status, push, users (spec 4.7, 4.8, 4.15, 4.20, 4.21)."""

from __future__ import annotations

from starlette.routing import Route

ROUTES: list[Route] = []
