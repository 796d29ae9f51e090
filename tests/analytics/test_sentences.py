"""The sentences under the views, on hand-built frames whose answers are worked out by hand."""

from __future__ import annotations

import networkx as nx
import pandas as pd
import pytest

from chatops.analytics import sentences, views

from .conftest import messages, users

# Data from Mon 2024-01-01 to Sun 2024-06-30. First posts: person 1 on Jan 1, person 3 on Mar 15,
# person 2 on May 1, the bot (9) on Jun 1. The last 90 days of the data are (Apr 1, Jun 30].
HISTORY = messages(
    [
        (1, "2024-01-01 09:00", "general", "a", 1),
        (2, "2024-03-15 09:00", "general", "a", 3),
        (3, "2024-05-01 09:00", "dev", "b", 2),
        (4, "2024-06-01 09:00", "dev", "b", 9),
        (5, "2024-06-30 18:00", "general", "a", 1),
    ]
)
USERS = users([1, 2, 3], bots=[9])


def test_first_time_posters_counts_from_the_end_of_the_data() -> None:
    # person 2 only: person 3 started 107 days before the end; the bot is left out
    assert sentences.first_time_posters(HISTORY, users=USERS, days=90) == 1
    # without the users frame the bot counts as a person
    assert sentences.first_time_posters(HISTORY, days=90) == 2
    # measured back from the newest *first post* (May 1) it would have been 2 (persons 2 and 3)
    assert sentences.first_time_posters(HISTORY, users=USERS, days=120) == 2
    # an explicit end moves the window: the 90 days to Mar 20 hold persons 1 and 3's first posts
    assert sentences.first_time_posters(HISTORY, users=USERS, end="2024-03-20") == 2
    assert sentences.first_time_posters(HISTORY, users=USERS, end="2024-01-02") == 1
    text = sentences.newcomers(HISTORY, users=USERS)
    assert text == (
        "1 person posted for the first time in the last 90 days of the data (to 2024-06-30)."
    )
    with pytest.raises(ValueError, match="days must be positive"):
        sentences.first_time_posters(HISTORY, days=0)
    with pytest.raises(ValueError, match="no messages"):
        sentences.first_time_posters(HISTORY.iloc[:0])


def test_all_old_posters_give_zero_not_everyone() -> None:
    # everyone started a year before the end of the data: no newcomer, whatever today is
    old = messages(
        [(i, f"2023-01-0{i} 10:00", "general", "a", i) for i in range(1, 6)]
        + [(10 + i, "2024-01-10 10:00", "general", "a", i) for i in range(1, 6)]
    )
    assert sentences.first_time_posters(old, days=90) == 0


def test_weeks_are_named_by_their_monday() -> None:
    # three messages in the week Mon 2024-01-01 .. Sun 2024-01-07 (one on the Sunday), one in the
    # week of Jan 8, none in the week of Jan 15, two in the week of Jan 22
    df = messages(
        [
            (1, "2024-01-01 09:00", "general", "a", 1),
            (2, "2024-01-03 09:00", "general", "a", 2),
            (3, "2024-01-07 23:00", "general", "a", 1),
            (4, "2024-01-08 00:30", "general", "a", 1),
            (5, "2024-01-22 10:00", "general", "a", 1),
            (6, "2024-01-28 10:00", "general", "a", 1),
        ]
    )
    weekly = sentences.weekly_counts(df)
    assert [str(d) for d in weekly.index] == [
        "2024-01-01",
        "2024-01-08",
        "2024-01-15",
        "2024-01-22",
    ]
    assert weekly.tolist() == [3, 1, 0, 2]
    # resample("W") would have named the busiest week by its end, 2024-01-07
    assert sentences.busiest_week(df) == (
        "The busiest week began Monday 2024-01-01 with 3 messages, against a median week of 2."
    )
    # in New York, Sunday 23:00 UTC and Monday 00:30 UTC are both on Sunday Jan 7
    assert sentences.weekly_counts(df, tz="America/New_York").tolist()[:2] == [4, 0]
    assert sentences.busiest_week(df.iloc[:0]) == "No messages, so no busiest week."


