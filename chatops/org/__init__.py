"""The organization declared in a file: its setup exported by names and emails
(:func:`export_document`, :func:`to_yaml`), read back and checked against the file's JSON
Schema (:func:`load_document`)."""

from __future__ import annotations

from .export import export_document, to_yaml
from .load import OrgFileError, load_document, schema, schema_text

__all__ = ["OrgFileError", "export_document", "load_document", "schema", "schema_text", "to_yaml"]
