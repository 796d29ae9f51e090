"""A re-sync equals a fresh sync after any change, wherever in history it happened.

Against a real sandbox: messages moved (whole topics across channels, single old messages),
renamed, edited, reacted to and deleted, channels archived, made private and left. Each change
is followed by a re-sync of one dataset and compared, frame for frame, with a sync into an empty
folder.

The exact path is the event queue the previous sync registered: it hears of every change to a
message the account *has* (received while subscribed, or a direct message of its), as the real
server's events do, so the changes to single messages deep in history are made to such
messages. Topic-level changes (renames, moves of whole topics) are made in any channel: the
topic lists find them too. What the fallback (an expired queue) cannot see is checked apart.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import chatops
from chatops.analytics import Dataset
from chatops.analytics.coverage import Coverage
from chatops.sandbox import Sandbox
from tests.analytics.test_dataset import assert_same

RECHECK = 20
SCENARIOS = 20


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("changes-org"), size="small", seed=21) as sb:
        with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as c:
            # old messages may be edited and moved, as on a server configured so
            c.realm.update(
                message_content_edit_limit_seconds="unlimited",
                move_messages_within_stream_limit_seconds="unlimited",
                move_messages_between_streams_limit_seconds="unlimited",
            )
        yield sb


def _had(sb: Sandbox, user_id: int) -> list[dict[str, Any]]:
    """The messages the account has (their events reach it), oldest first."""
    rows = sb.store.query(
        "SELECT m.id, m.stream_id, m.topic, m.sender_id FROM messages m JOIN message_flags f "
        "ON f.message_id = m.id WHERE f.user_id = ? ORDER BY m.id",
        [user_id],
    )
    return [dict(r) for r in rows]


def _in_open_channels(sb: Sandbox, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The channel messages of ``rows`` whose channel is not archived (a topic moved there
    would be announced in a channel nobody may post in)."""
    archived = {r["id"] for r in sb.store.query("SELECT id FROM streams WHERE is_archived = 1")}
    return [r for r in rows if r["stream_id"] and r["stream_id"] not in archived]


