"""The sandbox's clock: the wall clock, or the wall clock moved to start at a chosen moment.

A demo organization generated for a fixed date (``Sandbox.start(now=...)``) is served with a
clock that starts at that date and runs from there, so that what depends on the time (which
invitations have expired, which channels were active in the last week, which scheduled
messages are due) answers as it did on that date, whatever the day the sandbox runs.

There is one clock per process: a process serves one moved sandbox at a time.
"""

from __future__ import annotations

import time

__all__ = ["now", "reset", "start_at"]

_offset = 0.0


def now() -> float:
    """The sandbox's current time, in seconds since the epoch."""
    return time.time() + _offset


def start_at(moment: float) -> None:
    """Move the clock so that it reads ``moment`` now, and runs on from there."""
    global _offset
    _offset = moment - time.time()


def reset() -> None:
    """Back to the wall clock."""
    global _offset
    _offset = 0.0
