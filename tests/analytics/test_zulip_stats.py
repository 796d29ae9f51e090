"""V11, /stats reconciled: known answers on hand-built frames, and every series computed again
independently, message by message, from a synced dataset of the sandbox."""

from __future__ import annotations

import collections
import datetime as dt
from collections.abc import Iterator

import matplotlib.pyplot as plt
import pandas as pd
import pytest

import chatops
from chatops.analytics import Dataset, validate, zulip_stats
from chatops.analytics.sentences import stats_summary
from chatops.analytics.views import CLIENT_LABELS
from chatops.sandbox import Sandbox

from .conftest import channels, messages


def ts(s: str) -> pd.Timestamp:
    return pd.Timestamp(s, tz="UTC")


@pytest.fixture
def frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """People 1 and 2, bot 3, Notification Bot 9, a deactivated guest 4, a guest 5 who never
    posts. Person 2 joined at 12:30 on the 10th and posted at 11:10 (imported history)."""
    m = messages(
        [
            (1, "2024-01-08 10:00", "general", "a", 1, "website"),
            (2, "2024-01-08 11:00", "general", "a", 3, "API"),
            (3, "2024-01-08 12:00", "dev", "b", 1, "website"),
            (4, "2024-01-10 12:10", "general", "a", 2, "ZulipMobile"),
            (5, "2024-01-10 11:10", "general", "a", 2, "website"),
            (6, "2024-01-11 09:00", None, None, 1, "ZulipMobile"),
            (7, "2024-01-11 10:00", None, None, 2, "website"),
            (8, "2024-01-11 11:00", "general", "new channels", 9, "Internal"),
        ]
    )
    u = validate(
        pd.DataFrame(
            {
                "user_id": [1, 2, 3, 4, 5, 9],
                "full_name": ["One", "Two", "Bot", "Gone", "Guest", "Notification Bot"],
                "is_bot": [False, False, True, False, False, True],
                "is_system_bot": [False, False, False, False, False, True],
                "is_active": [True, True, True, False, True, True],
                "role": [400, 400, 400, 600, 600, 400],
                "date_joined": [
                    ts("2024-01-01"),
                    ts("2024-01-10 12:30"),
                    ts("2024-01-01"),
                    ts("2024-01-01"),
                    ts("2024-01-09"),
                    pd.NaT,
                ],
            }
        ),
        "users",
    )
    dm = validate(
        pd.DataFrame({"message_id": [6, 6, 7, 7, 7], "user_id": [1, 2, 2, 1, 4]}), "dm_recipients"
    )
    return m, u, channels(private=["dev"]), dm


def test_known_answers_with_the_definitions_of_stats(
    frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame],
) -> None:
    m, u, c, dm = frames
    r = zulip_stats(m, users=u, channels=c, dm_recipients=dm)
    over = r.frame.assign(day=r.frame["period_start"].dt.strftime("%m-%d"))
    assert over[["day", "humans", "bots"]].values.tolist() == [
        ["01-08", 2, 1],
        ["01-09", 0, 0],
        ["01-10", 1, 0],  # 11:10 was before person 2 joined: left out, as /stats leaves it
        ["01-11", 2, 0],  # Notification Bot's message is nobody's in the organization
    ]
    assert over["partial"].tolist() == [False, False, False, True]
    assert over["cumulative_humans"].tolist() == [2, 2, 3, 5]
    assert r.left_out == {"system_bots": 1, "before_joining": 1}
    kinds = dict(
        zip(r.by_recipient_type["recipient_type"], r.by_recipient_type["messages"], strict=True)
    )
    assert kinds == {
        "public channels": 4,
        "private channels": 1,
        "direct messages": 1,
        "group direct messages": 1,
    }
    clients = dict(zip(r.by_client["client"], r.by_client["messages"], strict=True))
    assert clients == {"Web app": 4, "Mobile app": 2, "API": 1}  # 11:10 is in its day
    assert r.by_client["share"].sum() == pytest.approx(1.0)
    a = r.active_users.assign(day=r.active_users["date"].dt.strftime("%m-%d"))
    assert a[["day", "daily_posters", "posters_15_days", "total_users"]].values.tolist() == [
        ["01-08", 1, 1, 1],
        ["01-09", 0, 1, 2],
        ["01-10", 1, 2, 3],
        ["01-11", 2, 2, 3],
    ]
    assert r.summary_counts == {
        "total_users": 3,
        "posted_in_last_15_days": 2,
        "guests": 1,
        "messages": 6,
        "messages_last_30_days": 6,
    }
    words = " ".join(r.differences)
    assert "1 message of Zulip's system bots left out" in words
    assert "1 message sent before the sender joined" in words
    assert "activity intervals" in words and "deactivated" in words
    assert "Whose messages these frames hold is not recorded" in words
    assert stats_summary(r) == (
        "6 messages sent as /stats counts them (5 by people, 1 by bots); 2 of 3 people posted "
        "in the last 15 days of the data."
    )


