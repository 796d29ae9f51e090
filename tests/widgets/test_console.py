"""The AdminConsole: five panels as tabs over one shared connection."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import nbformat
import papermill
import pytest

import chatops
from chatops import ConfigError
from chatops.sandbox import Sandbox
from chatops.widgets import AdminConsole

TITLES = [
    "Channel folders",
    "Linkifiers",
    "User groups",
    "Invitations",
    "Status",
    "People and channels",
    "Organization",
]


def test_the_tabs_share_one_session(org: Sandbox, connect: Callable[[str], chatops.Client]) -> None:
    console = AdminConsole(connect("admin"), background=False)
    assert list(console.tabs.titles) == TITLES
    assert list(console.panels) == [
        "folders",
        "linkifiers",
        "groups",
        "invitations",
        "status",
        "people",
        "organization",
    ]
    assert all(p.session is console.session for p in console.panels.values())
    assert all(not console.panel(slug).read_only for slug in console.panels)
    assert console.tabs.children == tuple(p.root for p in console.panels.values())
    assert console.select("status") is console.panel("status")
    assert console.tabs.selected_index == 4
    with pytest.raises(KeyError, match="choose one of folders"):
        console.panel("nope")


def test_refresh_all_sees_changes_made_elsewhere(
    org: Sandbox, connect: Callable[[str], chatops.Client]
) -> None:
    console = AdminConsole(connect("admin"), background=False)
    other = connect("owner")
    folder_id = other.channels.create_folder("Made elsewhere", description="")
    console.refresh_button.click()
    folders = console.panel("folders")
    assert folder_id in set(folders.folders_table.frame["Folder ID"])  # type: ignore[attr-defined]
    assert all(p.status.kind != "error" for p in console.panels.values())


def test_member_sees_read_only_panels_with_reasons(
    connect: Callable[[str], chatops.Client],
) -> None:
    console = AdminConsole(connect("member"), background=False)
    for slug in ("folders", "linkifiers", "status"):
        panel = console.panel(slug)
        assert panel.read_only, slug
        assert "member" in panel.notice.value, slug


def test_open_without_a_server_starts_a_demo_organization(tmp_path: Path) -> None:
    console = AdminConsole.open(account="moderator", background=False, export_dir=tmp_path)
    try:
        assert console.sandbox is not None
        assert console.session.role_name == "moderator"
        site = console.client.site
        assert httpx.get(f"{site}/api/v1/server_settings").status_code == 200
    finally:
        console.close()
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{site}/api/v1/server_settings", timeout=2)


def test_open_refuses_bad_parameters_early(tmp_path: Path, org: Sandbox) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        AdminConsole.open(zuliprc=str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="not a demo account"):
        AdminConsole.open(account="root")
    with pytest.raises(ConfigError, match="size"):
        AdminConsole.open(size="huge")
    bad = tmp_path / "bad.zuliprc"
    bad.write_text(f"[api]\nemail=admin@demo.chatops.test\nkey=wrong\nsite={org.site}\n")
    with pytest.raises(chatops.AuthenticationError):
        AdminConsole.open(zuliprc=str(bad))


def test_console_opens_on_a_zuliprc(org: Sandbox, tmp_path: Path) -> None:
    console = AdminConsole.open(zuliprc=str(org.zuliprc("admin")), background=False)
    try:
        assert console.sandbox is None and console.client.site == org.site
        assert org.credentials("admin").api_key not in repr(console)
    finally:
        console.close()


CONSOLE_NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "admin_console.ipynb"


def test_console_notebook_parameters_each_have_help() -> None:
    nb = nbformat.read(CONSOLE_NOTEBOOK, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1
    params = papermill.inspect_notebook(str(CONSOLE_NOTEBOOK))
    assert set(params) == {"zuliprc", "site", "account", "size", "export_dir"}
    assert all(spec["help"] for spec in params.values())
    assert params["zuliprc"]["default"] == '""' and params["site"]["default"] == '""'
    assert not any("key" in name for name in params)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


@pytest.mark.slow
def test_console_notebook_runs_under_papermill_without_leaking_the_key(
    org: Sandbox, tmp_path: Path
) -> None:
    out = tmp_path / "console.ipynb"
    papermill.execute_notebook(
        str(CONSOLE_NOTEBOOK),
        str(out),
        parameters={"zuliprc": str(org.zuliprc("admin")), "export_dir": str(tmp_path)},
        progress_bar=False,
        cwd=str(tmp_path),
    )
    text = out.read_text()
    assert "application/vnd.jupyter.widget-view+json" in text
    assert org.credentials("admin").api_key not in text


@pytest.mark.slow
def test_console_notebook_says_why_it_cannot_open(tmp_path: Path) -> None:
    out = tmp_path / "console.ipynb"
    with pytest.raises(papermill.PapermillExecutionError) as info:
        papermill.execute_notebook(
            str(CONSOLE_NOTEBOOK),
            str(out),
            parameters={"zuliprc": str(tmp_path / "missing.zuliprc")},
            progress_bar=False,
            cwd=str(tmp_path),
        )
    assert info.value.ename == "SystemExit"
    assert "The console could not open: zuliprc" in info.value.evalue
    assert "does not exist" in info.value.evalue


def test_no_request_before_a_panel_is_shown(
    org: Sandbox, connect: Callable[[str], chatops.Client]
) -> None:
    import httpx

    client = connect("admin")
    client.users.me()
    client.get_capabilities()
    sent: list[str] = []
    client._http.event_hooks["request"].append(lambda request: sent.append(request.url.path))
    console = AdminConsole(client, background=False)
    assert sent == []  # made, not shown: only loading lines
    assert all(not p.loaded for p in console.panels.values())
    assert "Loading Channel folders…" in console.panels["folders"].root.children[0].value
    console._repr_mimebundle_()  # shown: the first tab loads, the others wait for their tab
    assert sent
    assert [p.loaded for p in console.panels.values()] == [True] + [False] * 6
    console.tabs.selected_index = 3
    assert console.panels["invitations"].loaded and not console.panels["status"].loaded
    assert isinstance(client._http, httpx.Client)
