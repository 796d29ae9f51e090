"""The frames of API records and the audits' metrics on small hand-made records, exact values."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

import chatops
from chatops.analytics import (
    COLUMNS,
    AnalyticsFrames,
    Dataset,
    channels_frame,
    messages_frame,
    metrics,
    users_frame,
)
from chatops.analytics.dataset.records import registered_accounts
from chatops.sandbox import Sandbox
from chatops.types import Channel, Message, User

DAY = 86_400


def _msg(id: int, ts: int, channel: str | None, topic: str, sender: int, **extra: object) -> dict:
    base: dict = {
        "id": id,
        "timestamp": ts,
        "sender_id": sender,
        "sender_full_name": f"user{sender}",
        "sender_email": f"u{sender}@x",
        "client": "web",
        "content": "x" * id,
        "subject": topic,
    }
    if channel is None:
        base |= {
            "type": "private",
            "display_recipient": [{"id": sender, "email": "e", "full_name": "f"}],
        }
    else:
        base |= {"type": "stream", "display_recipient": channel, "stream_id": len(channel)}
    return base | extra


@pytest.fixture
def messages() -> pd.DataFrame:
    return messages_frame(
        [
            _msg(1, 1 * DAY, "general", "hello", 10),
            _msg(2, 1 * DAY + 60, "general", "hello", 11),
            _msg(3, 2 * DAY, "general", "plans", 10, last_edit_timestamp=5),
            _msg(
                4, 2 * DAY + 5, "dev", "ci", 12, reactions=[{"emoji_name": "a", "emoji_code": "1"}]
            ),
            _msg(5, 3 * DAY, None, "", 10),
            _msg(6, 4 * DAY, "dev", "ci", 12),
        ]
    )


def test_messages_frame_dtypes(messages: pd.DataFrame) -> None:
    assert list(messages.columns) == list(COLUMNS["messages"])
    assert str(messages["timestamp"].dt.tz) == "UTC"
    for col in ("channel", "topic", "sender", "client", "type"):
        assert isinstance(messages[col].dtype, pd.CategoricalDtype), col
    assert messages["stream_id"].dtype == "Int64"
    assert messages["stream_id"].isna().tolist() == [False] * 4 + [True, False]
    assert messages["channel"].isna().tolist() == [False] * 4 + [True, False]
    assert messages["timestamp"].iloc[1] == pd.Timestamp("1970-01-02 00:01", tz="UTC")
    assert messages["is_edited"].tolist() == [False, False, True, False, False, False]
    assert messages["reaction_count"].tolist() == [0, 0, 0, 1, 0, 0]
    assert messages["content_length"].tolist() == [1, 2, 3, 4, 5, 6]


def test_messages_frame_from_structs_equals_from_dicts() -> None:
    record = _msg(7, DAY, "general", "t", 3, recipient_id=20)
    struct = Message(
        **{k: v for k, v in record.items() if k != "display_recipient"}, display_recipient="general"
    )
    pd.testing.assert_frame_equal(messages_frame([struct]), messages_frame([record]))


def test_empty_frames_keep_columns_and_dtypes() -> None:
    assert list(messages_frame([]).columns) == list(COLUMNS["messages"])
    assert list(users_frame([]).columns) == list(COLUMNS["users"])
    assert list(channels_frame([]).columns) == list(COLUMNS["channels"])
    assert str(messages_frame([])["timestamp"].dt.tz) == "UTC"


def test_users_and_channels_frames() -> None:
    users = users_frame(
        [
            User(
                user_id=1,
                email="a@x",
                full_name="A",
                role=100,
                date_joined="2024-01-02T03:04:05+00:00",
            ),
            {
                "user_id": 2,
                "email": "b@x",
                "full_name": "B",
                "role": 600,
                "is_active": False,
                "is_bot": False,
            },
        ]
    )
    assert users["role_name"].tolist() == ["owner", "guest"]
    assert users["date_joined"].iloc[0] == pd.Timestamp("2024-01-02 03:04:05", tz="UTC")
    assert pd.isna(users["date_joined"].iloc[1])
    channels = channels_frame(
        [Channel(stream_id=3, name="g", date_created=DAY, subscriber_count=4)]
    )
    assert channels["subscriber_count"].tolist() == [4]
    assert channels["date_created"].iloc[0] == pd.Timestamp("1970-01-02", tz="UTC")
    assert channels["folder_id"].isna().all()


def test_messages_per_channel(messages: pd.DataFrame) -> None:
    table = metrics.messages_per_channel(messages, channels=["general", "dev", "empty"])
    assert table.index.tolist() == ["general", "dev", "empty"]
    assert table["messages"].tolist() == [3, 2, 0]
    assert table["senders"].tolist() == [2, 1, 0]
    assert table["topics"].tolist() == [2, 1, 0]
    assert table["share"].tolist() == [0.6, 0.4, 0.0]
    assert table.loc["dev", "last_message"] == pd.Timestamp("1970-01-05", tz="UTC")
    assert pd.isna(table.loc["empty", "last_message"])


def test_messages_per_channel_window_is_half_open(messages: pd.DataFrame) -> None:
    table = metrics.messages_per_channel(messages, since="1970-01-03", until="1970-01-05")
    assert table["messages"].to_dict() == {"general": 1, "dev": 1}
    assert table.index.tolist() == ["dev", "general"]  # ties sorted by name


def test_messages_per_period(messages: pd.DataFrame) -> None:
    daily = metrics.messages_per_period(messages, "D")
    assert daily["messages"].tolist() == [2, 2, 1, 1]
    assert daily.index[0] == pd.Timestamp("1970-01-02", tz="UTC")
    split = metrics.messages_per_period(messages, "D", by="channel")
    assert split.to_dict("list") == {
        "(none)": [0, 0, 1, 0],
        "dev": [0, 1, 0, 1],
        "general": [2, 1, 0, 0],
    }
    assert metrics.messages_per_period(messages.iloc[:0])["messages"].tolist() == []


def test_accounts_by_role() -> None:
    users = users_frame(
        [
            {"user_id": 1, "full_name": "O", "email": "o", "role": 100},
            {"user_id": 2, "full_name": "M", "email": "m", "role": 400},
            {"user_id": 3, "full_name": "Bot", "email": "b", "role": 400, "is_bot": True},
            {"user_id": 4, "full_name": "Gone", "email": "g", "role": 400, "is_active": False},
            {"user_id": 5, "full_name": "G", "email": "g2", "role": 600},
        ]
    )
    table = metrics.accounts_by_role(users)
    assert table.index.tolist() == [
        "owner",
        "administrator",
        "moderator",
        "member",
        "guest",
        "total",
    ]
    assert table.loc["member"].tolist() == [1, 1, 1, 3]
    assert table.loc["administrator"].tolist() == [0, 0, 0, 0]
    assert table.loc["total"].tolist() == [3, 1, 1, 5]


def test_plot_messages_per_channel_is_agg_safe(messages: pd.DataFrame) -> None:
    from matplotlib.figure import Figure

    fig = metrics.plot_messages_per_channel(metrics.messages_per_channel(messages))
    assert isinstance(fig, Figure)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["dev", "general"]


# -- the same frames whatever the road: pages of iter_history, records, the dataset ------------

FRAME_NAMES = (
    "messages",
    "reactions",
    "edits",
    "dm_recipients",
    "topics",
    "topic_links",
    "users",
    "channels",
)


@pytest.fixture(scope="module")
def synced(sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> AnalyticsFrames:
    """The frames of a dataset synced by the member (the demo organization's small size)."""
    cache = tmp_path_factory.mktemp("frames-dataset")
    return Dataset.sync(sandbox.zuliprc("member"), cache=cache, progress=False).frames()


def _from_history(sandbox: Sandbox, **kwargs: Any) -> AnalyticsFrames:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("member")) as client:
        return AnalyticsFrames.from_records(
            client.messages.iter_history(apply_markdown=False, **kwargs),
            users=registered_accounts(client.events.register(fetch_event_types=["realm_user"])),
            channels=client.channels.list(
                include_all=True, exclude_archived=False, include_default=True
            ),
        )


