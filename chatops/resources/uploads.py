"""File uploads: upload, download, list and delete attachments.

Written in ``chatops/_async/resources/uploads.py``; the synchronous twins are generated.
"""

from .._async.resources.uploads import *  # noqa: F403
from .._sync.resources.uploads import *  # noqa: F403
