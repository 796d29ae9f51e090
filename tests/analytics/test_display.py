"""View results and their figures show themselves in Jupyter: no pyplot, no ``%matplotlib``."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd
import pytest
from IPython.core.formatters import DisplayFormatter
from matplotlib.figure import Figure
from nbclient import NotebookClient
from PIL import Image

from chatops import audit as pipeline
from chatops.analytics import ReportFigure, ViewResult, views

from .conftest import messages, subscriptions, users

PNG = b"\x89PNG\r\n\x1a\n"
SAMPLE = messages(
    [
        (1, "2024-01-01 10:00", "general", "a", 1),
        (2, "2024-01-01 11:00", "general", "a", 2),
        (3, "2024-01-02 09:00", "dev", "b", 9, "ZulipMobile"),
        (4, "2024-01-02 10:00", "dev", "b", 1),
        (5, "2024-01-04 12:00", None, None, 1),
        (6, "2024-02-04 12:00", "general", "c", 3),
    ]
)
REACTIONS = pd.DataFrame({"message_id": [1, 2], "user_id": [2, 1], "emoji_name": ["+1", "tada"]})


def ten_results() -> list[ViewResult]:
    u = users([1, 2, 3], bots=[9])
    return [
        views.messages_over_time(SAMPLE, users=u, freq="D"),
        views.active_users(SAMPLE),
        views.channel_scorecard(SAMPLE, subscriptions=subscriptions({"general": [1, 2]})),
        views.topic_lifecycle(SAMPLE),
        views.participation_distribution(SAMPLE, users=u),
        views.activity_heatmap(SAMPLE),
        views.newcomer_cohorts(SAMPLE),
        views.reactions_and_engagement(SAMPLE, REACTIONS),
        views.client_and_dm_mix(SAMPLE),
        views.interaction_graph(SAMPLE, subscriptions=subscriptions({"general": [1, 2]})),
    ]


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG)
    with Image.open(io.BytesIO(data)) as im:
        return im.size


@pytest.mark.parametrize("result", ten_results(), ids=lambda r: r.view)
def test_ipython_formats_a_result_and_its_plot_as_png(result: ViewResult, tmp_path: Path) -> None:
    formatter = DisplayFormatter()
    data, _ = formatter.format(result)
    # the figure at its size in pixels (100 dpi), and one line of text for plain consoles
    fig = result.plot()
    width, height = (round(v * 100) for v in fig.get_size_inches())
    assert png_size(data["image/png"]) == (width, height)
    assert data["text/plain"].startswith(f"{type(result).__name__} (frame ")
    assert isinstance(fig, ReportFigure)
    fig_data, _ = formatter.format(fig)
    assert png_size(fig_data["image/png"]) == (width, height)
    # still an ordinary figure: savefig writes it
    fig.savefig(tmp_path / "out.png")
    assert (tmp_path / "out.png").read_bytes().startswith(PNG)


def test_plot_on_given_axes_returns_their_figure() -> None:
    fig = Figure()
    ax = fig.add_subplot()
    assert views.activity_heatmap(SAMPLE).plot(ax=ax) is fig


KERNEL_CELLS = [
    """import sys
import pandas as pd
from chatops import analytics
m = analytics.validate(pd.DataFrame({
    "id": [1, 2, 3],
    "timestamp": pd.to_datetime(["2024-01-01 10:00", "2024-01-01 11:00", "2024-01-03 09:00"], utc=True),
    "type": ["stream"] * 3, "stream_id": [1, 1, 2], "channel": ["general", "general", "dev"],
    "topic": ["a", "a", "b"], "sender_id": [1, 2, 1]}), "messages")
r = analytics.active_users(m)""",
    "r",
    "r.plot()",
    "analytics.interaction_graph(m)",
    'print("matplotlib.pyplot" in sys.modules)',
]


def test_a_fresh_kernel_shows_the_figure_of_a_result_and_of_plot() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in KERNEL_CELLS]
    client = NotebookClient(
        nb,
        timeout=120,
        kernel_name=pipeline.runner.KERNEL_NAME,
        kernel_manager_class=pipeline.runner._current_python_kernel_manager(),
    )
    client.execute()
    outputs: list[list[Any]] = [cell.outputs for cell in nb.cells]
    assert not [o for cell in outputs for o in cell if o.output_type == "error"]
    for i in (1, 2, 3):  # the result, its plot() and another view's result: an image each
        (out,) = outputs[i]
        assert out.output_type == "execute_result"
        png = base64.b64decode(out.data["image/png"])
        assert png_size(png)[0] >= 500, KERNEL_CELLS[i]
    assert outputs[1][0].data["text/plain"].startswith("ActiveUsers (frame ")
    assert outputs[2][0].data["text/plain"].startswith("<ReportFigure size ")
    # no pyplot was needed (and none was imported behind the analyst's back)
    assert outputs[4][0].text.strip() == "False"
