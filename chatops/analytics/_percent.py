"""Shares printed as percentages, for sentences and figures alike (no frame code here)."""

from __future__ import annotations

import math

__all__ = ["percent"]


def percent(share: float, digits: int = 2) -> str:
    """A share (0..1) as a percentage an analyst can trust.

    Whole percents from 1% to 99%; below 1% (and above 99%) the share keeps ``digits``
    significant digits of what separates it from 0% (or 100%), so a share that is not zero is
    never printed as ``0%`` and one that is not everything never as ``100%``::

        >>> percent(0.33), percent(0.0009), percent(0.000123), percent(0.9996), percent(0)
        ('33%', '0.09%', '0.012%', '99.96%', '0%')

    Args:
        share: a fraction between 0 and 1 (NaN gives ``"n/a"``).
        digits: significant digits kept below 1% and above 99%.
    """
    if share is None or (isinstance(share, float) and math.isnan(share)):
        return "n/a"
    value = float(share) * 100.0
    if value in (0.0, 100.0) or 1.0 <= value <= 99.0:
        return f"{value:.0f}%"
    if value < 0.0 or value > 100.0:
        raise ValueError(f"a share must be between 0 and 1, got {share!r}")
    if value < 1.0:
        return f"{float(f'{value:.{digits}g}'):g}%"
    rest = f"{float(f'{100.0 - value:.{digits}g}'):f}".rstrip("0")
    decimals = len(rest.partition(".")[2])
    return f"{100.0 - float(rest):.{decimals}f}%"
