"""``chatops org apply FILE``: the organization made as its file says, through the change engine
(planned, what the server would refuse said before anything is sent, journalled, undoable);
a second apply sends nothing."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import chatops
from chatops.changes.journal import Journal
from chatops.changes.undo import undo
from chatops.org import export_document, to_yaml
from chatops.org.diff import diff_documents
from chatops.org.plan import apply_document, journal_path, make_plan
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.test_report_trends import chatops_cli


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("org-source"), size="small", seed=35) as sb:
        yield sb


@pytest.fixture(scope="module")
def source_owner(source: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(source.zuliprc("owner")) as client:
        yield client


def exported(client: chatops.Client, doc: dict[str, Any] | None = None) -> str:
    rules = [str(r["group"]) for r in (doc or {}).get("membership_rules", [])]
    return to_yaml(export_document(client, rules_for=rules))


def apply(doc: dict[str, Any], client: chatops.Client, **kw: Any) -> tuple[Path, Any]:
    path = journal_path()
    with Journal.open(path, kind="apply", site=client.site, email=client.email) as journal:
        tally = apply_document(doc, client, journal, say=lambda _line: None, progress=False, **kw)
    return path, tally


def test_an_export_applied_to_an_empty_organization_makes_it_again(
    source_owner: chatops.Client, tmp_path: Path
) -> None:
    """The round trip: export -> apply to an organization that has only its owner -> no
    drift, and its export is byte-equal to the first; a second apply sends nothing; undo
    takes back what the apply made."""
    text = exported(source_owner)
    path = tmp_path / "org.yaml"
    path.write_text(text, encoding="utf-8")
    with Sandbox.start(tmp_path / "empty", size="empty") as target:
        zuliprc = str(target.zuliprc("owner"))
        done = chatops_cli("org", "apply", str(path), "--zuliprc", zuliprc, "--yes")
        assert done.returncode == 0, done.stdout + done.stderr
        out = done.stdout
        for stage in ("people (", "channels (", "group details (", "roles ("):
            assert stage in out, out
        assert "#general: a default channel" in out
        assert " 0 refused, 0 failed, 0 not sent; journal in " in out
        with chatops.Client.from_zuliprc(zuliprc) as client:
            doc = yaml.safe_load(text)
            assert diff_documents(doc, export_document(client)) == []
            assert exported(client) == text
            again = chatops_cli("org", "apply", str(path), "--zuliprc", zuliprc, "--yes")
            assert again.returncode == 0, again.stdout + again.stderr
            assert "already matches" in again.stdout
            # the second apply read the organization and sent nothing
            with unchanged(target.store):
                assert make_plan(doc, client).steps == []
            journal = out.rsplit("journal in ", 1)[1].split(" ", 1)[0]
            undone = chatops_cli("undo", journal, "--zuliprc", zuliprc, "--yes")
            assert undone.returncode == 0, undone.stdout + undone.stderr
            people = [u for u in client.users.list() if not u.is_bot and u.is_active]
            assert [u.email for u in people] == ["owner@demo.chatops.test"]
            assert all(
                c["is_archived"]
                for c in client.get(
                    "/streams", params={"include_all": True, "exclude_archived": False}
                )["streams"]
            )


def on_server(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The file's channels the organization has by that name, not archived (a channel the
    scenario renames in the file is under its old name there)."""
    return [c for c in doc["channels"] if not c["archived"] and "renamed_from" not in c]


def _drift_setting(client: chatops.Client, rng: random.Random, doc: dict[str, Any]) -> str:
    mods = next(g.id for g in client.user_groups.list() if g.name == "role:moderators")
    choice = rng.choice(["waiting", "groups", "channel"])
    if choice == "waiting":
        client.realm.update(waiting_period_threshold=rng.randint(5, 50))
        return "the organization: waiting period threshold"
    if choice == "groups":
        client.realm.update(can_create_groups=mods)
        return "the organization: “Who can create user groups”"
    channel = rng.choice(on_server(doc))
    client.channels.update(
        client.channels.get_id(channel["name"]), group_settings={"can_send_message_group": mods}
    )
    return f"#{channel['name']}: “Who can post to this channel”"


def _drift_member(client: chatops.Client, rng: random.Random, doc: dict[str, Any]) -> str:
    groups = [g for g in doc["user_groups"] if not g["deactivated"]]
    a, b = rng.sample(groups, 2)
    ids = {g.name: g.id for g in client.user_groups.list()}
    people = {(u.delivery_email or u.email): u.user_id for u in client.users.list()}
    candidates = [m for m in a["members"] if m not in b["members"]]
    if not candidates:
        return _drift_setting(client, rng, doc)
    who = people[rng.choice(candidates)]
    client.user_groups.update_members(ids[a["name"]], delete=[who])
    client.user_groups.update_members(ids[b["name"]], add=[who])
    return f"@{a['name']}: "


