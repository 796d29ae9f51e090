"""Search, keywords, topic threads and links over hand-built texts with known answers."""

from __future__ import annotations

import pandas as pd
import pytest

from chatops.analytics import validate
from chatops.analytics.text import (
    NO_CONTENT,
    encode_hash_component,
    keywords,
    message_link,
    search_messages,
    tokens,
    topic_thread,
)

from .conftest import messages, users

SITE = "https://chat.example.com"

TEXTS = [
    (1, "2026-03-02 09:00", "general", "release", 1, "Deploy the release tonight"),
    (2, "2026-03-02 10:00", "dev", "ci", 2, "the deployment failed: see the logs"),
    (3, "2026-03-03 12:00", "dev", "food", 3, "Lunch at noon? deploy later"),
    (4, "2026-03-04 08:00", "general", "release", 2, "deploy again? version 1.2 is out"),
    (5, "2026-03-05 08:00", None, None, 1, "can you deploy for me"),
]


def with_text(rows: list[tuple[object, ...]]) -> pd.DataFrame:
    df = messages([r[:5] for r in rows])
    return validate(df.assign(content=[r[5] for r in rows]), "messages")


def test_search_words_match_whole_words_newest_first_with_links() -> None:
    r = search_messages(with_text(TEXTS), "deploy", site=SITE, users=users([1, 2, 3]))
    assert list(r.frame["id"]) == [5, 4, 3, 1]  # "deployment" is another word
    assert r.matches == 4
    first = r.frame.iloc[1]
    assert first["sender"] == "Person 2" and first["channel"] == "general"
    assert first["link"] == f"{SITE}/#narrow/channel/1-general/topic/release/near/4"
    assert r.frame.iloc[0]["link"] == f"{SITE}/#narrow/near/5"  # a direct message
    assert "deploy again" in r.frame.iloc[1]["snippet"]


def test_search_all_words_phrases_regex_channel_person_period() -> None:
    df = with_text(TEXTS)
    assert list(search_messages(df, "deploy release").frame["id"]) == [1]
    assert list(search_messages(df, '"deploy later"').frame["id"]) == [3]
    assert list(search_messages(df, r"deploy\w*", regex=True).frame["id"]) == [5, 4, 3, 2, 1]
    assert list(search_messages(df, r"deploy\w*", regex=True, channels=["dev"]).frame["id"]) == [
        3,
        2,
    ]
    assert list(search_messages(df, r"deploy\w*", regex=True, channels=[1]).frame["id"]) == [4, 1]
    assert list(search_messages(df, "deploy", senders=[2]).frame["id"]) == [4]
    assert list(search_messages(df, "deploy", senders=["Person 1"]).frame["id"]) == [5, 1]
    got = search_messages(df, "deploy", since="2026-03-03", until="2026-03-05")
    assert list(got.frame["id"]) == [4, 3]
    assert list(search_messages(df, "DEPLOY", case=True).frame["id"]) == []
    assert list(search_messages(df, "Deploy", case=True).frame["id"]) == [1]


def test_search_times_in_the_chosen_zone() -> None:
    r = search_messages(with_text(TEXTS), "release", tz="Asia/Tokyo")
    assert str(r.frame["time"].dt.tz) == "Asia/Tokyo"
    assert r.frame["time"].iloc[0].hour == 18  # 09:00 UTC


def test_search_refuses_without_text_and_bad_patterns() -> None:
    plain = messages([r[:5] for r in TEXTS])
    with pytest.raises(ValueError) as err:
        search_messages(plain, "deploy")
    assert str(err.value) == NO_CONTENT and "--content" in NO_CONTENT
    with pytest.raises(ValueError, match="not a regular expression: '\\(unclosed'"):
        search_messages(with_text(TEXTS), "(unclosed", regex=True)
    with pytest.raises(ValueError, match="empty search"):
        search_messages(with_text(TEXTS), "  ")


def test_links_encode_as_the_web_app() -> None:
    assert encode_hash_component("v1.2 (draft) 100%") == "v1.2E2.20.28draft.29.20100.25"
    assert (
        message_link(SITE + "/", 42, 7, "design team", "v1.2 (draft) 100%")
        == f"{SITE}/#narrow/channel/7-design-team/topic/v1.2E2.20.28draft.29.20100.25/near/42"
    )
    assert message_link(SITE, 9, 3, "café", "✔ done") == (
        f"{SITE}/#narrow/channel/3-caf.C3.A9/topic/.E2.9C.94.20done/near/9"
    )


def test_tokens_leave_out_code_links_mentions_and_stop_words() -> None:
    text = "Hi @**Ann Lee** the `rm -rf` fix at https://x.io/a is in ```py\nimport os\n``` Deploy's fine :tada:"
    assert tokens(text) == ["fix", "deploy's", "fine"]


