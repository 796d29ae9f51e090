"""Keyed pseudonyms: nobody is re-identified from a pseudonymised export or an anonymized view.

Against a dataset synced from the real sandbox: each test tries what someone handed the files
would try (hash every id 1..max with the usual unkeyed hashes and the old public salt, search
every name and email of the organization in every cell) and fails on any hit.
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import os
import pickle
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pandas as pd
import pyarrow.parquet as pq
import pytest

from chatops import analytics
from chatops.analytics import Dataset, views
from chatops.analytics.pseudonyms import KEY_ENV, PseudonymKey, load_key
from chatops.analytics.views import REGISTRY
from chatops.sandbox import Sandbox
from tests.test_cli import _one_line_error, chatops, chatops_here

KEY = "the-pseudonym-key-of-these-tests-0123456789"
OTHER = "another-pseudonym-key-for-these-tests-98765"
#: the columns of a shared copy that name a person
PERSON_COLUMNS = {"sender_id", "user_id", "bot_owner_id", "creator_id"}
PSEUDONYM = re.compile(r"^u-[0-9a-f]{16}$")


@pytest.fixture
def no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No key anywhere: no variable, and a state folder of the test's own (no key file)."""
    state = tmp_path / "state"
    monkeypatch.setenv("CHATOPS_STATE_DIR", str(state))
    monkeypatch.delenv(KEY_ENV, raising=False)
    return state


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    """The demo organization as generated, synced: an organization of the module's own, so
    that no other test's topic (one named "reactions", a word every report uses) is in it."""
    base = tmp_path_factory.mktemp("pseudonyms")
    with Sandbox.start(base / "org", size="small", seed=7) as sandbox:
        return Dataset.sync(
            sandbox.zuliprc("admin"), cache=base / "dataset", progress=False, content=True
        )


@pytest.fixture(scope="module")
def people(dataset: Dataset) -> list[str]:
    """Every name and email of the organization's accounts (bots and deactivated included)."""
    users = dataset.frames().users
    assert users is not None
    words = {str(v) for col in ("full_name", "email") for v in users[col].dropna()}
    return sorted(w for w in words if w.strip())


def _unkeyed_digests(max_id: int) -> dict[str, int]:
    """The first 10 hex digits of every unkeyed or public-salt hash of ids 1..max_id."""
    out: dict[str, int] = {}
    for i in range(1, max_id + 1):
        text = str(i).encode()
        salted = f"chatops:{i}".encode()  # the old public salt
        digests = [
            hmac.new(b"", text, hashlib.sha256).hexdigest(),  # HMAC under no key
            hmac.new(b"chatops", text, hashlib.sha256).hexdigest(),  # ... under the old salt
            hashlib.sha256(text).hexdigest(),
            hashlib.sha256(salted).hexdigest(),
            hashlib.sha1(text).hexdigest(),
            hashlib.md5(text).hexdigest(),
        ]
        for size in range(5, 65):  # BLAKE2b's digest size changes every digit
            digests.append(hashlib.blake2b(text, digest_size=size).hexdigest())
            digests.append(hashlib.blake2b(salted, digest_size=size).hexdigest())
        for digest in digests:
            out[digest[:10]] = i
    return out


def _hits(cells: Iterator[str], people: list[str], max_id: int) -> list[str]:
    """Every cell that names a person or holds an unkeyed hash of an id."""
    lowered = [p.lower() for p in people]
    digests = _unkeyed_digests(max_id)
    found = []
    for cell in cells:
        text = cell.lower()
        found += [f"{p!r} in {cell!r}" for p in lowered if p in text]
        found += [
            f"hash of id {digests[run[:10]]} in {cell!r}"
            for run in re.findall(r"[0-9a-f]{10,}", text)
            if run[:10] in digests
        ]
    return found


