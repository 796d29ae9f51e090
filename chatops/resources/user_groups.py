"""User groups: list, create, change, members and subgroups, deactivate (spec 4.21), reactivate.

Written in ``chatops/_async/resources/user_groups.py``; the synchronous twins are generated.
"""

from .._async.resources.user_groups import *  # noqa: F403
from .._sync.resources.user_groups import *  # noqa: F403