def _drift_role(client: chatops.Client, rng: random.Random, doc: dict[str, Any]) -> str:
    person = rng.choice([p for p in doc["people"] if p["role"] == "member" and p["active"]])
    uid = next(
        u.user_id for u in client.users.list() if (u.delivery_email or u.email) == person["email"]
    )
    client.users.update(uid, role=rng.choice([300, 600]))
    return f"{person['email']}: role"


def _drift_archive(client: chatops.Client, rng: random.Random, doc: dict[str, Any]) -> str:
    channel = rng.choice([c for c in on_server(doc) if not c["default"]])
    client.channels.archive(client.channels.get_id(channel["name"]))
    return f"#{channel['name']}: archived"


def _drift_linkifier(client: chatops.Client, rng: random.Random, doc: dict[str, Any]) -> str:
    found = client.get("/realm/linkifiers")["linkifiers"]
    chosen = rng.choice(found)
    if rng.random() < 0.5:
        client.realm.update_linkifier(
            chosen["id"],
            pattern=chosen["pattern"],
            url_template=chosen["url_template"].replace("://", "://moved.", 1),
        )
    else:
        client.realm.remove_linkifier(chosen["id"])
    return "the linkifiers differ"


def _drift_retention(client: chatops.Client, rng: random.Random, doc: dict[str, Any]) -> str:
    """A channel's message retention changed (forever, or some days) behind the file's back."""
    channel = rng.choice(on_server(doc))
    value: int | str = rng.choice(["unlimited", rng.randint(30, 400)])
    client.channels.update(client.channels.get_id(channel["name"]), message_retention_days=value)
    return f"#{channel['name']}: message retention days"


def _drift_file_rename(client: chatops.Client, rng: random.Random, doc: dict[str, Any]) -> str:
    """The file renames a channel (``renamed_from``) and moves it into another folder."""
    channel = rng.choice(on_server(doc))
    channel["renamed_from"] = channel["name"]
    channel["name"] = f"{channel['name']}-renamed"
    folders = [f["name"] for f in doc["channel_folders"] if not f["archived"]]
    channel["folder"] = None if channel["folder"] else (folders[0] if folders else None)
    return f"#{channel['renamed_from']}: to be renamed"


DRIFTS: list[Callable[[chatops.Client, random.Random, dict[str, Any]], str]] = [
    _drift_setting,
    _drift_member,
    _drift_role,
    _drift_archive,
    _drift_linkifier,
    _drift_retention,
    _drift_file_rename,
]


def test_twenty_drift_scenarios_are_reported_restored_and_undone(
    source: Sandbox, source_owner: chatops.Client
) -> None:
    """Each scenario drifts the organization (or the file) in one to three ways: ``org diff``
    reports it, ``apply`` restores the file's state, a second apply sends nothing, and undo
    of the apply puts back the drifted state exactly."""
    rng = random.Random(33)
    base = yaml.safe_load(exported(source_owner))
    for n in range(20):
        doc = yaml.safe_load(to_yaml(base))
        said = [rng.choice(DRIFTS)(source_owner, rng, doc) for _ in range(rng.randint(1, 3))]
        drifted = exported(source_owner, doc)
        words = [d.words for d in diff_documents(doc, export_document(source_owner))]
        assert words, (n, said)
        for expected in said:
            assert any(expected in w for w in words), (n, expected, words)
        path, tally = apply(doc, source_owner)
        assert tally.ok, (n, said, tally.lines)
        assert diff_documents(doc, export_document(source_owner)) == [], (n, said)
        with unchanged(source.store):
            assert make_plan(doc, source_owner).steps == [], (n, said)
        code = undo(path, site=None, zuliprc=str(source.zuliprc("owner")), yes=True, ask=None,
                    say=lambda _l: None, progress=False)  # fmt: skip
        assert code == 0, (n, said)
        assert exported(source_owner, doc) == drifted, (n, said)
        # back to the base organization for the next scenario
        _path, tally = apply(base, source_owner)
        assert tally.ok and diff_documents(base, export_document(source_owner)) == [], (n, said)


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("org-apply"), size="small", seed=36) as sb:
        yield sb


def refused(org: Sandbox, tmp_path: Path, doc: dict[str, Any], account: str = "owner") -> str:
    """Apply ``doc`` with ``account``'s zuliprc: exit 2, nothing sent; the output."""
    path = tmp_path / "org.yaml"
    path.write_text(to_yaml(doc), encoding="utf-8")
    with unchanged(org.store):
        done = chatops_cli(
            "org", "apply", str(path), "--zuliprc", str(org.zuliprc(account)), "--yes"
        )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout + done.stderr


