"""The demo organization's sizes, apart from the sandbox so that the command line can offer
them without importing the server."""

from __future__ import annotations

__all__ = ["SIZES"]

#: each size's messages, people, channels and days of history
SIZES: dict[str, dict[str, int]] = {
    # only its owner: an organization to apply an organization file to
    "empty": {"messages": 0, "people": 0, "channels": 0, "days": 1},
    "small": {"messages": 2_000, "people": 40, "channels": 12, "days": 120},
    "medium": {"messages": 100_000, "people": 300, "channels": 40, "days": 365},
    "large": {"messages": 1_000_000, "people": 1_500, "channels": 120, "days": 730},
}
