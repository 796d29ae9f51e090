"""Personal tools: navigation views (4.12), saved snippets (4.13, 4.14) and typing (4.11).

Written in ``chatops/_async/resources/personal.py``; the synchronous twins are generated.
"""

from .._async.resources.personal import *  # noqa: F403
from .._sync.resources.personal import *  # noqa: F403