def test_keywords_of_a_channel_and_of_a_period() -> None:
    rows = []
    n = 0
    for day in range(1, 11):
        for words in ("deploy the pipeline now", "pipeline green, deploy done"):
            n += 1
            rows.append((n, f"2026-04-{day:02d} 10:00", "dev", "ci", 1, words))
        for words in ("lunch at noon", "weekend plans and lunch"):
            n += 1
            rows.append((n, f"2026-04-{day:02d} 12:00", "general", "chat", 2, words))
    n += 1
    rows.append((n, "2026-04-10 13:00", "general", "chat", 2, "did the deploy work"))
    df = with_text(rows)
    r = keywords(df, channel="dev", min_count=2)
    assert set(r.frame["term"].head(2)) == {"deploy", "pipeline"}
    assert "lunch" not in set(r.frame["term"])
    row = r.frame.set_index("term").loc["deploy"]
    assert (row["target_count"], row["rest_count"]) == (20, 1)
    assert row["z"] > 0 and row["target_per_10k"] == pytest.approx(
        1e4 * 20 / 60
    )  # 6 words a day: "now" is a stop word
    assert r.target == "#dev" and (r.target_messages, r.rest_messages) == (20, 21)
    assert r.plot().axes[0].get_title() == "Words that characterise #dev"
    # the last day of general against everything else: "work" only appears then
    last = keywords(df, channel="general", since="2026-04-10", min_count=1)
    assert last.frame["term"].iloc[0] == "work"
    with pytest.raises(ValueError, match="needs a target"):
        keywords(df)
    with pytest.raises(ValueError, match=NO_CONTENT[:20]):
        keywords(messages([r[:5] for r in rows]), channel="dev")


def test_topic_thread_lists_senders_reactions_edits_moves_and_links() -> None:
    rows = [
        (10, "2026-05-01 08:00", "dev", "✔ outage", 1, "the site is down"),
        (11, "2026-05-01 08:05", "dev", "✔ outage", 2, "looking"),
        (12, "2026-05-01 09:00", "dev", "other", 2, "unrelated"),
        (13, "2026-05-01 09:30", "dev", "✔ outage", 1, "fixed (v1.2)"),
    ]
    df = with_text(rows)
    reactions = validate(
        pd.DataFrame(
            {
                "message_id": [13, 13, 13, 12],
                "user_id": [2, 3, 1, 1],
                "emoji_name": ["tada", "tada", "heart", "tada"],
            }
        ),
        "reactions",
    )
    edits = validate(
        pd.DataFrame(
            {
                "message_id": [11, 13, 13],
                "timestamp": [pd.Timestamp("2026-05-01 10:00", tz="UTC")] * 3,
                "kind": ["edit", "edit", "resolve"],
            }
        ),
        "edits",
    )
    t = topic_thread(
        df,
        2,
        "outage",
        reactions=reactions,
        edits=edits,
        users=users([1, 2, 3]),
        tz="Europe/Berlin",
        site=SITE,
    )
    f = t.frame
    assert list(f["id"]) == [10, 11, 13]
    assert list(f["sender"]) == ["Person 1", "Person 2", "Person 1"]
    assert [x.hour for x in f["time"]] == [10, 10, 11]  # CEST
    assert list(f["content"]) == ["the site is down", "looking", "fixed (v1.2)"]
    assert list(f["reactions"]) == ["", "", "tada ×2, heart ×1"]
    assert list(f["edits"]) == [0, 1, 1] and list(f["moves"]) == [0, 0, 1]
    assert f["link"].iloc[2] == f"{SITE}/#narrow/channel/2-dev/topic/.E2.9C.94.20outage/near/13"
    assert (t.channel, t.topic) == ("dev", "outage")
    no_text = topic_thread(messages([r[:5] for r in rows]), 2, "✔ outage")
    assert no_text.frame["content"].isna().all() and len(no_text.frame) == 3
    with pytest.raises(ValueError, match="no topic 'nope' in channel 2"):
        topic_thread(df, 2, "nope")


def test_every_keyword_bar_has_its_own_label_beside_it() -> None:
    # 25 distinct words in dev, each said a different number of times: 20 bars drawn
    rows = []
    n = 0
    for i in range(25):
        for _ in range(i + 3):
            n += 1
            rows.append((n, "2026-04-01 10:00", "dev", "ci", 1, f"word{chr(97 + i)}xyz"))
    for k in range(40):
        n += 1
        rows.append((n, "2026-04-02 10:00", "general", "chat", 2, f"lunch{k % 5}abc"))
    # a dataset's coverage note under the figure, as the explorer draws it, takes room too
    note = "admin@example.com on https://chat.example.com, 2025-11-29 to 2026-11-29: " * 3
    r = keywords(with_text(rows), channel="dev", top_n=25, coverage=note)
    fig = r.plot()
    fig.draw_without_rendering()  # the figure as shown: after its ticks were thinned, if ever
    ax = fig.axes[0]
    bars = ax.patches
    assert len(bars) == 20
    centers = [b.get_y() + b.get_height() / 2 for b in bars]
    ticks = list(ax.get_yticks())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks == pytest.approx(centers)  # one tick per bar, at its middle
    top = r.frame.head(20)["term"].tolist()[::-1]
    assert labels == top  # each bar named by its own term, in order