def current(org: Sandbox) -> dict[str, Any]:
    with chatops.Client.from_zuliprc(org.zuliprc("owner")) as client:
        return export_document(client)


def test_unknown_names_are_named_with_the_closest_and_nothing_is_sent(
    org: Sandbox, tmp_path: Path
) -> None:
    doc = current(org)
    group = next(g for g in doc["user_groups"] if not g["deactivated"] and g["members"])
    person = group["members"][0]
    group["members"].append(person.replace("@", "x@", 1))  # a typo of an address
    channel = next(c for c in doc["channels"] if not c["archived"])
    channel["permissions"]["can_send_message_group"] = group["name"][:-1] + "z"
    channel["folder"] = "Engineerin"
    doc["membership_rules"] = [{"group": group["name"], "channels": ["genral"]}]
    out = refused(org, tmp_path, doc)
    typo = person.replace("@", "x@", 1)
    assert (
        f"person {typo} is not in the organization or the file (the closest is “{person}”)" in out
    )
    assert f"(the closest is “{group['name']}”)" in out
    assert (
        "channel folder “Engineerin” is not in the organization or the file (the closest is “Engineering”)"
        in out
    )
    assert (
        "channel #genral is not in the organization or the file (the closest is “general”)" in out
    )
    assert "nothing was sent" in out


def test_settings_the_server_lacks_and_values_a_setting_refuses(
    org: Sandbox, tmp_path: Path
) -> None:
    doc = current(org)
    doc["feature_level"] = 9999
    doc["organization"]["permissions"]["can_teleport_group"] = "role:members"
    doc["organization"]["permissions"]["can_create_groups"] = "role:internet"
    doc["organization"]["policies"]["warp_speed"] = 9
    channel = next(c for c in doc["channels"] if not c["archived"])
    channel["permissions"]["can_send_message_group"] = "role:nobody"
    out = refused(org, tmp_path, doc)
    assert "The file comes from a newer server (feature level 9999); this one is at" in out
    assert "“can_teleport_group” is not a setting this server has (feature level" in out
    assert "“can_create_groups” cannot be role:internet; the file says role:internet" in out
    assert "the policy “warp_speed” is not one this server has" in out


def test_owners_the_last_owner_and_your_own_role(org: Sandbox, tmp_path: Path) -> None:
    doc = current(org)
    owner = next(p for p in doc["people"] if p["role"] == "owner")
    member = next(p for p in doc["people"] if p["role"] == "member" and p["active"])
    member["role"] = "owner"
    out = refused(org, tmp_path, doc, account="admin")
    assert (
        f"{member['email']}: member → owner: only an organization owner makes or unmakes owners"
        in out
    )
    doc = current(org)
    for p in doc["people"]:
        if p["role"] == "owner":
            p["role"] = "administrator"
    out = refused(org, tmp_path, doc)
    assert "the file leaves the organization with no active owner" in out
    assert f"{owner['email']}: owner → administrator: this is your own role" in out
    doc = current(org)
    for p in doc["people"]:
        if p["role"] == "owner":
            p["active"] = False
    out = refused(org, tmp_path, doc, account="admin")
    assert "only an organization owner deactivates an owner" in out


def test_what_a_file_does_not_say_is_left_alone(org: Sandbox, tmp_path: Path) -> None:
    """A person listed without a role keeps theirs; a channel or group listed without
    ``archived`` or ``deactivated`` is not brought back; nothing else is planned."""
    full = current(org)
    doc = {
        "version": 1,
        "people": [{"email": p["email"]} for p in full["people"]],
        "channels": [{"name": c["name"]} for c in full["channels"]],
        "user_groups": [{"name": g["name"]} for g in full["user_groups"]],
    }
    with chatops.Client.from_zuliprc(org.zuliprc("owner")) as client, unchanged(org.store):
        plan = make_plan(doc, client)
    assert plan.steps == [] and plan.problems == []


def test_a_choice_fields_answers_stay_with_their_option() -> None:
    """Options reordered and one added: each kept option keeps its key (answers are stored by
    key), the new one takes a key never used."""
    from chatops.org.plan_objects import _field_settings

    found = {"field_data": '{"0": {"text": "A", "order": "0"}, "1": {"text": "B", "order": "1"}}'}
    made = _field_settings({"options": ["C", "A"]}, found)["field_data"]
    assert made == {"2": {"text": "C", "order": "0"}, "0": {"text": "A", "order": "1"}}


def test_a_group_still_in_use_is_not_deactivated(org: Sandbox, tmp_path: Path) -> None:
    doc = current(org)
    group = next(g for g in doc["user_groups"] if not g["deactivated"])
    channel = next(c for c in doc["channels"] if not c["archived"])
    channel["permissions"]["can_send_message_group"] = group["name"]
    group["deactivated"] = True
    out = refused(org, tmp_path, doc)
    assert (
        f"@{group['name']}: deactivated: #{channel['name']}'s “can_send_message_group” names it"
        in out
    )


