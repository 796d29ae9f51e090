"""Server settings (no authentication) and registration.

Written in ``chatops/_async/resources/server.py``; the synchronous twins are generated.
"""

from .._async.resources.server import *  # noqa: F403
from .._sync.resources.server import *  # noqa: F403
