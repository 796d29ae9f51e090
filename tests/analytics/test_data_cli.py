"""``chatops data sync | export | info`` against a real sandbox."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from chatops.sandbox import Sandbox
from tests.test_cli import _one_line_error, chatops, chatops_here


def test_sync_info_export(sandbox: Sandbox, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    rc = str(sandbox.zuliprc("admin"))
    proc = chatops("data", "sync", "--zuliprc", rc, "--cache", str(cache), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert f"in {cache}" in proc.stdout
    info = json.loads(chatops("data", "info", "--cache", str(cache)).stdout)
    assert info["messages"] > 0 and info["coverage"]["channels_readable"]
    assert all(n["watermark"] for n in info["narrows"].values() if n["messages"])
    assert sandbox.accounts["admin"].api_key not in json.dumps(info)
    # times as ISO 8601, no epoch integers
    iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
    assert iso.match(info["updated"]) and iso.match(info["last_sync"]["finished"])
    assert iso.match(info["coverage"]["as_of"])
    assert all(iso.match(n["synced_at"]) for n in info["narrows"].values())
    again = chatops("data", "sync", "--zuliprc", rc, "--cache", str(cache), "--no-progress")
    assert again.returncode == 0 and "(0 new" in again.stdout
    # the cache made without text gains it, and a verify re-reads everything
    more = chatops(
        "data", "sync", "--zuliprc", rc, "--cache", str(cache), "--no-progress", "--content"
    )
    assert more.returncode == 0, more.stderr
    info = json.loads(chatops("data", "info", "--cache", str(cache)).stdout)
    assert info["content"] is True
    assert info["last_sync"]["changes_from"] == "full re-read"
    assert info["last_sync"]["fetched"] >= info["messages"]
    checked = chatops(
        "data", "sync", "--zuliprc", rc, "--cache", str(cache), "--no-progress", "--verify"
    )
    assert checked.returncode == 0, checked.stderr
    info = json.loads(chatops("data", "info", "--cache", str(cache)).stdout)
    assert info["last_sync"]["changes_from"] == "full re-read"
    out = tmp_path / "csv"
    proc = chatops("data", "export", "--cache", str(cache), "--format", "csv", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert len(pd.read_csv(out / "messages.csv")) == info["messages"]


def test_bad_arguments_give_one_line_and_exit_2(sandbox: Sandbox, tmp_path: Path) -> None:
    rc = str(sandbox.zuliprc("admin"))
    _one_line_error(
        chatops_here("data", "sync", "--zuliprc", str(tmp_path / "nope")),
        "--zuliprc",
        "no such file",
    )
    _one_line_error(chatops_here("data", "info", "--cache", str(tmp_path)), "holds no dataset")
    _one_line_error(chatops_here("data", "export", "--format", "xml", "--out", "x"), "--format")
    _one_line_error(chatops_here("data", "sync", "--zuliprc", rc, "--recheck", "-1"), "--recheck")
    _one_line_error(chatops_here("data", "sync", "--site", "x", "--zuliprc", rc), "not allowed")
    afile = tmp_path / "file"
    afile.write_text("")
    _one_line_error(
        chatops_here("data", "sync", "--zuliprc", rc, "--cache", str(afile)), "not a folder"
    )
