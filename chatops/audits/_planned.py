"""What a plan of an audit's findings would hold, for the notebooks to show.

An audit only reads; the calls of its findings are carried out by ``chatops audit plan`` (which
writes them from a run's report) and ``chatops audit apply`` (the only writer). A notebook shows
them with :func:`plan_calls`, the way the plan would hold them.
"""

from __future__ import annotations

import pandas as pd

from ._result import AuditResult

__all__ = ["PLAN_COLUMNS", "plan_calls"]

#: Columns of :func:`plan_calls`: the call in words, the finding's subject, and whether a
#: person must fill something in or choose before it can run.
PLAN_COLUMNS = ("call", "subject", "needs_input")


def plan_calls(result: AuditResult) -> pd.DataFrame:
    """The calls a plan of ``result``'s findings would hold, in the order ``chatops audit apply``
    runs them: one row per call, in the words of the findings' ``api_call``.

    Findings without a call, and reads (``GET``), fix nothing and are left out, as the plan
    leaves them out. A call that ``needs_input`` (a ``{placeholder}`` to fill, or a choice
    between calls) is never run as written.

    Example::

        result = stale_channels(client)
        plan_calls(result)   # call, subject, needs_input
    """
    # chatops.plan reads the audits' types: importing it when this module loads would make
    # importing chatops.plan first load it half-way
    from ..plan import in_order, planned_call

    calls = in_order(
        planned_call(f.call, f)
        for f in result.finding_list()
        if f.call is not None and f.call.changes
    )
    rows = [
        {
            "call": c.finding["api_call"],
            "subject": c.finding["subject"],
            "needs_input": c.needs_input,
        }
        for c in calls
    ]
    return pd.DataFrame(rows, columns=list(PLAN_COLUMNS))