def _old(rows: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """One of the oldest half: far outside the re-check window."""
    return rng.choice(rows[: max(1, len(rows) // 2)])


Action = Callable[[chatops.Client, Sandbox, random.Random, int], str]


def move_topic_across_channels(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    chans = [ch for ch in c.channels.list() if not ch.is_archived]
    src = rng.choice(chans)
    topics = c._request("GET", f"/users/me/{src.stream_id}/topics", cast_to=dict)["topics"]
    if not topics:
        return "no topic to move"
    topic = rng.choice(topics[len(topics) // 2 :] or topics)  # an older topic
    dst = rng.choice([ch for ch in chans if ch.stream_id != src.stream_id])
    c.messages.edit(topic["max_id"], stream_id=dst.stream_id, propagate_mode="change_all")
    return f"topic {topic['name']!r} moved from {src.name} to {dst.name}"


def rename_topic(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    chans = [ch for ch in c.channels.list() if not ch.is_archived]
    src = rng.choice(chans)
    topics = c._request("GET", f"/users/me/{src.stream_id}/topics", cast_to=dict)["topics"]
    if not topics:
        return "no topic to rename"
    topic = rng.choice(topics)
    c.messages.edit(topic["max_id"], topic=f"renamed {i}", propagate_mode="change_all")
    return f"topic {topic['name']!r} of {src.name} renamed"


def move_one_old_message(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    me = sb.accounts["admin"].user_id
    msg = _old([r for r in _had(sb, me) if r["stream_id"]], rng)
    chans = [ch for ch in c.channels.list() if not ch.is_archived]
    dst = rng.choice([ch for ch in chans if ch.stream_id != msg["stream_id"]])
    # into a topic the target already has, newer than the message: its topic list is unchanged
    topics = c._request("GET", f"/users/me/{dst.stream_id}/topics", cast_to=dict)["topics"]
    topic = topics[0]["name"] if topics else f"moved {i}"
    c.messages.edit(msg["id"], stream_id=dst.stream_id, topic=topic, propagate_mode="change_one")
    return f"old message {msg['id']} moved to {dst.name} > {topic}"


def move_later_half(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    me = sb.accounts["admin"].user_id
    msg = _old(_in_open_channels(sb, _had(sb, me)), rng)
    c.messages.edit(msg["id"], topic=f"split {i}", propagate_mode="change_later")
    return f"topic split from message {msg['id']} on"


def edit_old_content(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    me = sb.accounts["admin"].user_id
    mine = [r for r in _had(sb, me) if r["sender_id"] == me]
    msg = _old(mine, rng)
    c.messages.edit(msg["id"], content=f"rewritten in scenario {i}, longer than it was before")
    return f"old message {msg['id']} edited"


def edit_new_content(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    mid = c.messages.send_to_channel("general", "scenario", f"first draft {i}").id
    c.messages.edit(mid, content=f"second draft {i}, longer")
    return f"new message {mid} edited"


def delete_old(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    me = sb.accounts["admin"].user_id
    msg = _old(_had(sb, me), rng)
    c.messages.delete(msg["id"])
    return f"old message {msg['id']} deleted"


def delete_new(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    me = sb.accounts["admin"].user_id
    msg = rng.choice(_had(sb, me)[-10:])
    c.messages.delete(msg["id"])
    return f"new message {msg['id']} deleted"


def react_old(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    me = sb.accounts["admin"].user_id
    msg = _old(_had(sb, me), rng)
    emoji = rng.choice(["octopus", "tada", "heart", "rocket"])
    try:
        c.messages.add_reaction(msg["id"], emoji_name=emoji)
    except chatops.ApiError:  # already there: take it away instead
        c.messages.remove_reaction(msg["id"], emoji_name=emoji)
    return f"reaction {emoji} on old message {msg['id']}"


def archive_channel(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    chans = [ch for ch in c.channels.list() if not ch.is_archived and ch.name != "general"]
    ch = rng.choice(chans)
    c.channels.archive(ch.stream_id)
    return f"channel {ch.name} archived"


def make_private(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    chans = [
        ch
        for ch in c.channels.list()
        if not ch.is_archived and not ch.invite_only and ch.name != "general"
    ]
    ch = rng.choice(chans)
    c.channels.update(ch.stream_id, is_private=True)
    return f"channel {ch.name} made private"


def leave_channel(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    subs = [s for s in c.channels.subscriptions() if s.name != "general"]
    if not subs:
        return "no channel to leave"
    s = rng.choice(subs)
    c.channels.unsubscribe([s.name])
    return f"left {s.name}"


def send_new(c: chatops.Client, sb: Sandbox, rng: random.Random, i: int) -> str:
    for k in range(rng.randint(1, 30)):
        c.messages.send_to_channel("general", f"new {i}", f"message {k}")
    return "new messages"


ACTIONS: list[Action] = [
    move_topic_across_channels,
    rename_topic,
    move_one_old_message,
    move_later_half,
    edit_old_content,
    edit_new_content,
    delete_old,
    delete_new,
    react_old,
    archive_channel,
    make_private,
    leave_channel,
    send_new,
]


@pytest.mark.slow
@pytest.mark.timeout(600)  # about 170 s on two shared cores; 40 syncs and 40 frame builds
def test_twenty_random_scenarios_each_resync_equals_a_fresh_sync(
    org: Sandbox, tmp_path: Path
) -> None:
    cache = tmp_path / "incremental"
    Dataset.sync(org.zuliprc("admin"), cache=cache, recheck=RECHECK, progress=False)
    done: list[str] = []
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as c:
        for i in range(SCENARIOS):
            rng = random.Random(1000 + i)
            # every action once in the first rounds, then a random mix of two or three
            actions = [ACTIONS[i]] if i < len(ACTIONS) else rng.sample(ACTIONS, rng.randint(2, 3))
            for action in actions:
                done.append(f"{i}: {action(c, org, rng, i)}")
            again = Dataset.sync(org.zuliprc("admin"), cache=cache, recheck=RECHECK, progress=False)
            fresh = Dataset.sync(
                org.zuliprc("admin"), cache=tmp_path / f"fresh-{i}", progress=False
            )
            try:
                assert_same(again, fresh)
            except AssertionError as exc:
                raise AssertionError(f"after {done[-len(actions) :]}: {exc}") from exc
            stats = again.manifest["last_sync"]
            assert stats["changes_from"] == "events and topic lists", stats
    # what the scenarios did, so a failure names it
    assert any("archived" in d for d in done) and any("made private" in d for d in done)


def _expire(sb: Sandbox, ds_cache: Path) -> None:
    """The queue the last sync left is gone, as after ten minutes unused on a real server."""
    queue = Dataset(ds_cache).manifest["events"]["queue_id"]
    with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as c:
        c.events.delete_queue(queue)


def test_with_the_queue_expired_topic_level_changes_are_found_and_verify_finds_the_rest(
    org: Sandbox, tmp_path: Path
) -> None:
    cache = tmp_path / "c"
    Dataset.sync(org.zuliprc("admin"), cache=cache, recheck=RECHECK, progress=False)
    me = org.accounts["admin"].user_id
    rng = random.Random(7)
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as c:
        moved = move_topic_across_channels(c, org, rng, 101)
        renamed = rename_topic(c, org, rng, 102)
    _expire(org, cache)
    again = Dataset.sync(org.zuliprc("admin"), cache=cache, recheck=RECHECK, progress=False)
    assert again.manifest["last_sync"]["changes_from"] == "topic lists"
    assert again.manifest["last_sync"]["topics_reread"] >= 2, (moved, renamed)
    assert_same(again, Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "f1", progress=False))

    # A content edit deep inside a topic whose newest message is unchanged: the topic lists
    # cannot show it (documented); a verify re-reads everything and finds it.
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as c:
        mine = [r for r in _had(org, me) if r["sender_id"] == me]
        target = mine[0]["id"]
        text = "an edit the topic list cannot show " * 3
        c.messages.edit(target, content=text)
    _expire(org, cache)
    stale = Dataset.sync(org.zuliprc("admin"), cache=cache, recheck=RECHECK, progress=False)
    m = stale.frames().messages.set_index("id")
    assert m.loc[target, "content_length"] != len(text)
    checked = Dataset.sync(org.zuliprc("admin"), cache=cache, verify=True, progress=False)
    assert checked.manifest["last_sync"]["changes_from"] == "full re-read"
    assert checked.frames().messages.set_index("id").loc[target, "content_length"] == len(text)
    assert_same(checked, Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "f2", progress=False))


def test_a_fresh_sync_reads_archived_channels_and_coverage_says_so(
    org: Sandbox, tmp_path: Path
) -> None:
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as c:
        ch = next(
            ch
            for ch in c.channels.list()
            if not ch.invite_only and not ch.is_archived and ch.name != "general"
        )
        c.messages.send_to_channel(ch.stream_id, "before archiving", "still readable after")
        c.channels.archive(ch.stream_id)
        server = {
            m.id
            for m in c.messages.iter_history(
                narrow=[{"operator": "channel", "operand": ch.stream_id}], page_size=5000
            )
        }
    assert server
    ds = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", progress=False)
    f = ds.frames()
    assert set(f.messages.loc[f.messages["stream_id"] == ch.stream_id, "id"]) == server
    detail = f.messages.attrs["coverage_detail"]
    assert ch.stream_id in {a.stream_id for a in detail.channels_archived}
    assert "archived" in f.messages.attrs["coverage"]


def test_frames_carry_the_coverage_note_and_its_detail(org: Sandbox, tmp_path: Path) -> None:
    from chatops.analytics import views

    ds = Dataset.sync(org.zuliprc("guest"), cache=tmp_path / "g", progress=False)
    f = ds.frames()
    detail = f.messages.attrs["coverage_detail"]
    note = f.messages.attrs["coverage"]
    assert isinstance(detail, Coverage) and isinstance(note, str)
    assert note == detail.note()
    with chatops.Client.from_zuliprc(org.zuliprc("guest")) as c:
        subscribed = {s.stream_id for s in c.channels.subscriptions()}
        email = c.email
    assert {ch.stream_id for ch in detail.channels_readable} == subscribed
    assert detail.email == email and detail.content is False
    assert detail.first_message == f.messages["timestamp"].min()
    assert detail.last_message == f.messages["timestamp"].max()
    conversations = f.messages.loc[f.messages["type"] == "private", "recipient_id"].nunique()
    assert detail.dm_conversations == conversations
    assert f"{len(subscribed)} of " in note and "no message text" in note
    assert f"{conversations} direct-message conversations" in note
    assert f"{detail.first_message:%Y-%m-%d} to {detail.last_message:%Y-%m-%d}" in note
    # a channel the guest sees listed but cannot read is named, with the reason
    for hidden in detail.channels_not_readable:
        assert hidden.reason == "private, not a member"
        assert hidden.stream_id not in subscribed
    # what the views print, unless told otherwise
    assert views.messages_over_time(f.messages, users=f.users).coverage == note


def test_a_content_less_cache_gains_content(org: Sandbox, tmp_path: Path) -> None:
    cache = tmp_path / "c"
    Dataset.sync(org.zuliprc("admin"), cache=cache, progress=False)
    ds = Dataset.sync(org.zuliprc("admin"), cache=cache, content=True, progress=False)
    assert ds.manifest["content"] is True and "content_pending" not in ds.manifest
    m = ds.frames(content=True).messages
    assert m["content"].notna().all()
    assert (m["content"].str.len() == m["content_length"]).all()
    fresh = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "f", content=True, progress=False)
    pd.testing.assert_frame_equal(m, fresh.frames(content=True).messages)
    with pytest.raises(ValueError, match="keeps message text"):
        Dataset.sync(org.zuliprc("admin"), cache=cache, content=False, progress=False)


ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def test_info_gives_times_as_iso_8601(org: Sandbox, tmp_path: Path) -> None:
    ds = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", progress=False)
    info = ds.info()
    times = [
        info["updated"],
        info["last_sync"]["finished"],
        info["coverage"]["as_of"],
        info["coverage"]["first_message"],
        info["coverage"]["last_message"],
        *(n["synced_at"] for n in info["narrows"].values()),
    ]
    assert all(isinstance(t, str) and ISO.match(t) for t in times), times


class _Recorder:
    """A tqdm that keeps (fetched, total) at every update of the bar."""

    updates: list[tuple[int, float | None]] = []

    @classmethod
    def make(cls) -> type:
        from tqdm.auto import tqdm

        class Recording(tqdm):  # type: ignore[misc,type-arg]
            def update(self, n: float | None = 1) -> bool | None:
                out = super().update(n)
                cls.updates.append((int(self.n), self.total))
                return out

        return Recording


@pytest.mark.parametrize("account", ["admin", "member"])
def test_progress_total_is_close_from_the_first_update_and_never_goes_back(
    org: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, account: str
) -> None:
    import chatops.analytics.dataset._progress as progress_mod

    monkeypatch.setattr(progress_mod, "tqdm", _Recorder.make())
    for step in ("first", "again"):
        _Recorder.updates = []
        ds = Dataset.sync(
            org.zuliprc(account),
            cache=tmp_path / "c",
            page_size=100,
            concurrency=1,
            recheck=300,
        )
        fetched = ds.manifest["last_sync"]["fetched"]
        updates = _Recorder.updates
        assert len(updates) > 3, (step, updates)
        first_total = updates[0][1]
        assert first_total is not None
        assert abs(first_total - fetched) <= 0.1 * fetched, (step, first_total, fetched)
        shares = [n / total for n, total in updates if total]
        assert shares == sorted(shares), (step, shares)  # the percentage never goes back
        assert updates[-1][0] == fetched


def _doc_types() -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The column types ``docs/dataset-layout.md`` gives: message files, then tables."""
    doc = (Path(__file__).parents[2] / "docs" / "dataset-layout.md").read_text()
    messages: dict[str, str] = {}
    for names, types in re.findall(r"^\| (`[^|]+`) \| ([^|]+) \|", doc, re.M):
        if "`" in types:
            continue  # a table's row, below
        cols = re.findall(r"`(\w+)`", names)
        kinds = [t.strip() for t in re.split(r",(?![^\[<]*[\]>])", types)]
        if len(kinds) == 1:  # one type for every column named
            kinds = kinds * len(cols)
        messages.update(zip(cols, kinds, strict=True))
    tables: dict[str, dict[str, str]] = {}
    for name, cols in re.findall(
        r"^\| `(users|channels|subscriptions|user_groups)` \| (.+) \|$", doc, re.M
    ):
        tables[name] = dict(re.findall(r"`(\w+)` ([\w\[\], <>=]+?)(?=, `|$)", cols))
    return messages, tables


def _norm(arrow_type: str) -> str:
    return (
        arrow_type.replace("tz=", "")
        .replace("<values=string, indices=int8, ordered=1>", "<string>")
        .replace("<values=string, indices=int8, ordered=0>", "<string>")
    )


def test_the_layout_doc_and_the_schema_say_what_files_and_frames_hold(
    org: Sandbox, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    from chatops.analytics.schema import COLUMNS

    ds = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", progress=False)
    messages, tables = _doc_types()
    schema = pq.read_schema(ds._files()[0])
    for field in schema:
        documented = messages[field.name]
        if documented.startswith("list<"):
            assert str(field.type).startswith("list<"), field
        else:
            assert _norm(str(field.type)) == documented, (field.name, field.type, documented)
    assert set(tables) == {"users", "channels", "subscriptions", "user_groups"}
    for name, cols in tables.items():
        held = pq.read_schema(ds.cache / "tables" / f"{name}.parquet")
        assert {f.name: _norm(str(f.type)) for f in held} == cols, name
    # the frames have exactly the dtypes the schema module gives (datetimes in ns, UTC)
    f = ds.frames()
    for kind in ("messages", "users", "channels", "reactions", "edits", "topics"):
        frame = getattr(f, kind)
        got = {c: str(frame[c].dtype) for c in COLUMNS[kind]}
        want = {c: ("category" if d == "category" else d) for c, d in COLUMNS[kind].items()}
        assert got == want, kind
    assert str(f.users["date_joined"].dtype) == "datetime64[us, UTC]"  # as the schema says
