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
    # the plan belongs to the audit pipeline, which reads the audits: imported when used
    from ..audit.plan import item_of, plan_line
    from ..changes.engine import in_order

    items = in_order(i for i in map(item_of, result.finding_list()) if i is not None)
    rows = [
        {
            "call": i.about["api_call"],
            "subject": i.about["subject"],
            "needs_input": plan_line(i)["needs_input"],
        }
        for i in items
    ]
    return pd.DataFrame(rows, columns=list(PLAN_COLUMNS))
