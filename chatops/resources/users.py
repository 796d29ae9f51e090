"""Users: own user, one user, all users; status; the life cycle of users and bots.

Written in ``chatops/_async/resources/users.py``; the synchronous twins are generated.
"""

from .._async.resources.users import *  # noqa: F403
from .._sync.resources.users import *  # noqa: F403
