"""A notebook as one self-contained HTML file, for sharing: nothing it shows loads from
elsewhere.

``jupyter nbconvert --to html`` takes require.js, MathJax and the widgets' manager from CDNs,
so a rendered notebook opened offline (or behind a proxy) requests outside addresses, and
which script runs depends on what a CDN serves that day. This exporter keeps the look of
JupyterLab's HTML and drops those scripts: figures are embedded images, a widget shows its
text. It is also ``jupyter nbconvert --to chatops_html`` (and File ▸ Save and Export Notebook
As in JupyterLab), registered by the package.

::

    from chatops.notebook_html import write_notebook_html
    write_notebook_html("notebooks/explore/organization.ipynb", "organization.html")
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import nbformat
from nbconvert import HTMLExporter
from traitlets import default

from .._files import write_private_text

__all__ = ["OfflineHTMLExporter", "notebook_html", "write_notebook_html"]

_TEMPLATES = Path(__file__).resolve().parent / "templates" / "nbconvert" / "templates"


class OfflineHTMLExporter(HTMLExporter):  # type: ignore[misc]
    """nbconvert's HTML exporter with the ``chatops-html`` template: self-contained output."""

    export_from_notebook = "HTML (self-contained, chatops)"

    @default("template_name")
    def _template_name_default(self) -> str:
        return "chatops-html"

    @default("extra_template_basedirs")
    def _extra_template_basedirs_default(self) -> list[str]:
        return [str(_TEMPLATES)]

    @default("embed_images")
    def _embed_images_default(self) -> bool:
        return True

    def from_notebook_node(
        self, nb: Any, resources: dict[str, Any] | None = None, **kw: Any
    ) -> Any:
        """The notebook's HTML; widget state is dropped (no manager renders it)."""
        shown = copy.deepcopy(nb)
        shown.metadata.pop("widgets", None)
        return super().from_notebook_node(shown, resources, **kw)


def notebook_html(notebook: str | os.PathLike[str] | Any) -> str:
    """The self-contained HTML of ``notebook`` (a path or a notebook node)."""
    node = (
        nbformat.read(os.fspath(notebook), as_version=4)  # type: ignore[no-untyped-call]
        if isinstance(notebook, str | os.PathLike)
        else notebook
    )
    body, _ = OfflineHTMLExporter().from_notebook_node(node)  # type: ignore[no-untyped-call]
    return str(body)


def write_notebook_html(
    notebook: str | os.PathLike[str] | Any, out: str | os.PathLike[str]
) -> Path:
    """Write the self-contained HTML of ``notebook`` to ``out`` (owner-only); returns the path."""
    return write_private_text(Path(out), notebook_html(notebook))