@pytest.mark.parametrize(
    "kwargs", [{}, {"page_size": 700, "direction": "newer"}], ids=["older", "newer-small-pages"]
)
def test_frames_of_iter_history_equal_the_datasets(
    sandbox: Sandbox, synced: AnalyticsFrames, kwargs: dict[str, Any]
) -> None:
    frames = _from_history(sandbox, **kwargs)
    assert len(frames.messages) > 1000 and len(frames.reactions) > 0 and len(frames.edits) > 0
    assert frames.messages["id"].is_monotonic_increasing
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(frames, name), getattr(synced, name), obj=name)


def test_frames_of_typed_records_equal_the_datasets(
    sandbox: Sandbox, synced: AnalyticsFrames
) -> None:
    """Records someone iterated first give the same frames (any page size, any direction)."""
    with chatops.Client.from_zuliprc(sandbox.zuliprc("member")) as client:
        history = client.messages.iter_history(
            page_size=700, direction="newer", apply_markdown=False, allow_empty_topic_name=False
        )
        records = [m for m in history]
        assert all(isinstance(m, Message) for m in records)
        frames = AnalyticsFrames.from_records(records, users=client.users.list())
    for name in ("messages", "reactions", "edits", "dm_recipients", "topics", "topic_links"):
        pd.testing.assert_frame_equal(getattr(frames, name), getattr(synced, name), obj=name)


def test_a_history_is_read_once(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("member")) as client:
        history = client.messages.iter_history(page_size=50)
        first = next(history)
        assert isinstance(first, Message)
        with pytest.raises(RuntimeError, match="already been read"):
            history.pages()
        # a history already started is read on as records, from where it stands
        rest = messages_frame(history)
    assert first.id not in set(rest["id"])
    assert len(rest) > 1000


def test_a_record_that_is_not_a_message_is_named() -> None:
    with pytest.raises(
        ValueError, match=r"not a message record: .*required field `id` - at `\$\[0\]`"
    ):
        messages_frame([{"timestamp": 1}])
