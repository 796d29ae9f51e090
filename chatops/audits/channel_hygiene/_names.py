"""Channel names, as :mod:`chatops.audits.channel_hygiene` judges them: folded for comparison
(:func:`normalise_channel_name`), near-duplicate pairs, a conforming name to propose, and what
a person weighs before merging two channels. Pure functions.
"""

from __future__ import annotations

import difflib
import re
from itertools import combinations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...types import Channel

__all__ = ["Pair", "merge_advice", "near_duplicates", "normalise_channel_name", "proposed_name"]

_SEPARATORS = re.compile(r"[\s\-_.]+")
#: two channels whose names are alike: the ratio, and whether they fold to the same name
Pair = tuple["Channel", "Channel", float, bool]


def normalise_channel_name(name: str) -> str:
    """A channel name folded for comparison: lower case, no separators, no plural ``s``.

    >>> normalise_channel_name("Release_Notes") == normalise_channel_name("release-note")
    True
    """
    words = [w for w in _SEPARATORS.split(name.casefold()) if w]
    return "".join(
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words
    )


def merge_advice(a: Channel, b: Channel, members: dict[int, set[int] | None]) -> str:
    """What a person weighs before merging two channels: who is in each, who would lose access."""
    parts = []
    for ch in (a, b):
        people = members.get(ch.stream_id)
        count = "subscribers unknown" if people is None else _people(len(people))
        parts.append(f"#{ch.name} ({'private, ' if ch.invite_only else ''}{count})")
    advice = (
        f"Choose which of {parts[0]} and {parts[1]} to keep, move the other's topics into it, "
        "then archive the other"
    )
    for ch, other in ((a, b), (b, a)):
        inside, outside = members.get(ch.stream_id), members.get(other.stream_id)
        if ch.invite_only and inside is not None and outside:
            missing = len(outside - inside)
            if missing:
                advice += (
                    f"; {_people(missing)} of #{other.name} {'is' if missing == 1 else 'are'} "
                    f"not in private #{ch.name} and would lose its history"
                )
    return advice


def _people(n: int) -> str:
    return f"{n} subscriber" if n == 1 else f"{n} subscribers"


def near_duplicates(channels: list[Channel], similarity: float) -> list[Pair]:
    """Every pair of ``channels`` whose names fold to the same or are ``similarity`` alike."""
    out: list[Pair] = []
    for a, b in combinations(channels, 2):
        same = normalise_channel_name(a.name) == normalise_channel_name(b.name)
        ratio = difflib.SequenceMatcher(None, a.name.casefold(), b.name.casefold()).ratio()
        if same or ratio >= similarity:
            out.append((a, b, ratio, same))
    return out


def proposed_name(name: str, pattern: re.Pattern[str], taken: set[str]) -> str | None:
    """The name folded to lower-case words joined by ``-``, when that matches and is free."""
    candidate = "-".join(w for w in _SEPARATORS.split(name.casefold()) if w)
    if candidate and pattern.fullmatch(candidate) and candidate not in taken:
        return candidate
    return None