def test_without_channels_or_recipients_it_says_what_it_cannot_tell(
    frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame],
) -> None:
    m, u, _, _ = frames
    r = zulip_stats(m, users=u, freq="W")
    kinds = dict(
        zip(r.by_recipient_type["recipient_type"], r.by_recipient_type["messages"], strict=True)
    )
    assert kinds["public channels"] == 5 and kinds["direct messages"] == 2
    assert kinds["private channels"] == kinds["group direct messages"] == 0
    words = " ".join(r.differences)
    assert "public and private channels are not told apart" in words
    assert "group direct messages are counted as direct messages" in words
    people = zulip_stats(m, users=u, exclude_bots=True)
    assert int(people.frame["bots"].sum()) == 0 and people.left_out["bots"] == 1
    with pytest.raises(ValueError, match="users frame"):
        zulip_stats(m)
    with pytest.raises(ValueError, match="freq"):
        zulip_stats(m, users=u, freq="M")


def test_the_figure_draws_the_four_charts_and_marks_the_partial_period(
    frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame],
) -> None:
    m, u, c, dm = frames
    fig = zulip_stats(m, users=u, channels=c, dm_recipients=dm).plot()
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == [
        "Messages sent per day, humans and bots",
        "By recipient type",
        "By client",
        "Active users (posted)",
    ]
    legend = fig.axes[0].get_legend()
    assert legend is not None
    assert "partial (still counting)" in [t.get_text() for t in legend.get_texts()]
    hatched = [p for p in fig.axes[0].patches if p.get_hatch()]
    assert len(hatched) == 2  # the last day's humans and bots bars
    plt.close(fig)


# -- the sandbox, every series computed again --------------------------------------------------


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dataset]:
    """A small organization's dataset as the admin syncs it, with a message of Notification
    Bot (a new channel announced)."""
    folder = tmp_path_factory.mktemp("stats-org")
    with Sandbox.start(folder, size="small", seed=21) as sb:
        with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as c:
            c.channels.subscribe(["stats-announced"], announce=True)
        yield Dataset.sync(sb.zuliprc("admin"), cache=folder / "cache", progress=False)


def test_every_series_equals_a_message_by_message_count(synced: Dataset) -> None:
    f = synced.frames()
    assert f.users is not None and f.channels is not None
    r = zulip_stats(f.messages, users=f.users, channels=f.channels, dm_recipients=f.dm_recipients)
    users = {int(row.user_id): row for row in f.users.itertuples()}
    private = {
        int(s) for s, p in zip(f.channels["stream_id"], f.channels["invite_only"], strict=True) if p
    }
    recipients = collections.defaultdict(set)
    for mid, uid in zip(f.dm_recipients["message_id"], f.dm_recipients["user_id"], strict=True):
        recipients[int(mid)].add(int(uid))
    per_day: dict[dt.date, list[int]] = collections.defaultdict(lambda: [0, 0])
    kinds: collections.Counter[str] = collections.Counter()
    clients: collections.Counter[str] = collections.Counter()
    posters: dict[dt.date, set[int]] = collections.defaultdict(set)
    system = 0
    for row in f.messages.itertuples():
        who = users[int(row.sender_id)]
        if bool(who.is_system_bot):
            system += 1
            continue
        when = row.timestamp.to_pydatetime()
        joined = who.date_joined.to_pydatetime() if pd.notna(who.date_joined) else None
        hour_end = when.replace(minute=0, second=0, microsecond=0) + dt.timedelta(hours=1)
        day_end = when.replace(hour=0, minute=0, second=0, microsecond=0) + dt.timedelta(days=1)
        if joined is None or joined < hour_end:
            per_day[when.date()][1 if bool(who.is_bot) else 0] += 1
        if joined is None or joined < day_end:
            clients[CLIENT_LABELS.get(str(row.client), str(row.client))] += 1
        if pd.isna(row.stream_id):
            kinds[
                "group direct messages" if len(recipients[row.id]) > 2 else "direct messages"
            ] += 1
        else:
            kinds["private channels" if int(row.stream_id) in private else "public channels"] += 1
        if not bool(who.is_bot):
            posters[when.date()].add(int(row.sender_id))
    assert system >= 1 and r.left_out["system_bots"] == system
    got = {
        d.date(): [h, b]
        for d, h, b in zip(r.frame["period_start"], r.frame["humans"], r.frame["bots"], strict=True)
        if h or b
    }
    assert got == dict(per_day)
    assert dict(
        zip(r.by_recipient_type["recipient_type"], r.by_recipient_type["messages"], strict=True)
    ) == {
        k: kinds.get(k, 0)
        for k in ("public channels", "private channels", "direct messages", "group direct messages")
    }
    assert dict(zip(r.by_client["client"], r.by_client["messages"], strict=True)) == dict(clients)
    for day, daily, fifteen in zip(
        r.active_users["date"],
        r.active_users["daily_posters"],
        r.active_users["posters_15_days"],
        strict=True,
    ):
        d = day.date()
        assert daily == len(posters.get(d, set()))
        window = set().union(*(posters.get(d - dt.timedelta(days=k), set()) for k in range(15)))
        assert fifteen == len(window)
    assert "can read" in " ".join(r.differences)  # a sync: whose view it is, said


def test_the_duckdb_engine_gives_the_same_result(synced: Dataset) -> None:
    f = synced.frames()
    a = zulip_stats(f.messages, users=f.users, channels=f.channels, dm_recipients=f.dm_recipients)
    b = zulip_stats(synced, engine="duckdb")
    assert int(a.frame["humans"].sum()) > 0 and len(a.by_client) > 1
    for name, frame in a.frames().items():
        pd.testing.assert_frame_equal(frame, b.frames()[name], check_dtype=False, obj=name)
    assert (a.left_out, a.summary_counts) == (b.left_out, b.summary_counts)
