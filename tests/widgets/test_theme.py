"""The panels take every colour from JupyterLab's theme variables, so they follow Light and Dark."""

from __future__ import annotations

import re
from pathlib import Path

import chatops.widgets
from chatops.widgets._base import STYLE

SOURCES = sorted(Path(chatops.widgets.__file__).parent.glob("*.py"))

HEX_IN_CSS = re.compile(
    r"(?:color|background|border|shadow|outline|fill|stroke)[\w-]*\s*:[^;\"'\n]*#[0-9a-fA-F]{3,8}\b"
)
HEX6 = re.compile(r"#[0-9a-fA-F]{6}(?:[0-9a-fA-F]{2})?\b")
FUNCTION = re.compile(r"\b(?:rgba?|hsla?|hwb|lab|lch|oklch|oklab)\(", re.IGNORECASE)
COLOUR_PROPERTY = re.compile(
    r"(?<![\w-])((?:background-)?color|background|fill|stroke)\s*:\s*([^;}]+)"
)


def test_no_hard_coded_colour_in_the_panel_sources() -> None:
    assert len(SOURCES) >= 8
    found = []
    for path in SOURCES:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if HEX_IN_CSS.search(line) or HEX6.search(line) or FUNCTION.search(line):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert found == []


def test_the_grep_catches_what_it_is_for() -> None:
    for bad in (
        ".x { color: #1b5e20; }",
        "style='background:#fff8e1'",
        "border-left: 4px solid #f9a825",
        "color: rgba(0, 0, 0, .5)",
        '"ok": "#1b5e20",',
    ):
        assert HEX_IN_CSS.search(bad) or HEX6.search(bad) or FUNCTION.search(bad), bad
    assert not HEX_IN_CSS.search("Fixed in #1234, follow-up in #87")


def test_every_colour_in_the_style_is_a_theme_variable() -> None:
    values = [value.strip() for _prop, value in COLOUR_PROPERTY.findall(STYLE)]
    assert len(values) > 10
    for value in values:
        # !important only where the grid library's own stylesheet insists on its colours
        assert value == "inherit" or re.fullmatch(
            r"var\(--jp-[a-z0-9-]+\)(?: !important)?", value
        ), value
    for shadow_or_border in re.findall(r"(?:border[\w-]*|box-shadow)\s*:\s*([^;}]+)", STYLE):
        colours = re.sub(r"var\(--jp-[a-z0-9-]+\)", "", shadow_or_border)
        assert not re.search(r"#|rgb|hsl|\b(?:white|black|red|green)\b", colours), shadow_or_border


def test_setting_labels_are_zulips_and_lead_back_to_the_api_name() -> None:
    from chatops.widgets._controls import markdown_cell, setting_cell
    from chatops.widgets._words import SETTING_LABELS, api_name, setting_label

    assert setting_label("stream", "can_send_message_group") == "Who can post to this channel"
    assert setting_label("realm", "can_create_public_channel_group") == (
        "Who can create public channels"
    )
    assert setting_label("group", "can_manage_group") == "Who can administer this group"
    every = [(n, lab) for labels in SETTING_LABELS.values() for n, lab in labels.items()]
    for name, label in every:  # one label never stands for two API names
        assert api_name(label) == name, label
    assert setting_cell("Who can post to this channel") == (
        '<span title="API: can_send_message_group">Who can post to this channel</span>'
    )
    assert setting_cell("subgroup of") == "subgroup of"
    assert markdown_cell("Build **and** ship <script>") == (
        '<div class="chatops-markdown">Build <strong>and</strong> ship &lt;script&gt;</div>'
    )
