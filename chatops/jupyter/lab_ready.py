"""A Jupyter server extension that makes ``chatops lab`` open the console notebook already run.

When the server starts, the notebook named by ``CHATOPS_LAB_RUN`` (relative to the server's
root) gets a session and a kernel of the server's own, its code cells run in that kernel, and
their outputs are written into the notebook; only then is the browser opened. JupyterLab,
opening the notebook, joins that session: the console's widgets are live, served by the kernel
that made them, with nothing to click first.

``chatops lab`` turns it on (``--ServerApp.jpserver_extensions``) and sets the variable.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

__all__ = ["RUN_VARIABLE", "run_notebook"]

RUN_VARIABLE = "CHATOPS_LAB_RUN"
#: How long one cell may run before the rest are left for the admin to run.
CELL_TIMEOUT = 180.0


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "chatops.jupyter.lab_ready"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    relative = os.environ.get(RUN_VARIABLE, "")
    if not relative:
        return
    wanted_browser = bool(serverapp.open_browser)
    serverapp.open_browser = False  # opened once the notebook has run

    async def ready() -> None:
        try:
            await run_notebook(serverapp, relative)
        except Exception:  # the notebook then opens as it is, to be run by hand
            serverapp.log.exception("chatops: could not run %s before opening it", relative)
        if wanted_browser:
            serverapp.launch_browser()

    # io_loop is the server's loop (made before extensions load); this runs once it starts
    serverapp.io_loop.add_callback(ready)


async def run_notebook(serverapp: Any, relative: str) -> None:
    """Run the code cells of ``relative`` in a kernel of a new server session and write their
    outputs into the notebook."""
    import nbformat
    from nbformat.v4 import output_from_msg

    path = Path(serverapp.root_dir) / relative
    notebook = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    kernel_name = notebook.metadata.get("kernelspec", {}).get("name", "python3")
    session = await serverapp.session_manager.create_session(
        path=relative, name=path.name, type="notebook", kernel_name=kernel_name
    )
    kernel = serverapp.kernel_manager.get_kernel(session["kernel"]["id"])
    client = kernel.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=60)
        for cell in notebook.cells:
            if cell.cell_type != "code" or not cell.source.strip():
                continue
            msg_id = client.execute(cell.source, allow_stdin=False)
            cell.outputs = []
            failed = False
            while True:
                msg = await asyncio.wait_for(client.get_iopub_msg(), CELL_TIMEOUT)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                kind, content = msg["msg_type"], msg["content"]
                if kind == "status" and content["execution_state"] == "idle":
                    break
                if kind == "execute_input":
                    cell.execution_count = content["execution_count"]
                elif kind == "clear_output":
                    cell.outputs = []
                elif kind in ("stream", "display_data", "execute_result", "error"):
                    cell.outputs.append(output_from_msg(msg))  # type: ignore[no-untyped-call]
                    failed = failed or kind == "error"
            if failed:
                break  # as Run All does: the cells after an error are not run
    finally:
        client.stop_channels()
    # The outputs come from the notebook's own code, run for the admin as Run All would: signed
    # as trusted like outputs made in the browser, so that JupyterLab shows the live widgets
    # (an untrusted notebook shows them as text).
    serverapp.contents_manager.notary.sign(notebook)
    tmp = path.with_name(path.name + ".part")
    nbformat.write(notebook, tmp)  # type: ignore[no-untyped-call]
    tmp.replace(path)
    serverapp.log.info("chatops: ran %s; it opens ready", relative)
