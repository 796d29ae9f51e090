"""Mobile push: device tokens and the test notification (spec 4.20).

Written in ``chatops/_async/resources/push.py``; the synchronous twins are generated.
"""

from .._async.resources.push import *  # noqa: F403
from .._sync.resources.push import *  # noqa: F403
