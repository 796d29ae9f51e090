"""Organization settings (``PATCH /realm``), linkifiers (spec 4.15) and custom emoji.

Written in ``chatops/_async/resources/realm.py``; the synchronous twins are generated.
"""

from .._async.resources.realm import *  # noqa: F403
from .._sync.resources.realm import *  # noqa: F403
