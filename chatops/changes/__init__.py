"""The change engine: the only code in chatops that changes an organization.

Audits, the organization file, bulk edits and the console describe what they would change as
typed :class:`Change` values (:mod:`chatops.changes.kinds`); :func:`apply_changes` orders
them, reads what each will replace, sends them with progress, and writes a journal (an intent
before each call, its result and inverse after) that makes a run safe to interrupt and run
again, and makes :func:`undo` possible.
"""

from __future__ import annotations

from ._base import Change, Phase, Reading
from ._call import METHODS, ApiCall, Method, param_text
from .kinds import KINDS, decode_change

__all__ = [
    "KINDS",
    "METHODS",
    "ApiCall",
    "Change",
    "Method",
    "Phase",
    "Reading",
    "decode_change",
    "param_text",
]
