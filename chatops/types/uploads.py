"""Typed records: uploads (see :mod:`chatops.types`)."""

from __future__ import annotations

from ._base import Record

# -- uploads: files and attachments ----------------------------------------------------------------


class UploadResult(Record):
    """``POST /user_uploads``. Servers before feature level 272 send only ``uri``."""

    url: str = ""
    uri: str = ""
    filename: str | None = None

    def __post_init__(self) -> None:
        if not self.url:
            self.url = self.uri
        if not self.uri:
            self.uri = self.url

    @property
    def markdown(self) -> str:
        """A Markdown link to the file, as the web app writes it."""
        name = (self.filename or self.url.rsplit("/", 1)[-1]).replace("[", "").replace("]", "")
        return f"[{name}]({self.url})"


class AttachmentMessage(Record):
    """A message linking an attachment; ``date_sent`` in milliseconds."""

    id: int
    date_sent: int = 0


class Attachment(Record):
    """An uploaded file; ``create_time`` is in milliseconds (seconds from feature level 443)."""

    id: int
    name: str
    path_id: str
    size: int
    create_time: int = 0
    messages: list[AttachmentMessage] = []
    message_ids: list[int] | None = None


class AttachmentsResult(Record):
    """``GET /attachments``."""

    attachments: list[Attachment] = []
    upload_space_used: int | None = None
