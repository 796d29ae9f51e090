"""The audit run's pre-checks: parameter ranges, credentials and reachability, in one line."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from chatops.audits.precheck import PrecheckError, check_parameters, precheck
from chatops.sandbox import Sandbox


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        (
            {"org_overview": {"days": -5}},
            "parameter days of org_overview must be at least 1, not -5",
        ),
        ({"linkifiers": {"sample_messages": 9000}}, "must be between 0 and 5000, not 9000"),
        ({"channel_hygiene": {"similarity": 0.0}}, "above 0 and at most 1"),
        ({"bots": {"max_orphaned_bots": -2}}, "max_orphaned_bots of bots must be at least -1"),
        ({"org_overview": {"max_guest_share": 1.5}}, "-1 (off) or between 0 and 1"),
        ({"uploads": {"min_size_mb": float("nan")}}, "min_size_mb of uploads must be more than 0"),
        ({"user_groups": {"stale_days": 0}}, "stale_days of user_groups must be at least 1, not 0"),
        ({"user_groups": {"max_messages": 0}}, "max_messages of user_groups must be at least 1"),
        ({"user_groups": {"max_group_size_ratio": 1.01}}, "-1 (off) or between 0 and 1"),
        ({"user_groups": {"max_group_size_ratio": -0.5}}, "-1 (off) or between 0 and 1"),
    ],
)
def test_parameters_out_of_range_are_one_line(
    parameters: dict[str, dict[str, object]], message: str
) -> None:
    with pytest.raises(PrecheckError) as info:
        check_parameters(parameters)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_parameters_in_range_and_unknown_ones_pass() -> None:
    check_parameters(
        {
            "org_overview": {"days": 1, "max_guest_share": -1, "max_messages": 10},
            "channel_hygiene": {"similarity": 1.0, "name_regex": "x", "unknown": True},
            "bots": {"max_orphaned_bots": -1},
            "user_groups": {"stale_days": 1, "max_messages": 1, "max_group_size_ratio": -1},
            "inactive_users": {"include_bots": True, "inactive_days": 1},
        }
    )
    for ratio in (0, 1):
        check_parameters({"user_groups": {"max_group_size_ratio": ratio}})


def test_good_credentials_pass_quickly(sandbox: Sandbox) -> None:
    started = time.monotonic()
    precheck(None, str(sandbox.zuliprc("admin")), {"org_overview": {"days": 30}})
    precheck(None, None, {})  # no server given: the runner starts a sandbox
    assert time.monotonic() - started < 5


def test_bad_credentials_are_one_line(sandbox: Sandbox, tmp_path: Path) -> None:
    acc = sandbox.accounts["admin"]
    wrong = tmp_path / "wrong.zuliprc"
    wrong.write_text(f"[api]\nemail={acc.email}\nkey={'x' * 32}\nsite={sandbox.site}\n")
    no_key = tmp_path / "nokey.zuliprc"
    no_key.write_text(f"[api]\nemail={acc.email}\nsite={sandbox.site}\n")
    malformed = tmp_path / "bad.zuliprc"
    malformed.write_text("this is not an ini file\n")
    for path, words in (
        (wrong, "refused the credentials"),
        (no_key, "missing key"),
        (malformed, str(malformed)),
        (tmp_path / "absent.zuliprc", "does not exist"),
    ):
        with pytest.raises(PrecheckError) as info:
            precheck(None, str(path), {})
        assert words in str(info.value) and "\n" not in str(info.value), str(info.value)


def test_an_unreachable_server_is_one_line(sandbox: Sandbox, tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    acc = sandbox.accounts["admin"]
    rc = tmp_path / "gone.zuliprc"
    rc.write_text(f"[api]\nemail={acc.email}\nkey={acc.api_key}\nsite=http://127.0.0.1:{port}\n")
    started = time.monotonic()
    with pytest.raises(PrecheckError) as info:
        precheck(None, str(rc), {})
    assert "unreachable" in str(info.value) and "\n" not in str(info.value)
    assert time.monotonic() - started < 5
    assert acc.api_key not in str(info.value)


def test_parameters_are_checked_before_the_server(tmp_path: Path) -> None:
    with pytest.raises(PrecheckError, match="days"):
        precheck(None, str(tmp_path / "absent.zuliprc"), {"org_overview": {"days": 0}})