@pytest.mark.parametrize(
    ("share", "text"),
    [
        (0.0009, "0.09%"),
        (0.000123, "0.012%"),
        (0.0056, "0.56%"),
        (0.33, "33%"),
        (0.01, "1%"),
        (0.0, "0%"),
        (1.0, "100%"),
        (0.9996, "99.96%"),
        (0.995, "99.5%"),
        (float("nan"), "n/a"),
    ],
)
def test_percent_keeps_the_significant_digits_of_small_shares(share: float, text: str) -> None:
    assert sentences.percent(share) == text


def test_percent_refuses_a_share_outside_zero_to_one() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        sentences.percent(1.5)


def test_a_tiny_direct_message_share_is_not_zero() -> None:
    rows = [(i, "2024-01-01 10:00", "general", "a", 1 + i % 3, "website") for i in range(1, 1250)]
    rows.append((1250, "2024-01-01 11:00", None, None, 2, "ZulipMobile"))
    df = messages(rows)
    # 1 in 1,250 is 0.08%, not "0%"; 1,249 in 1,250 is 99.92%, not "100%"
    assert sentences.direct_message_share(df) == (
        "0.08% of messages are direct messages; the most used client, Web app, sends 99.92% of all."
    )


def test_sentences_of_the_other_views() -> None:
    assert sentences.active_posters(HISTORY, users=USERS, days=28) == (
        "1 people posted in the last 28 days of the data (to 2024-06-30), out of 3 who ever posted."
    )
    assert sentences.channel_share(HISTORY, users=USERS) == (
        "#general carries 75% of channel messages; the quietest, #dev, 1."
    )
    assert sentences.participation(HISTORY, users=USERS) == (
        "The most active tenth of posters wrote 50% of messages (Gini 0.17)."
    )
    # two messages on Wednesdays at 14:xx UTC, one on a Monday: 15:xx in Berlin in winter
    hours = messages(
        [
            (1, "2024-01-03 14:10", "general", "a", 1),
            (2, "2024-01-10 14:50", "general", "a", 2),
            (3, "2024-01-08 09:00", "general", "a", 1),
        ]
    )
    assert sentences.busiest_hour(hours) == "The busiest hour of the week is Wednesday 14:00 UTC."
    assert sentences.busiest_hour(hours, tz="Europe/Berlin") == (
        "The busiest hour of the week is Wednesday 15:00 Europe/Berlin."
    )
    topics = pd.DataFrame({"resolved": [True, False, False], "messages": [4, 1, 2]})
    assert sentences.topics_resolved(topics) == (
        "33% of 3 topics are resolved; a topic has 2 messages at the median."
    )
    reacted = HISTORY.assign(reaction_count=pd.array([1, 0, 0, 0, 0], dtype="Int64"))
    reacts = pd.DataFrame({"message_id": [1], "user_id": [2], "emoji_name": ["tada"]})
    assert sentences.reactions(reacted, reacts, users=USERS) == (
        "25% of messages got a reaction; the most used emoji is :tada:."
    )


def test_reply_pairs_counts_each_pair_once() -> None:
    # 1 -> 2, 2 -> 1 and 2 -> 3: two pairs of people, whatever the direction
    df = messages(
        [
            (1, "2024-01-01 10:00", "general", "a", 1),
            (2, "2024-01-01 10:01", "general", "a", 2),
            (3, "2024-01-01 10:02", "general", "a", 1),
            (4, "2024-01-01 10:03", "general", "b", 2),
            (5, "2024-01-01 10:04", "general", "b", 3),
        ]
    )
    r = views.interaction_graph(df)
    assert isinstance(r.graph, nx.Graph) and len(r.frame) == 3
    largest = int((r.nodes["community"] == 1).sum())
    assert sentences.reply_pairs(r) == (
        "The reply graph links 2 pairs where one person answered the other in a topic; "
        f"1 of them both ways. {r.communities} communities; the largest, community 1, has "
        f"{largest} people."
    )
