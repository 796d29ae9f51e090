"""File uploads: upload, download, list and delete attachments.

Written in ``chatops/_async/resources/uploads.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.uploads import AsyncUploads, FileInput
from .._sync.resources.uploads import Uploads

__all__ = ["AsyncUploads", "FileInput", "Uploads"]
