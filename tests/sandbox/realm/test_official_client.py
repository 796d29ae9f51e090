"""The official ``zulip`` client's custom-profile-field and custom-emoji calls work against
the sandbox."""

from __future__ import annotations

import io

import pytest
import zulip

from chatops.sandbox import Sandbox
from tests.sandbox.realm.test_custom_emoji import png

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def official(fresh_sandbox: Sandbox) -> zulip.Client:
    return zulip.Client(config_file=str(fresh_sandbox.zuliprc("admin")), client="Official/1.0")


def test_custom_profile_fields(official: zulip.Client, fresh_sandbox: Sandbox) -> None:
    created = official.create_realm_profile_field(
        name="Favorite editor",
        field_type=3,
        field_data={"vim": {"text": "Vim", "order": "1"}, "emacs": {"text": "Emacs", "order": "2"}},
    )
    assert created["result"] == "success", created
    fid = created["id"]
    fields = official.get_realm_profile_fields()
    assert fields["result"] == "success", fields
    ids = [f["id"] for f in fields["custom_fields"]]
    assert fid in ids
    updated = official.update_realm_profile_field(fid, hint="Be honest")
    assert updated["result"] == "success", updated
    reordered = official.reorder_realm_profile_fields(order=list(reversed(ids)))
    assert reordered["result"] == "success", reordered
    member = fresh_sandbox.accounts["member"].user_id
    value = official.update_user_by_id(member, profile_data=[{"id": fid, "value": "vim"}])
    assert value["result"] == "success", value
    user = official.get_user_by_id(member, include_custom_profile_fields=True)
    assert user["user"]["profile_data"][str(fid)]["value"] == "vim"
    removed = official.remove_realm_profile_field(fid)
    assert removed["result"] == "success", removed
    assert fid not in [f["id"] for f in official.get_realm_profile_fields()["custom_fields"]]


def test_custom_emoji(official: zulip.Client) -> None:
    image = io.BytesIO(png())
    image.name = "official.png"
    uploaded = official.upload_custom_emoji("official_emoji", image)
    assert uploaded["result"] == "success", uploaded
    emoji = {e["name"]: e for e in official.get_realm_emoji()["emoji"].values()}
    assert emoji["official_emoji"]["deactivated"] is False
    deleted = official.delete_custom_emoji("official_emoji")
    assert deleted["result"] == "success", deleted
    emoji = {e["name"]: e for e in official.get_realm_emoji()["emoji"].values()}
    assert emoji["official_emoji"]["deactivated"] is True
