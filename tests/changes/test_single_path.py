"""One write path, at run time: what the console's panels change is journalled by the change
engine and undone by ``chatops undo``, leaving the organization as it was. (That every audit
notebook only reads is checked on the hostile organization's run, in
``tests/security/test_hostile_audits.py``.)"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

import chatops
from chatops.changes.undo import undo
from chatops.sandbox import Sandbox
from chatops.widgets import ChannelFoldersPanel, LinkifiersPanel, UserGroupsPanel
from tests.changes.org_state import differences, organization_state
from tests.changes.test_undo import _Requests
from tests.test_house import _writes_in, _writing_methods

pytestmark = pytest.mark.slow


def test_the_fitness_check_sees_a_write(tmp_path: Path) -> None:
    """The code check of tests/test_house.py finds a client's writing method and a raw write."""
    module = tmp_path / "m.py"
    module.write_text(
        "def f(client, self):\n"
        "    client.channels.archive(5)\n"
        "    client.channels.list()\n"
        "    self.client.post('/x')\n"
        "    self.session.client.user_groups.update_members(3, add=[4])\n"
    )
    found = _writes_in(module, _writing_methods())
    assert found == ["channels.archive", "self.client.post", "user_groups.update_members"]


@pytest.fixture(scope="module")
def watched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Sandbox, _Requests]]:
    requests = _Requests()
    access = logging.getLogger("uvicorn.access")
    base = tmp_path_factory.mktemp("single-path")
    with Sandbox.start(base / "org", size="small", seed=47, log_level="info") as sb:
        access.addHandler(requests)
        try:
            yield sb, requests
        finally:
            access.removeHandler(requests)


def test_what_the_console_changes_is_journalled_and_undone(
    watched: tuple[Sandbox, _Requests], tmp_path: Path
) -> None:
    sb, _requests = watched
    with chatops.Client.from_zuliprc(sb.zuliprc("owner")) as owner:
        before = organization_state(owner)
        folders = ChannelFoldersPanel(owner, background=False, export_dir=tmp_path).load()
        groups = UserGroupsPanel(owner, background=False, export_dir=tmp_path).load()
        linkifiers = LinkifiersPanel(owner, background=False, export_dir=tmp_path).load()
        try:
            folder = folders.model.create_folder("Made on the console", description="x")
            folders.model.rename_folder(folder, "Renamed on the console")
            group = groups.model.create_group("made-on-the-console", members="")
            groups.model.update_group(group, description="changed on the console")
            linkifiers.model.add(r"CON-(?P<n>[0-9]+)", "https://example.org/{n}")
            assert differences(before, organization_state(owner))
            journals = {
                p.session.changes.path for p in (folders.model, groups.model, linkifiers.model)
            }
        finally:
            for panel in (folders, groups, linkifiers):
                panel.close()
        lines: list[str] = []
        for journal in journals:
            status = undo(
                journal,
                site=None,
                zuliprc=str(sb.zuliprc("owner")),
                yes=True,
                ask=None,
                say=lines.append,
                progress=False,
            )
            assert status == 0, lines
        after = organization_state(owner)
    # a folder or a group is never deleted: undoing its creation archives or deactivates it,
    # under the name it was made with; everything else is as it was
    made_folder = [f for f in after["folders"] if f["id"] == folder]
    assert [(f["name"], f["is_archived"]) for f in made_folder] == [("Made on the console", True)]
    made_group = after["groups"].pop(str(group))
    assert (made_group["name"], made_group["deactivated"]) == ("made-on-the-console", True)
    assert made_group["description"] == ""
    after["folders"] = [f for f in after["folders"] if f["id"] != folder]
    assert differences(before, after) == []
