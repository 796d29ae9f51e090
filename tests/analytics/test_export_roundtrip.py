"""What an administrator does with an organization export: ask for it through the API, wait,
download the tarball, build the dataset with ``chatops data import-export``, and find the frames
a ``Dataset.sync`` of the same organization builds.

The export is a standard one (``export_type=2``) asked by the owner, who consents to the export
of their private data; the sync reads as the same owner. The two then hold the same messages,
people, channels, subscriptions and groups, apart from what :data:`NAMED` lists: what an
export holds and the API does not, or the other way round. Every other frame and column is
compared whole.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import chatops
from chatops.analytics import Dataset
from chatops.analytics.dataset.records import AnalyticsFrames
from chatops.sandbox import Sandbox
from tests.analytics.test_export_import import KEYS, _plain, as_an_export_lists_them
from tests.test_cli import chatops as run_chatops

#: The differences between the imported export and the sync, each with its reason.
NAMED = {
    "messages": "the notification bot's direct message to the owner that the export is complete, "
    "sent once the export is written: the sync reads it, the export cannot hold it",
    "dm_recipients": "that message's two recipients",
    "users: date_joined, timezone of system bots": "an export lists a system bot by its id and "
    "email only (zerver_userprofile_crossrealm)",
    "topic_links": "an export holds no topic links: the server computes them for the API",
}

KEYS_ALL = {**KEYS, "user_groups": ["name", "user_id"], "topics": ["stream_id", "topic"]}


@dataclasses.dataclass
class RoundTrip:
    """The frames of both paths, and what the test needs to name the differences."""

    imported: AnalyticsFrames
    synced: AnalyticsFrames
    done_message_id: int
    owner_id: int
    bot_id: int


def _round_trip(sb: Sandbox, folder: Path) -> RoundTrip:
    with chatops.Client.from_zuliprc(sb.zuliprc("owner")) as owner:
        owner.users.update_settings(allow_private_data_export=True)
        owner.messages.send_direct(sb.accounts["member"].user_id, "Before the export")
        # a topic a linkifier links: the API gives its links, an export does not hold them
        owner.realm.add_linkifier(r"#(?P<id>[0-9]+)", "https://tracker.test/{id}")
        owner.messages.send_to_channel("general", "issue #12", "Linked topic")
        export_id = owner.realm.create_export(export_type=2)
        export = owner.realm.wait_for_export(export_id, timeout=600, poll_seconds=0.2)
        assert export.failed_timestamp is None and export.export_url, export
        tarball = folder / "org-export.tar.gz"
        tarball.write_bytes(owner.realm.download_export(export))
        cache = folder / "imported"
        proc = run_chatops("data", "import-export", str(tarball), "--cache", str(cache))
        assert proc.returncode == 0, proc.stderr
        assert f"in {cache}" in proc.stdout
        synced = Dataset.sync(sb.zuliprc("owner"), cache=folder / "synced", progress=False)
        done = owner.messages.get(anchor="newest", num_before=1, num_after=0).messages[-1]
        assert "Your data export is complete" in done.content
        return RoundTrip(
            imported=Dataset(cache).frames(),
            synced=synced.frames(),
            done_message_id=done.id,
            owner_id=sb.accounts["owner"].user_id,
            bot_id=done.sender_id,
        )


def _check(trip: RoundTrip) -> None:
    got, api = trip.imported, trip.synced
    # messages: the same, apart from the export-complete message
    only_synced = set(api.messages["id"]) - set(got.messages["id"])
    assert only_synced == {trip.done_message_id}, NAMED["messages"]
    assert set(got.messages["id"]) <= set(api.messages["id"]), "the export holds more"
    done = api.messages[api.messages["id"] == trip.done_message_id].iloc[0]
    assert int(done["sender_id"]) == trip.bot_id
    common = set(got.messages["id"])
    for name in ("messages", "reactions", "edits", "dm_recipients"):
        column = "id" if name == "messages" else "message_id"
        want = getattr(api, name)
        want = want[want[column].isin(common)]
        frame = getattr(got, name)
        assert len(frame) == len(want), name
        pd.testing.assert_frame_equal(
            _plain(frame, KEYS_ALL[name]), _plain(want, KEYS_ALL[name]), obj=name
        )
    extra = api.dm_recipients[~api.dm_recipients["message_id"].isin(common)]
    assert set(extra["message_id"]) == {trip.done_message_id}, NAMED["dm_recipients"]
    assert set(extra["user_id"]) == {trip.owner_id, trip.bot_id}
    # people: system bots' date_joined and time zone are not in an export
    assert got.users is not None and api.users is not None
    users = as_an_export_lists_them(api.users)
    pd.testing.assert_frame_equal(_plain(got.users, ["user_id"]), _plain(users, ["user_id"]))
    # channels, subscriptions, groups, topics: whole
    for name in ("channels", "subscriptions", "user_groups", "topics"):
        frame, want = getattr(got, name), getattr(api, name)
        assert frame is not None and want is not None and len(want) > 0, name
        pd.testing.assert_frame_equal(
            _plain(frame, KEYS_ALL[name]), _plain(want, KEYS_ALL[name]), obj=name
        )
    assert got.topic_links is not None and got.topic_links.empty, NAMED["topic_links"]
    assert api.topic_links is not None and not api.topic_links.empty
    compared = {"messages", "reactions", "edits", "dm_recipients", "users", "topic_links"}
    compared |= {"channels", "subscriptions", "user_groups", "topics"}
    assert compared == {f.name for f in dataclasses.fields(AnalyticsFrames)}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RoundTrip]:
    folder = tmp_path_factory.mktemp("roundtrip-small")
    with Sandbox.start(folder / "org", size="small", seed=13) as sb:
        yield _round_trip(sb, folder)


def test_an_export_through_the_api_imports_into_the_frames_a_sync_builds(
    small: RoundTrip,
) -> None:
    # the owner reads private channels and direct messages: the export holds them
    assert small.imported.messages["stream_id"].isna().any()
    _check(small)


@pytest.mark.slow
def test_the_round_trip_on_the_medium_organization(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    folder = tmp_path_factory.mktemp("roundtrip-medium")
    with Sandbox.start(folder / "org", size="medium", seed=5) as sb:
        trip = _round_trip(sb, folder)
    assert len(trip.imported.messages) > 10_000
    _check(trip)
