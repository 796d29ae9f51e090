"""Write a synthetic analytics dataset straight into the dataset layout (no server).

    .venv/bin/python bench/synthetic_dataset.py OUT --messages 10000000 [--seed 1]

The layout is the one ``docs/dataset-layout.md`` describes (manifest, one folder per narrow,
part files sorted by id, the four tables), so ``Dataset(OUT)`` opens it and the views read it
with either engine. Messages are made a million at a time with numpy and written with pyarrow
in row groups of 128k rows, so memory stays bounded whatever ``--messages`` says: 2,000 people
(a few bots), 60 channels with 300 topics each (some resolved), a fifth of the messages direct,
senders Zipf-distributed, two years of history, reactions on a fifth of the messages, edits and
moves on a few percent.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chatops.analytics.dataset._files import SCHEMA_VERSION  # noqa: E402
from chatops.analytics.dataset._pages import EDIT_TYPE, LINK_TYPE, MESSAGE_SCHEMA, REACTION_TYPE  # noqa: E402
from chatops.analytics.schema import validate  # noqa: E402

PEOPLE = 2000
BOTS = 20
CHANNELS = 60
TOPICS = 300
CHUNK = 1_000_000
ROW_GROUP = 128 * 1024
START = int(pd.Timestamp("2024-11-01", tz="UTC").timestamp())
SPAN = 2 * 365 * 86400
CLIENTS = np.array(["website", "ZulipElectron", "ZulipFlutter", "ZulipMobile", "API: Python"])
EMOJI = np.array(["thumbs_up", "heart", "tada", "smile", "eyes", "check", "rocket", "pray"])
CODES = np.array(["1f44d", "2764", "1f389", "1f642", "1f440", "2714", "1f680", "1f64f"])
KINDS = np.array(["edit", "move_topic", "resolve"])
TZS = ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Tokyo", "UTC", None]


def _tables(out: Path, rng: np.random.Generator) -> None:
    ids = np.arange(1, PEOPLE + BOTS + 1)
    joined = pd.to_datetime(START + rng.integers(-SPAN // 2, SPAN, len(ids)), unit="s", utc=True)
    users = pd.DataFrame(
        {
            "user_id": ids,
            "full_name": [f"Person {i}" for i in ids],
            "email": [f"user{i}@example.com" for i in ids],
            "role": np.where(ids <= 5, 200, 400),
            "is_active": True,
            "is_bot": ids > PEOPLE,
            "date_joined": joined,
            "timezone": [TZS[i % len(TZS)] for i in ids],
        }
    )
    channels = pd.DataFrame(
        {
            "stream_id": np.arange(1, CHANNELS + 1),
            "name": [f"channel-{i:02d}" for i in range(1, CHANNELS + 1)],
            "invite_only": np.arange(1, CHANNELS + 1) % 7 == 0,
            "is_archived": False,
            "date_created": pd.Timestamp(START - 86400, unit="s", tz="UTC"),
        }
    )
    subs = [(s, u) for s in range(1, CHANNELS + 1) for u in ids[rng.random(len(ids)) < 0.2]]
    groups = [(f"team-{i % 10}", int(u)) for i, u in enumerate(ids[:PEOPLE])]
    folder = out / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    for name, df in (
        ("users", validate(users, "users")),
        ("channels", validate(channels, "channels")),
        (
            "subscriptions",
            validate(pd.DataFrame(subs, columns=["stream_id", "user_id"]), "subscriptions"),
        ),
        ("user_groups", validate(pd.DataFrame(groups, columns=["name", "user_id"]), "user_groups")),
    ):
        pq.write_table(pa.Table.from_pandas(df, preserve_index=False), folder / f"{name}.parquet")


TYPES = pa.array(["stream", "private"])
CHANNEL_NAMES = pa.array([f"channel-{i:02d}" for i in range(1, CHANNELS + 1)])
TOPIC_NAMES = pa.array(
    [f"topic {i}" for i in range(TOPICS)] + [f"✔ topic {i}" for i in range(TOPICS)]
)
PERSON_NAMES = pa.array([f"Person {i}" for i in range(1, PEOPLE + BOTS + 1)])
EMAILS = pa.array([f"user{i}@example.com" for i in range(1, PEOPLE + BOTS + 1)])


def _names(codes: np.ndarray, names: pa.Array) -> pa.Array:
    """Strings by code (-1: null), made in Arrow (no Python string per row)."""
    idx = pa.array(codes.astype(np.int32), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(idx, names).cast(pa.string())


def _lists(counts: np.ndarray, values: pa.Array) -> pa.ListArray:
    offsets = np.zeros(len(counts) + 1, np.int32)
    np.cumsum(counts, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def _chunk(first_id: int, n: int, total: int, rng: np.random.Generator) -> pa.Table:
    ids = np.arange(first_id, first_id + n, dtype=np.int64)
    ts = START + (ids * SPAN) // total + rng.integers(0, 60, n)
    is_dm = rng.random(n) < 0.2
    stream = np.where(is_dm, 0, rng.zipf(1.4, n) % CHANNELS + 1)
    topic_no = rng.zipf(1.3, n) % TOPICS
    resolved = topic_no % 9 == 0
    bots = rng.random(n) < 0.03
    sender = np.where(bots, PEOPLE + 1 + rng.integers(0, BOTS, n), rng.zipf(1.2, n) % PEOPLE + 1)
    other = (sender + 1 + rng.integers(0, PEOPLE - 1, n)) % PEOPLE + 1
    edited = rng.random(n) < 0.05
    moved = edited & (rng.random(n) < 0.2)

    def ts_array(mask: np.ndarray, offset: int) -> pa.Array:
        return pa.array(np.where(mask, ts + offset, 0), pa.timestamp("s", tz="UTC"), mask=~mask)

    # direct messages: the sender and one other person
    dm_counts = np.where(is_dm, 2, 0)
    dm_values = np.stack([sender[is_dm], other[is_dm]], axis=1).ravel()
    # reactions on a fifth of the messages, one to three each
    r_counts = np.where(rng.random(n) < 0.2, rng.integers(1, 4, n), 0)
    k = int(r_counts.sum())
    e = rng.integers(0, len(EMOJI), k)
    reactions = pa.StructArray.from_arrays(
        [
            pa.array(rng.integers(1, PEOPLE + 1, k), pa.int64()),
            _names(e, pa.array(EMOJI)),
            _names(e, pa.array(CODES)),
            _names(np.zeros(k, np.int64), pa.array(["unicode_emoji"])),
        ],
        fields=list(REACTION_TYPE),
    )
    # one edit or move per edited message
    e_counts = edited.astype(np.int32)
    m = int(e_counts.sum())
    edits = pa.StructArray.from_arrays(
        [
            pa.array(ts[edited] + 600, pa.timestamp("s", tz="UTC")),
            pa.array(sender[edited], pa.int64()),
            _names(moved[edited].astype(np.int64), pa.array(["edit", "move_topic"])),
            _names(np.where(moved[edited], 0, -1), pa.array(["old topic"])),
            _names(
                np.where(moved[edited], (topic_no + resolved * TOPICS)[edited], -1), TOPIC_NAMES
            ),
            pa.nulls(m, pa.int64()),
            pa.nulls(m, pa.int64()),
        ],
        fields=list(EDIT_TYPE),
    )
    return pa.table(
        {
            "id": pa.array(ids),
            "timestamp": pa.array(ts, pa.timestamp("s", tz="UTC")),
            "type": _names(is_dm.astype(np.int32), TYPES),
            "stream_id": pa.array(stream, pa.int64(), mask=is_dm),
            "channel": _names(np.where(is_dm, -1, stream - 1), CHANNEL_NAMES),
            "topic": _names(np.where(is_dm, -1, topic_no + resolved * TOPICS), TOPIC_NAMES),
            "sender_id": pa.array(sender, pa.int64()),
            "sender": _names(sender - 1, PERSON_NAMES),
            "sender_email": _names(sender - 1, EMAILS),
            "client": _names(rng.integers(0, len(CLIENTS), n), pa.array(CLIENTS)),
            "content": pa.nulls(n, pa.string()),
            "content_length": pa.array(rng.integers(1, 800, n), pa.int64()),
            "recipient_id": pa.array(
                np.minimum(sender, other) * 10000 + np.maximum(sender, other),
                pa.int64(),
                mask=~is_dm,
            ),
            "last_edit_timestamp": ts_array(edited, 600),
            "last_moved_timestamp": ts_array(moved, 600),
            "dm_recipients": _lists(dm_counts, pa.array(dm_values, pa.int64())),
            "reactions": _lists(r_counts, reactions),
            "edits": _lists(e_counts, edits),
            "topic_links": _lists(np.zeros(n, np.int32), pa.array([], LINK_TYPE)),
        },
        schema=MESSAGE_SCHEMA,
    )


def write(out: Path, messages: int, seed: int = 1) -> Path:
    """Write the dataset into ``out`` (a new or empty folder); returns ``out``."""
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out} is not empty: give a new folder")
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    _tables(out, rng)
    narrows: dict[str, dict[str, object]] = {}
    part = 0
    done = 0
    with tqdm(total=messages, unit="msg", desc="synthetic") as bar:
        while done < messages:
            n = min(CHUNK, messages - done)
            t = _chunk(done + 1, n, messages, rng)
            sids = t["stream_id"].fill_null(0).to_numpy()
            for sid_key in np.unique(sids):
                key = "dm" if sid_key == 0 else f"channel-{sid_key}"
                part += 1
                rows = t.filter(pa.array(sids == sid_key))
                rel = f"messages/narrow={key}/part-{part:06d}.parquet"
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(rows, out / rel, row_group_size=ROW_GROUP)
                sid = None if key == "dm" else int(key.split("-")[1])
                entry = narrows.setdefault(
                    key,
                    {
                        "kind": "dm" if key == "dm" else "channel",
                        "stream_id": sid,
                        "name": "direct messages" if key == "dm" else f"channel-{sid:02d}",
                        "archived": False,
                        "readable": True,
                        "files": [],
                        "watermark": 0,
                        "synced_at": int(time.time()),
                    },
                )
                ids = rows["id"].to_numpy()
                entry["files"].append(  # type: ignore[attr-defined]
                    {
                        "path": rel,
                        "rows": len(ids),
                        "min_id": int(ids.min()),
                        "max_id": int(ids.max()),
                    }
                )
                entry["watermark"] = int(ids.max())
            done += n
            bar.update(n)
            del t
    now = int(time.time())
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "site": "https://synthetic.example.com",
        "email": "analyst@example.com",
        "content": False,
        "created": now,
        "updated": now,
        "narrows": narrows,
        "next_part": part + 1,
        "events": {"queue_id": None, "last_event_id": -1},
        "coverage": {
            "as_of": now,
            "channels_readable": [
                {"stream_id": s, "name": f"channel-{s:02d}", "archived": False}
                for s in range(1, CHANNELS + 1)
            ],
            "channels_not_readable": [],
            "dm_conversations": PEOPLE,
        },
        "last_sync": None,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    os.chmod(out, 0o700)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--messages", type=int, default=10_000_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.perf_counter()
    write(args.out, args.messages, args.seed)
    print(f"{args.messages:,} messages in {time.perf_counter() - t0:.1f} s -> {args.out}")


if __name__ == "__main__":
    main()
