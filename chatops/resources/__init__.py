"""One module per API area; each holds the sync resource and its async twin."""

from __future__ import annotations
