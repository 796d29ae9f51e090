"""The explorer, headless, on a dataset synced from the demo organization."""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

import pandas as pd
import pytest

from chatops import analytics
from chatops.analytics import Dataset
from chatops.sandbox import Sandbox
from chatops.widgets import Explorer
from chatops.widgets.explorer import RECENT, VIEWS


@pytest.fixture(scope="module")
def ds(org: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    folder = tmp_path_factory.mktemp("explorer") / "c"
    return Dataset.sync(org.zuliprc("admin"), cache=folder, content=True, progress=False)


def test_a_channel_filter_changes_every_view(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    everything = {n: r.frame.copy() for n, r in ex.render_all().items()}
    assert set(everything) == set(VIEWS)
    channel = ex.frames.messages["channel"].value_counts().index[1]
    ex.channels.value = (str(channel),)
    # the view on screen is drawn again at once; the others when opened
    assert ex._drawn["messages_over_time"] == ex.state()
    after = ex.render_all()
    for name, before in everything.items():
        assert not after[name].frame.equals(before), name
        assert ex.tables[name].frame.equals(after[name].frame)
    kept = ex.messages()
    assert set(kept["channel"].astype(str)) == {str(channel)}
    assert after["messages_over_time"].total == len(kept)
    assert not ex.error.value


def test_filters_set_back_show_the_drawing_made_for_them(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    name = "messages_over_time"  # the tab on screen, drawn when the explorer opens
    first, png = ex.results[name], ex._images[name].value
    chans = [str(c) for c in ex.frames.messages["channel"].value_counts().index[: RECENT + 1]]
    assert len(chans) == RECENT + 1
    ex.channels.value = (chans[0],)
    filtered = ex.results[name]
    assert filtered is not first and 0 < filtered.total < first.total
    assert ex._images[name].value != png
    ex.channels.value = ()
    # back to the filters of the first drawing: that drawing again, not a new one
    assert ex.results[name] is first
    assert ex._images[name].value == png
    assert ex.tables[name].frame.equals(first.frame)
    # only the last few settings are kept: after RECENT others the first is computed again
    for c in chans[1:]:
        ex.channels.value = (c,)
        assert ex.results[name].total < first.total
    ex.channels.value = ()
    again = ex.results[name]
    assert again is not first
    assert again.frame.equals(first.frame) and again.total == first.total
    assert not ex.error.value


def test_a_view_says_it_is_computing_before_its_new_drawing(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    ex.tabs.selected_index = list(VIEWS).index("newcomer_cohorts")
    seen: list[tuple[str, bytes]] = []
    ex.timing.observe(
        lambda c: seen.append((c["new"], ex._images["newcomer_cohorts"].value)), names="value"
    )
    before = ex._images["newcomer_cohorts"].value
    ex.channels.value = (str(ex.frames.messages["channel"].value_counts().index[0]),)
    # first the computing line, while the old drawing is still shown; then the time it took
    assert "Computing Newcomer cohorts…" in seen[0][0] and "fa-spinner" in seen[0][0]
    assert seen[0][1] == before
    assert seen[-1][0].endswith(" s</span>") and "Newcomer cohorts: " in seen[-1][0]
    assert ex._images["newcomer_cohorts"].value != before
    # filters set back: the kept drawing is shown with no computing line
    seen.clear()
    ex.channels.value = ()
    assert len(seen) == 1 and "Computing" not in seen[0][0]


def test_bots_people_time_zone_and_excel(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    all_msgs = ex.render("messages_over_time").total
    ex.bots.value = False
    no_bots = ex.results["messages_over_time"].total
    bots = set(ex.frames.users.loc[ex.frames.users["is_bot"], "user_id"])
    assert no_bots == int((~ex.frames.messages["sender_id"].isin(bots)).sum()) <= all_msgs
    users = ex.frames.users.set_index("user_id")
    top = int(ex.frames.messages["sender_id"].value_counts().index[0])
    ex.people.value = (str(users.loc[top, "full_name"]),)
    assert ex.results["messages_over_time"].total == int(
        (ex.frames.messages["sender_id"] == top).sum()
    )
    ex.people.value = ()
    ex.roles.value = ("guest",)
    guests = set(users.index[users["role_name"].astype("string") == "guest"])
    assert ex.results["messages_over_time"].total == int(
        ex.frames.messages["sender_id"].isin(guests).sum()
    )
    ex.roles.value = ()
    ex.tz.value = "sender"
    heat = ex.render("activity_heatmap")
    assert "each sender's own time zone" in (heat.coverage or "")
    path = ex.export_excel("activity_heatmap", export_dir / "heat.xlsx")
    back = pd.read_excel(path, sheet_name=None)
    assert back["frame"]["messages"].sum() == heat.frame["messages"].sum()
    assert "download" in ex._excel_links["activity_heatmap"].value


def test_a_topic_opens_its_thread_with_links(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    ex.render("topic_lifecycle")
    ex.channels.value = (str(ex.frames.messages["channel"].value_counts().index[0]),)
    ex.render("topic_lifecycle")
    assert ex.topic.options and ex.topic.value == ex.topic.options[0][1]  # the busiest, picked
    ex.open_thread.click()
    assert not ex.error.value
    frame = ex.thread_table.frame
    stream_id, topic = ex.topic.value
    assert ex.tabs.selected_index == len(VIEWS)
    lc = ex.results["topic_lifecycle"].frame
    row = lc[(lc["stream_id"] == stream_id) & (lc["topic"].astype(str) == topic)]
    assert len(frame) == int(row["messages"].iloc[0]) == int(lc["messages"].max())
    assert frame["content"].notna().all()
    site = ds.manifest["site"]
    assert all(str(x).startswith(f"{site}/#narrow/channel/{stream_id}-") for x in frame["link"])
    assert all(
        str(x).endswith(f"/near/{i}") for x, i in zip(frame["link"], frame["id"], strict=True)
    )
    assert 'target="_blank"' in ex.thread_table.html.value


def test_search_and_keywords_with_text(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    word = "the"
    got = ex.search(word)
    assert len(got) > 0 and got["link"].str.contains("/near/").all()
    assert ex.export_excel("search", export_dir / "s.xlsx").exists()
    ex.channels.value = (str(ex.frames.messages["channel"].value_counts().index[0]),)
    kw = ex.show_keywords()
    assert len(kw) > 0 and (kw["z"].diff().dropna() <= 0).all()


def test_without_text_the_explorer_says_how_to_keep_it(
    org: Sandbox, tmp_path: Path, export_dir: Path
) -> None:
    plain = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "p", progress=False)
    ex = Explorer(plain, export_dir=export_dir).load()
    assert "--content" in ex.search_page.children[0].value
    with pytest.raises(ValueError, match="keeps no message text"):
        ex.search("x")


def test_a_saved_notebook_shows_what_the_explorer_is_not_its_widgets_repr(
    ds: Dataset, export_dir: Path
) -> None:
    ex = Explorer(ds, export_dir=export_dir)
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # the live widgets
    text = bundle["text/plain"]
    assert text == repr(ex)  # the same words before the frames are read and after
    assert text.startswith(f"Explorer over {len(ex.frames.messages):,} messages of ")
    assert "VBox" not in text and "JupyterLab" in text


def test_nothing_is_read_when_the_explorer_is_made(
    ds: Dataset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[bool] = []
    frames = Dataset.frames
    monkeypatch.setattr(
        Dataset, "frames", lambda self, **kw: read.append(True) or frames(self, **kw)
    )
    ex = Explorer(ds, export_dir=tmp_path)
    assert read == [] and not ex.loaded
    assert "Loading the dataset" in ex.loading.value
    assert list(ex.widget.children)[1] is ex.loading  # under the style, the loading line only
    assert ex.load() is ex and ex.load() is ex
    assert read == [True] and ex.loaded
    assert ex.loading not in ex.widget.children and ex.tabs in ex.widget.children
    assert ex.results["messages_over_time"].total == len(ex.frames.messages)  # tab on screen
    nowhere = Explorer(tmp_path / "no-dataset-here")  # a folder: not even its manifest is read
    assert not nowhere.loaded and "no-dataset-here" in repr(nowhere)
    with pytest.raises(ValueError, match="holds no dataset"):
        nowhere.load()


def test_shown_it_loads_and_a_failure_shows_in_its_place(ds: Dataset, tmp_path: Path) -> None:
    ex = Explorer(ds, export_dir=tmp_path)
    ex._repr_mimebundle_()  # outside a kernel the loading is done at once
    assert ex.loaded and ex.tabs in ex.widget.children
    nowhere = Explorer(tmp_path / "no-dataset-here")
    nowhere._repr_mimebundle_()  # never raised into the notebook
    assert not nowhere.loaded
    assert "could not load" in nowhere.loading.value
    assert "holds no dataset" in nowhere.loading.value


def test_a_script_may_skip_load_the_methods_load_first(ds: Dataset, tmp_path: Path) -> None:
    ex = Explorer(ds, export_dir=tmp_path)
    assert set(ex.render_all()) == set(VIEWS)
    assert ex.loaded


def test_anonymized_the_views_show_keyed_pseudonyms_and_no_names(
    ds: Dataset, export_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHATOPS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("CHATOPS_PSEUDONYM_KEY", raising=False)
    with pytest.raises(ValueError, match="chatops data key"):
        Explorer(ds, export_dir=export_dir, anonymize=True)
    key = "an-explorer-key-of-at-least-32-characters"
    ex = Explorer(ds, export_dir=export_dir, anonymize=True, key=key).load()
    names = {str(n) for n in ex.frames.users["full_name"].dropna()}
    ids = {analytics.pseudonym(int(i), key) for i in ex.frames.users["user_id"]}
    result = ex.render("participation_distribution")
    assert set(result.frame["user_id"]) <= ids and len(result.frame)
    assert "name" not in ex.tables["participation_distribution"].frame.columns
    path = ex.export_excel("participation_distribution", export_dir / "p.xlsx")
    text = "\n".join(
        str(v)
        for df in pd.read_excel(path, sheet_name=None).values()
        for v in df.to_numpy().ravel()
    )
    assert not [n for n in names if n in text]
    assert key not in text
    # without anonymize the same view names people
    plain = Explorer(ds, export_dir=export_dir).load().render("participation_distribution")
    assert set(plain.frame["name"].dropna()) & names


def _channel_messages(ex: Explorer) -> pd.DataFrame:
    m = ex.frames.messages
    return m[m["stream_id"].notna() & m["topic"].notna()]


def test_the_scorecard_under_a_period_compares_it_with_the_period_before(
    ds: Dataset, export_dir: Path
) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    ex.period.value = "last 30 days"
    r = ex.render("channel_scorecard")
    last = pd.Timestamp(ex.frames.messages["timestamp"].max())
    ts = _channel_messages(ex)["timestamp"]
    before = int(((ts > last - pd.Timedelta(days=60)) & (ts <= last - pd.Timedelta(days=30))).sum())
    now = int(((ts > last - pd.Timedelta(days=30)) & (ts <= last)).sum())
    assert before > 0  # the data goes back further: there is a period before to compare with
    assert int(r.frame["previous_messages"].sum()) == before
    assert int(r.frame["messages"].sum()) == now
    busy = r.frame[r.frame["previous_messages"] > 0]
    assert busy["change_pct"].notna().all() and len(busy) > 0
    assert (r.period_start, r.as_of) == (last - pd.Timedelta(days=30), last)
    ex.period.value = "last 7 days"  # the window follows the period filter
    r7 = ex.render("channel_scorecard")
    assert r7.as_of - r7.period_start == pd.Timedelta(days=7)
    assert r7.frame["previous_messages"].notna().all()
    assert not ex.error.value


def test_a_scorecard_filtered_to_a_channel_lists_that_channel_only(
    ds: Dataset, export_dir: Path
) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    channel = str(ex.frames.messages["channel"].value_counts().index[1])
    ex.channels.value = (channel,)
    r = ex.render("channel_scorecard")
    assert r.frame["channel"].tolist() == [channel]
    assert math.isnan(r.hhi) and math.isnan(r.previous_hhi)  # no concentration of one channel
    title = r.plot().axes[0].get_title()
    assert "HHI: needs several channels" in title and "1.00" not in title
    two = (channel, str(ex.frames.messages["channel"].value_counts().index[0]))
    ex.channels.value = two
    r2 = ex.render("channel_scorecard")
    assert set(r2.frame["channel"]) == set(two) and 0 < r2.hhi < 1


def test_participation_filtered_to_people_is_of_those_people(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    users = ex.frames.users.set_index("user_id")
    top = int(ex.frames.messages["sender_id"].value_counts().index[0])
    ex.people.value = (str(users.loc[top, "full_name"]),)
    r = ex.render("participation_distribution")
    assert r.frame["user_id"].tolist() == [top]  # nobody else: no lurker, no other reactor
    assert r.lurker_share == 0.0  # the one person chosen posted
    assert math.isnan(r.gini)  # no spread among one person
    assert "Gini n/a: one person" in r.plot().axes[0].get_title()
    # a role: lurkers and Gini among the guests subscribed, not the whole organization
    ex.people.value = ()
    ex.roles.value = ("guest",)
    r = ex.render("participation_distribution")
    guests = set(users.index[users["role_name"].astype("string") == "guest"])
    subs = ex.frames.subscriptions
    subscribed = set(subs.loc[subs["user_id"].isin(guests), "user_id"]) - set(
        users.index[users["is_bot"]]
    )
    posted = set(ex.frames.messages.loc[ex.frames.messages["sender_id"].isin(guests), "sender_id"])
    assert set(r.frame["user_id"]) <= guests
    assert r.lurker_share == pytest.approx(len(subscribed - posted) / len(subscribed))
    assert not ex.error.value


def test_messages_over_time_marks_the_first_week_a_period_cuts(
    ds: Dataset, export_dir: Path
) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    ex.period.value = "last 30 days"
    r = ex.results["messages_over_time"]  # the tab on screen, drawn again at once
    since = ex.since()
    first = r.frame[r.frame["split"] == "human"].iloc[0]
    assert since is not None and first["bucket_start"] < since
    assert bool(first["partial"])
    legend = [t.get_text() for t in r.plot().axes[0].get_legend().get_texts()]
    assert legend[-1].startswith("partial: first week (counted from ")


def test_keywords_with_no_channel_say_what_to_choose(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    ex.tabs.selected_index = len(VIEWS) + 2
    assert ex.keywords_image.layout.display == "none"  # no empty (broken) image
    assert "Choose one channel" in ex.keywords_note.value
    got = ex.show_keywords()
    assert got.empty and not ex.error.value
    assert ex.keywords_image.layout.display == "none" and ex.keywords_image.value == b""
    assert "Choose one channel" in ex.keywords_note.value
    ex.channels.value = tuple(str(c) for c in ex.frames.messages["channel"].dropna().unique()[:2])
    assert ex.show_keywords().empty and "single channel" in ex.keywords_note.value
    ex.channels.value = (str(ex.frames.messages["channel"].value_counts().index[0]),)
    assert len(ex.show_keywords()) > 0
    assert ex.keywords_image.layout.display is None and ex.keywords_image.value
    assert ex.keywords_note.value == ""


def test_tables_show_names_rounded_numbers_and_one_line_times(
    ds: Dataset, export_dir: Path
) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    lc = ex.render("topic_lifecycle")
    shown = ex.tables["topic_lifecycle"].shown
    names = dict(zip(ex.frames.users["user_id"], ex.frames.users["full_name"], strict=True))
    assert "starter_id" in lc.frame.columns  # the frame keeps its ids (Export CSV writes them)
    assert "starter_id" not in shown.columns and "stream_id" not in shown.columns
    first = lc.frame.iloc[0]
    assert shown["starter"].iloc[0] == names[int(first["starter_id"])]
    when = first["started_at"].strftime("%Y-%m-%d\u00a0%H:%M")
    assert shown["started_at"].iloc[0] == f'<span class="chatops-nobreak">{when}</span>'
    assert 'class="chatops-nobreak">' in ex.tables["topic_lifecycle"].html.value
    hours = [c for c in shown["duration_hours"] if c]
    assert hours and all(len(c.rsplit(".", 1)[1]) == 2 for c in hours)
    sc = ex.render("channel_scorecard")
    pct = ex.tables["channel_scorecard"].shown["participation_pct"]
    value = sc.frame["participation_pct"].iloc[0]
    assert pct.iloc[0] == f"{value:,.1f}%"
    pd_ = ex.render("participation_distribution")
    shown = ex.tables["participation_distribution"].shown
    assert "user_id" not in shown.columns and "name" in shown.columns
    assert shown["share"].iloc[0] == f"{100 * pd_.frame['share'].iloc[0]:.1f}%"
    graph = ex.render("interaction_graph")
    shown = ex.tables["interaction_graph"].shown
    assert shown["source"].iloc[0] == names[int(graph.frame["source"].iloc[0])]


def test_the_people_list_narrows_as_a_name_is_typed(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    everyone = list(ex.people.options)
    drawn = ex.results["messages_over_time"]
    chosen = everyone[-1]
    ex.people.value = (chosen,)
    after = ex.results["messages_over_time"]
    assert after is not drawn
    word = everyone[0].split()[0][:3].lower()
    listed = ex.find_people(word)
    assert listed == list(ex.people.options)
    assert listed[0] == chosen and ex.people.value == (chosen,)  # still chosen
    others = [p for p in everyone if word in p.lower() and p != chosen]
    assert listed[1:] == others and len(listed) < len(everyone)
    assert ex.results["messages_over_time"] is after  # typing is no new filter: no redraw
    ex.people_search.value = ""
    assert set(ex.people.options) == set(everyone) and ex.people.value == (chosen,)


def test_a_group_filter_keeps_its_members_through_subgroups(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    assert list(ex.groups.options)[:2] == ["leads", "support-team"]  # role groups after
    g = ex.frames.user_groups
    assert g is not None
    leads = set(g.loc[g["name"] == "leads", "user_id"].astype(int))
    team = set(g.loc[g["name"] == "support-team", "user_id"].astype(int))
    direct = set(g.loc[(g["name"] == "support-team") & g["direct"], "user_id"].astype(int))
    assert leads <= team and direct < team  # leads is a subgroup of support-team
    ex.groups.value = ("support-team",)
    senders = set(ex.messages()["sender_id"].astype(int))
    assert senders and senders <= team and senders & (leads - direct)
    r = ex.render("messages_over_time")
    assert int(r.frame["messages"].sum()) == len(ex.messages())
    assert not ex.error.value


def test_each_time_series_says_what_changed_and_who_moved(ds: Dataset, export_dir: Path) -> None:
    ex = Explorer(ds, export_dir=export_dir).load()
    ex.render("messages_over_time")
    words = ex.changes["messages_over_time"].value
    change = ex.results["messages_over_time"].change()
    assert change is not None and escape(change.sentence()) in words
    moved = ex.movers()
    assert moved is not None and escape(moved.sentence()) in words
    assert "Against the 7 days before the last 7" in words
    ex.render("zulip_stats")
    assert "messages sent in the week of" in ex.changes["zulip_stats"].value
    ex.render("participation_distribution")  # not a time series: nothing said
    assert ex.changes["participation_distribution"].value == ""
    ex.period.value = "last 30 days"
    assert ex.movers().period == pd.Timedelta(days=30)  # type: ignore[union-attr]
    assert not ex.error.value
