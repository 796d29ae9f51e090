"""``MISSING``: a parameter that was not sent, where ``None`` is a value the API gives meaning.

Neutral ground: the request parser produces it and the rules test for it, without the rules
importing the parser.
"""

from __future__ import annotations

from typing import Any

MISSING: Any = object()
