"""One module per API area, each naming the area's async resource and its synchronous twin.

The source is ``chatops/_async_client/resources/``; ``chatops/_sync_client/resources/`` is
generated from it (``python scripts/unasync.py``).
"""

from __future__ import annotations