def test_a_bad_file_a_member_and_no_terminal_are_refused_in_one_line(
    org: Sandbox, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "version: 1\npeople:\n  - email: a@b.test\n    name: A\n    role: wizard\n",
        encoding="utf-8",
    )
    with unchanged(org.store):
        done = chatops_cli("org", "apply", str(bad), "--zuliprc", str(org.zuliprc("owner")))
    assert done.returncode == 2 and f"{bad}:5:11: people.0.role: 'wizard'" in done.stderr, (
        done.stderr
    )
    good = tmp_path / "org.yaml"
    doc = current(org)
    doc["organization"]["description"] = "Changed by the file"
    good.write_text(to_yaml(doc), encoding="utf-8")
    with unchanged(org.store):
        done = chatops_cli("org", "apply", str(good), "--zuliprc", str(org.zuliprc("member")))
    assert done.returncode == 2 and "needs an administrator's account" in done.stderr
    with unchanged(org.store):
        done = chatops_cli("org", "apply", str(good), "--zuliprc", str(org.zuliprc("owner")))
    assert done.returncode == 2, done.stdout
    assert "the organization: new description" in done.stdout
    assert "no terminal to ask; give --yes" in done.stderr
    with unchanged(org.store):
        done = chatops_cli(
            "org", "apply", str(good), "--zuliprc", str(org.zuliprc("owner")), "--dry-run"
        )
    assert done.returncode == 0 and "Dry run: nothing sent." in done.stdout


@pytest.mark.slow
def test_an_apply_killed_midway_then_run_again_sends_nothing_twice(tmp_path: Path) -> None:
    """kill -9 during an apply of 1,000 changes (1,000 people renamed), then apply again:
    no change made before the kill is sent again, and the organization is as the file says."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from chatops.sandbox import users

    path = tmp_path / "org.yaml"
    state = tmp_path / "state"
    env = {**os.environ, "CHATOPS_STATE_DIR": str(state), "PYTHONPATH": str(Path.cwd())}
    with Sandbox.start(tmp_path / "target", size="empty") as target:
        with target.store.atomic():  # set-up: 1,000 accounts, as an import would make them
            for n in range(1000):
                users.create_user(
                    target.store, email=f"p{n:04d}@onboarding.test", full_name=f"P {n:04d}"
                )
        doc = {
            "version": 1,
            "people": [
                {"email": f"p{n:04d}@onboarding.test", "name": f"Person {n:04d}"}
                for n in range(1000)
            ],
        }
        path.write_text(to_yaml(doc), encoding="utf-8")
        zuliprc = str(target.zuliprc("owner"))
        command = [sys.executable, "-m", "chatops.cli", "org", "apply", str(path), "--zuliprc",
                   zuliprc, "--yes"]  # fmt: skip
        run = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        journals: list[Path] = []
        while time.monotonic() < deadline:
            journals = sorted((state / "org").glob("apply-*.jsonl"))
            # bytes: the command may be halfway through writing a character of its next line
            if journals and journals[0].read_bytes().count(b'"status": "done"') >= 300:
                break
            time.sleep(0.02)
        run.send_signal(signal.SIGKILL)
        run.wait(30)
        assert run.returncode == -signal.SIGKILL
        first = Journal.read(journals[0])
        made_first = {line["id"] for line in first.results() if line["status"] == "done"}
        assert 300 <= len(made_first) < 1000
        # the change in flight at the kill, if any: did the server make it before the kill?
        cut = [line for line in first._lines if line.get("intent") and line["id"] not in made_first]
        assert len(cut) <= 1
        with chatops.Client.from_zuliprc(zuliprc) as client:
            made_cut = {
                line["id"]
                for line in cut
                if client.users.get(line["change"]["user_id"]).full_name
                == line["change"]["settings"]["full_name"]
            }
        again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        assert again.returncode == 0, again.stdout + again.stderr
        second = Journal.read(sorted((state / "org").glob("apply-*.jsonl"))[-1])
        sent_second = {line["id"] for line in second._lines if line.get("intent")}
        assert not (made_first | made_cut) & sent_second, (
            "a change made before the kill was sent again"
        )
        made_second = {line["id"] for line in second.results() if line["status"] == "done"}
        assert made_first | made_cut | made_second == {
            line["id"] for journal in (first, second) for line in journal._lines if "id" in line
        }
        assert len(made_first | made_cut | made_second) == 1000
        with chatops.Client.from_zuliprc(zuliprc) as client:
            assert diff_documents(doc, export_document(client)) == []
            assert make_plan(doc, client).steps == []