def _cells(folder: Path) -> Iterator[str]:
    """Every string in every file written: cells, column names, sheet names, file metadata."""
    for path in sorted(folder.iterdir()):
        yield path.name
        if path.suffix == ".csv":
            yield from path.read_text(encoding="utf-8").splitlines()
        elif path.suffix == ".parquet":
            table = pq.read_table(path)
            yield from (v.decode(errors="replace") for v in (table.schema.metadata or {}).values())
            df = table.to_pandas()
            yield from (str(c) for c in df.columns)
            for col in df.columns:
                yield from (str(v) for v in df[col].dropna())
        elif path.suffix == ".xlsx":
            wb = openpyxl.load_workbook(path)
            for ws in wb.worksheets:
                yield ws.title
                for row in ws.iter_rows(values_only=True):
                    yield from (str(v) for v in row if v is not None)
        else:
            raise AssertionError(f"unexpected file {path}")


def _max_id(dataset: Dataset) -> int:
    users = dataset.frames().users
    assert users is not None
    return int(users["user_id"].max()) + 10


@pytest.mark.parametrize("fmt", ["csv", "parquet", "xlsx"])
def test_a_pseudonymised_export_names_nobody(
    dataset: Dataset,
    people: list[str],
    fmt: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_key: Path,
) -> None:
    max_id = _max_id(dataset)
    # the detector finds people in the plain export: a copy that named them would fail
    plain = tmp_path / "plain"
    proc = chatops(
        "data", "export", "--cache", str(dataset.cache), "--format", fmt, "--out", str(plain)
    )
    assert proc.returncode == 0, proc.stderr
    assert len(_hits(_cells(plain), people, max_id)) > len(people)
    monkeypatch.setenv(KEY_ENV, KEY)
    shared = tmp_path / "shared"
    proc = chatops(
        "data", "export", "--cache", str(dataset.cache), "--format", fmt, "--out", str(shared),
        "--pseudonymise",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert KEY not in proc.stdout + proc.stderr
    assert _hits(_cells(shared), people, max_id) == []
    assert KEY not in "\n".join(_cells(shared))
    if fmt == "csv":
        frames = {p.stem: pd.read_csv(p) for p in shared.glob("*.csv")}
    elif fmt == "parquet":
        frames = {p.stem: pd.read_parquet(p) for p in shared.glob("*.parquet")}
    else:
        frames = pd.read_excel(shared / "dataset.xlsx", sheet_name=None)
        del frames["about"]
    # nothing of the message text, topic names or channel descriptions
    assert "topic_links" not in frames and "content" not in frames["messages"].columns
    assert "description" not in frames["channels"].columns
    assert frames["messages"]["content_length"].notna().all()
    original = dataset.frames()
    assert not set(frames["messages"]["topic"].dropna()) & set(original.messages["topic"].dropna())
    # every person column holds pseudonyms, one per person, under the key of the variable
    for name, df in frames.items():
        for col in PERSON_COLUMNS & set(df.columns):
            values = df[col].dropna()
            assert values.map(lambda v: bool(PSEUDONYM.match(str(v)))).all(), (name, col)
    ids = sorted(int(i) for i in original.messages["sender_id"].dropna().unique())
    assert set(frames["messages"]["sender_id"]) == {analytics.pseudonym(i, KEY) for i in ids}
    assert len(frames["users"]) == len(original.users)  # type: ignore[arg-type]
    assert frames["users"]["user_id"].is_unique


def _all_views(dataset: Dataset, **options: object) -> dict[str, analytics.ViewResult]:
    """Every registered view on the dataset's frames, as the explorer calls them."""
    f = dataset.frames(content=True)
    results = {}
    for name, view in REGISTRY.items():
        params = inspect.signature(view.function).parameters
        frames = {
            k: getattr(f, k)
            for k in ("users", "channels", "subscriptions", "reactions", "edits", "dm_recipients")
            if k in params
        }
        results[name] = view.function(f.messages, **frames, **options)
    return results


def test_no_anonymized_view_names_anybody(
    dataset: Dataset, people: list[str], tmp_path: Path, no_key: Path
) -> None:
    max_id = _max_id(dataset)
    plain = _all_views(dataset)
    for name, result in plain.items():
        result.to_csv(tmp_path / "plain" / name)
    # the detector sees the names the views show without anonymize
    assert _hits(
        (line for p in (tmp_path / "plain").rglob("*.csv") for line in p.read_text().splitlines()),
        people,
        max_id,
    )
    results = _all_views(dataset, anonymize=True, key=KEY)
    cells: list[str] = []
    for name, result in results.items():
        assert KEY not in repr(result)
        for frame_name, df in result.frames().items():
            cells += [str(c) for c in df.columns]
            cells += [str(v) for col in df.columns for v in df[col].dropna()]
            for col in {"user_id", "sender_id", "starter_id", "reactor_id", "author_id"} & set(
                df.columns
            ):
                assert df[col].dropna().map(lambda v: bool(PSEUDONYM.match(str(v)))).all(), (
                    name,
                    frame_name,
                    col,
                )
        cells += [str(v) for v in result.summary().values()]
        folder = tmp_path / "anonymized" / name
        result.to_csv(folder)
        cells += [line for p in folder.rglob("*.csv") for line in p.read_text().splitlines()]
        xlsx = result.to_excel(tmp_path / f"{name}.xlsx")
        wb = openpyxl.load_workbook(xlsx)
        cells += [str(v) for ws in wb for row in ws.iter_rows(values_only=True) for v in row if v]
    assert _hits(iter(cells), people, max_id) == []
    assert all(KEY not in c for c in cells)


def test_a_view_asked_to_anonymize_without_a_key_names_what_to_do(
    dataset: Dataset, no_key: Path, tmp_path: Path
) -> None:
    f = dataset.frames()
    for name in ("active_users", "interaction_graph"):
        with pytest.raises(ValueError, match=r"chatops data key.*CHATOPS_PSEUDONYM_KEY"):
            REGISTRY[name].function(f.messages, anonymize=True)
    with pytest.raises(ValueError, match="chatops data key"):
        views.active_users(f.messages, anonymize=True, engine="duckdb")
    # a key too short is refused, and the message does not show it
    with pytest.raises(ValueError, match="at least 32 characters") as short:
        views.active_users(f.messages, anonymize=True, key="hunter2-secret")
    assert "hunter2" not in str(short.value)
    # without anonymize no key is needed
    assert len(views.active_users(f.messages).frame)
    out = tmp_path / "out"
    proc = chatops_here(
        "data", "export", "--cache", str(dataset.cache), "--format", "csv", "--out", str(out),
        "--pseudonymise",
    )  # fmt: skip
    _one_line_error(proc, "chatops data key", KEY_ENV)
    assert not out.exists()


def test_chatops_data_key_writes_an_owner_only_key_the_views_use(
    dataset: Dataset, no_key: Path
) -> None:
    proc = chatops("data", "key")
    assert proc.returncode == 0, proc.stderr
    path = no_key / "pseudonym.key"
    assert str(path) in proc.stdout
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    secret = path.read_text().strip()
    assert re.fullmatch(r"[0-9a-f]{64}", secret)
    assert secret not in proc.stdout + proc.stderr
    # a second run keeps the key; --replace makes another
    again = chatops("data", "key")
    assert again.returncode == 0 and "kept" in again.stdout
    assert path.read_text().strip() == secret
    f = dataset.frames()
    a = views.participation_distribution(f.messages, users=f.users, anonymize=True)
    assert set(a.frame["user_id"]) <= {
        analytics.pseudonym(int(i), secret)
        for i in f.users["user_id"]  # type: ignore[index]
    }
    assert repr(load_key()) == f"PseudonymKey(from the key file {path})"
    assert chatops("data", "key", "--replace").returncode == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().strip() != secret
    b = views.participation_distribution(f.messages, users=f.users, anonymize=True)
    assert set(a.frame["user_id"]).isdisjoint(set(b.frame["user_id"]))
    # a key file other accounts can read is refused, naming the fix
    os.chmod(path, 0o644)
    with pytest.raises(ValueError, match="chmod 600"):
        views.participation_distribution(f.messages, anonymize=True)


def test_the_same_key_gives_the_same_pseudonyms_everywhere_and_another_key_others(
    dataset: Dataset, no_key: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = dataset.frames()
    first = _all_views(dataset, anonymize=True, key=KEY)
    again = _all_views(dataset, anonymize=True, key=KEY)
    other = _all_views(dataset, anonymize=True, key=OTHER)
    seen_first = {v for r in first.values() for v in _pseudonyms(r)}
    seen_other = {v for r in other.values() for v in _pseudonyms(r)}
    assert seen_first and seen_other and seen_first.isdisjoint(seen_other)
    for name in first:
        assert _pseudonyms(first[name]) == _pseudonyms(again[name]), name
    # across views: a person has one pseudonym, the one pseudonym() gives under the key
    expected = {analytics.pseudonym(int(i), KEY) for i in f.users["user_id"]}  # type: ignore[index]
    assert seen_first <= expected
    # the key from the variable is the same key: the export and the views agree
    monkeypatch.setenv(KEY_ENV, KEY)
    out = tmp_path / "shared"
    assert dataset.export(out, format="csv", pseudonymise=True)
    shared = pd.read_csv(out / "users.csv")
    assert set(shared["user_id"]) == expected
    env = views.active_users(f.messages, users=f.users, anonymize=True)
    assert _pseudonyms(env) == _pseudonyms(first["active_users"])


def _pseudonyms(result: analytics.ViewResult) -> set[str]:
    return {
        str(v)
        for df in result.frames().values()
        for col in df.columns
        for v in df[col].dropna()
        if isinstance(v, str) and PSEUDONYM.match(v)
    }


def test_a_key_never_shows(monkeypatch: pytest.MonkeyPatch, no_key: Path) -> None:
    key = load_key(KEY)
    assert KEY not in repr(key) and KEY not in str(key) and KEY not in f"{key}"
    with pytest.raises(TypeError):
        pickle.dumps(key)
    monkeypatch.setenv(KEY_ENV, KEY)
    env = load_key()
    assert repr(env) == f"PseudonymKey(from {KEY_ENV})"
    assert env.pseudonym(7) == key.pseudonym(7) == analytics.pseudonym(7)
    assert isinstance(env, PseudonymKey) and env.pseudonym(7) != load_key(OTHER).pseudonym(7)


def test_a_pseudonymised_report_names_nobody(
    dataset: Dataset, people: list[str], no_key: Path
) -> None:
    """The analytics report made to share: no name, email, unkeyed hash of an id or topic
    name anywhere in the page (sentences, tables, coverage note, movers, figures' alt text);
    without a key it is refused before anything is read or written."""
    from chatops.analytics.report import build_report, render_html

    max_id = _max_id(dataset)
    f = dataset.frames()
    topics = sorted({str(t) for t in f.messages["topic"].dropna() if len(str(t)) >= 6})
    plain = render_html(build_report(dataset, period="all", dpi=40))
    # the detector finds the people and topics a report names without pseudonyms
    assert _hits(iter(plain.splitlines()), people, max_id)
    assert any(t in plain for t in topics)
    report = build_report(dataset, period="all", dpi=40, pseudonymise=True, key=KEY)
    assert all(s.error is None for s in report.sections), [s.error for s in report.sections]
    page = render_html(report)
    assert _hits(iter(page.splitlines()), people, max_id) == []
    assert [t for t in topics if t in page] == []
    assert KEY not in page
    assert re.search(r"u-[0-9a-f]{16}", page)  # people are there, as pseudonyms
    assert "synced from" in report.coverage and "admin@" not in report.coverage
    with pytest.raises(ValueError, match="chatops data key"):
        build_report(dataset, period="all", pseudonymise=True)


def test_the_report_command_refuses_to_pseudonymise_without_a_key(
    dataset: Dataset, tmp_path: Path, no_key: Path
) -> None:
    out = tmp_path / "r.html"
    proc = chatops_here(
        "report", "analytics", "--dataset", str(dataset.cache), "--out", str(out),
        "--pseudonymise", "--no-progress",
    )  # fmt: skip
    _one_line_error(proc, "--pseudonymise", "chatops data key")
    assert not out.exists()
