"""Every view over frames in memory with many of its options, saved from one checkout of
chatops and compared with another's: a change to how the views compute keeps every result.

    git worktree add /tmp/chatops-before <commit>
    .venv/bin/python bench/compare_options.py save ~/chatops-data/medium /tmp/before.pkl --checkout /tmp/chatops-before
    .venv/bin/python bench/compare_options.py save ~/chatops-data/medium /tmp/after.pkl
    .venv/bin/python bench/compare_options.py compare /tmp/before.pkl /tmp/after.pkl

``save`` calls each view with each set of its options (splits, frequencies, zones, the
senders' own clocks, user groups, presence, periods, limits, communities), each under four
common filters (none, a period, bots left out, both), and pickles every result's frames,
summary and coverage note, or the error a call raised. ``compare`` checks every frame with
``assert_frame_equal``'s exact defaults, every number and note, and every error's type and
message; it prints what differs and exits 1 when anything does.

Save both sides one after the other: without ``as_of`` a bucket is ``partial`` when it ends after
the time of the call, so results saved hours apart differ in the buckets that ended in between.
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _calls(f: Any) -> dict[str, tuple[list[dict[str, Any]], dict[str, Any]]]:
    """Each view's option sets and the frames it is given."""
    import pandas as pd

    ts = f.messages["timestamp"]
    zones = ["Asia/Kolkata", "America/New_York", None, "Not/AZone"]
    users = f.users.assign(timezone=(zones * len(f.users))[: len(f.users)])
    seen = pd.DataFrame(
        {
            "user_id": f.users["user_id"],
            "timestamp": ts.max() - pd.to_timedelta(range(len(f.users)), unit="h") * 7,
        }
    )
    groups = list(f.user_groups["name"].unique()[:2])
    return {
        "messages_over_time": (
            [
                {"split": s, "freq": q, "tz": z}
                for s in (None, "is_bot", "recipient_type", "channel", "client")
                for q in ("h", "D", "W", "M")
                for z in ("UTC", "Asia/Kolkata", "sender")
            ],
            {"users": users, "channels": f.channels, "dm_recipients": f.dm_recipients},
        ),
        "active_users": (
            [
                {"tz": z, "definition": d}
                for z in ("UTC", "America/New_York")
                for d in ("sent", "any")
            ]
            + [{"windows": (1, 3, 90)}],
            {"users": f.users, "presence": seen},
        ),
        "channel_scorecard": (
            [
                {"period": p, "compare_previous": c}
                for p in ("7D", "30D", "365D")
                for c in (True, False)
            ],
            {"channels": f.channels, "subscriptions": f.subscriptions, "users": f.users},
        ),
        "topic_lifecycle": (
            [{"first_reply_sla_hours": h} for h in (0.5, 24)]
            + [{"channel_names": ["general", "x"]}],
            {"edits": f.edits, "users": f.users},
        ),
        "participation_distribution": (
            [{"period": p, "include_lurkers": i} for p in (None, "30D") for i in (True, False)],
            {"reactions": f.reactions, "subscriptions": f.subscriptions, "users": f.users},
        ),
        "activity_heatmap": (
            [
                {"by": b, "tz": z}
                for b in (None, "channel", "user_group")
                for z in ("UTC", "Asia/Kolkata", "sender")
            ]
            + [{"by": "user_group", "groups": groups}],
            {"users": users, "user_groups": f.user_groups},
        ),
        "newcomer_cohorts": (
            [
                {"cohort": c, "cohort_by": b, "horizon": h}
                for c in ("W", "M")
                for b in ("first_post", "date_joined")
                for h in (3, 12)
            ],
            {"users": f.users},
        ),
        "reactions_and_engagement": (
            [{"freq": q, "period": p} for q in ("D", "W") for p in (None, "30D")]
            + [{"most_reacted_limit": 5, "top_n": 3}],
            {"reactions": f.reactions, "users": f.users},
        ),
        "client_and_dm_mix": (
            [
                {"freq": q, "period": p, "tz": z}
                for q in ("D", "W", "M")
                for p in (None, "30D")
                for z in ("UTC", "Asia/Kolkata")
            ],
            {"dm_recipients": f.dm_recipients, "users": f.users},
        ),
        "interaction_graph": (
            [{"min_weight": w, "communities": c} for w in (1, 3) for c in ("louvain", "greedy")],
            {"subscriptions": f.subscriptions, "channels": f.channels, "users": f.users},
        ),
    }


def save(folder: Path, out: Path, checkout: Path) -> None:
    sys.path.insert(0, str(checkout))
    warnings.simplefilter("ignore")
    from chatops import analytics
    from chatops.analytics import Dataset

    f = Dataset(folder).frames()
    ts = f.messages["timestamp"]
    common = [
        {},
        {"since": ts.quantile(0.2), "until": ts.quantile(0.8)},
        {"exclude_bots": True},
        {"since": ts.quantile(0.2), "exclude_bots": True},
    ]
    results: dict[tuple[str, str, str], Any] = {}
    for view, (options, frames) in _calls(f).items():
        fn = getattr(analytics, view)
        for o in options:
            for c in common:
                key = (view, repr(sorted(o.items())), repr(sorted(c.items())))
                try:
                    r = fn(f.messages, **frames, **o, **c)
                    results[key] = (dict(r.frames()), r.summary(), r.coverage)
                except Exception as exc:  # an error is a result to compare too
                    results[key] = ("error", type(exc).__name__, str(exc))
        print(f"{view}: {len(options) * len(common)} calls", flush=True)
    out.write_bytes(pickle.dumps(results))
    print(f"{len(results)} results in {out} (chatops from {analytics.__file__})")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def compare(before: Path, after: Path) -> int:
    import pandas as pd

    a, b = pickle.loads(before.read_bytes()), pickle.loads(after.read_bytes())
    differ = sorted(set(a) ^ set(b))
    for key in differ:
        print("only in one:", key)
    for key in sorted(set(a) & set(b)):
        x, y = a[key], b[key]
        if x[0] == "error" or y[0] == "error":
            if x != y:
                differ.append(key)
                print("error differs:", key, x, y)
            continue
        for name, frame in x[0].items():
            try:
                pd.testing.assert_frame_equal(y[0][name], frame)
            except (AssertionError, KeyError) as exc:
                differ.append(key)
                print("frame differs:", key, name, str(exc)[:300])
        for name, value in x[1].items():
            if not _same(value, y[1].get(name)):
                differ.append(key)
                print("number differs:", key, name, value, y[1].get(name))
        if x[2] != y[2]:
            differ.append(key)
            print("note differs:", key, x[2], y[2])
    errors = sum(1 for v in a.values() if v[0] == "error")
    print(f"{len(a)} calls compared ({errors} raise the same error on both), {len(differ)} differ")
    return 1 if differ else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("save")
    s.add_argument("folder", type=Path)
    s.add_argument("out", type=Path)
    s.add_argument(
        "--checkout", type=Path, default=ROOT, help="the chatops to run (default this one)"
    )
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args()
    if args.command == "save":
        save(args.folder, args.out, args.checkout)
    else:
        sys.exit(compare(args.before, args.after))


if __name__ == "__main__":
    main()
