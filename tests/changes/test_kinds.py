"""Every kind of change against a sandbox: made through the engine, read back as done, undone by
its inverse, and the organization is as it was (read through the API). Kinds nothing can undo
say so, and are recorded with no inverse."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.changes import Change
from chatops.changes.engine import apply_changes, undo_items
from chatops.changes.journal import Item, Journal
from chatops.changes.kinds import (
    AddLinkifier,
    ArchiveChannel,
    DeactivateBot,
    DeactivateGroup,
    DeactivateUser,
    DeleteAttachment,
    DeleteLinkifier,
    MoveTopic,
    ReactivateUser,
    ReorderLinkifiers,
    RevokeInvitation,
    Subscribe,
    Unsubscribe,
    UpdateBot,
    UpdateChannel,
    UpdateGroup,
    UpdateGroupMembers,
    UpdateLinkifier,
    UpdateRealm,
    UpdateUser,
    decode_change,
)
from chatops.sandbox import Sandbox
from tests.changes.org_state import differences, organization_state

Make = Callable[[chatops.Client], Change]


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("kinds"), size="small", seed=43) as sb:
        yield sb


@pytest.fixture
def admin(org: Sandbox) -> Iterator[chatops.Client]:
    """The organization's owner: some groups only their creator (the owner) may manage."""
    with chatops.Client.from_zuliprc(org.zuliprc("owner")) as client:
        yield client


def _channel(c: chatops.Client, name: str) -> int:
    return c.channels.get_id(name)


def _user(c: chatops.Client, name: str) -> int:
    return next(u.user_id for u in c.users.list() if u.full_name == name)


def _group(c: chatops.Client, name: str) -> int:
    return next(g.id for g in c.user_groups.list() if g.name == name)


def _person(c: chatops.Client, n: int = 0) -> int:
    """A member of the organization who is not one of the demo accounts."""
    me = c.users.me().user_id
    people = sorted(
        u.user_id
        for u in c.users.list()
        if u.is_active and not u.is_bot and u.role == 400 and u.user_id != me
    )
    return people[-1 - n]


def _members(c: chatops.Client, name: str) -> list[int]:
    return sorted(c.channels.members(_channel(c, name)))


def _topic_message(c: chatops.Client) -> int:
    found = c.get(
        "/messages",
        params={"anchor": "newest", "num_before": 1, "narrow": [["channel", "engineering"]]},
    )
    return int(found["messages"][-1]["id"])


REVERSIBLE: dict[str, Make] = {
    "archive a channel": lambda c: ArchiveChannel(stream_id=_channel(c, "mobile")),
    "describe a channel": lambda c: UpdateChannel(
        stream_id=_channel(c, "design"), settings={"description": "changed", "new_name": "design2"}
    ),
    "who may post": lambda c: UpdateChannel(
        stream_id=_channel(c, "design"),
        settings={"can_send_message_group": {"new": _group(c, "role:administrators")}},
    ),
    "deactivate a person": lambda c: DeactivateUser(user_id=_person(c)),
    "deactivate a bot": lambda c: DeactivateBot(user_id=_user(c, "Helper Bot")),
    "change a role": lambda c: UpdateUser(user_id=_person(c), settings={"role": 300}),
    "change a bot's owner": lambda c: UpdateBot(
        user_id=_user(c, "Helper Bot"), settings={"bot_owner_id": _person(c, 1)}
    ),
    "deactivate a group": lambda c: DeactivateGroup(group_id=_group(c, "alumni")),
    "group members": lambda c: UpdateGroupMembers(
        group_id=_group(c, "leads"),
        add=[_person(c)],
        delete=[c.user_groups.members(_group(c, "leads"))[0]],
    ),
    "group settings": lambda c: UpdateGroup(
        group_id=_group(c, "leads"),
        settings={
            "description": "changed",
            "can_mention_group": {"new": _group(c, "role:administrators")},
        },
    ),
    "organization setting": lambda c: UpdateRealm(
        settings={
            "can_invite_users_group": {"new": _group(c, "role:administrators")},
            "description": "changed",
        }
    ),
    "remove a linkifier": lambda c: DeleteLinkifier(filter_id=c.realm.linkifiers()[0].id),
    "add a linkifier": lambda c: AddLinkifier(pattern="ZZ-(?P<n>[0-9]+)", url_template="/z/{n}"),
    "change a linkifier": lambda c: UpdateLinkifier(
        filter_id=c.realm.linkifiers()[0].id, pattern="YY-(?P<n>[0-9]+)", url_template="/y/{n}"
    ),
    "reorder linkifiers": lambda c: ReorderLinkifiers(
        ordered_linkifier_ids=[x.id for x in reversed(c.realm.linkifiers())]
    ),
    "resolve a topic": lambda c: MoveTopic(
        message_id=_topic_message(c),
        topic="✔ " + c.get(f"/messages/{_topic_message(c)}")["message"]["subject"],
    ),
    "subscribe": lambda c: Subscribe(
        channels=["design", "ops"], principals=[_person(c), _members(c, "ops")[0]]
    ),
    "unsubscribe": lambda c: Unsubscribe(
        channels=["engineering", "general"], principals=_members(c, "engineering")[:2]
    ),
}


def _journal(tmp_path: Path, name: str) -> Journal:
    return Journal.open(tmp_path / f"{name}.jsonl", kind="apply")


@pytest.mark.parametrize("case", list(REVERSIBLE))
def test_a_change_is_made_read_back_and_undone(
    case: str, admin: chatops.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHATOPS_STATE_DIR", str(tmp_path / "state"))
    before = organization_state(admin)
    change = REVERSIBLE[case](admin)
    # as a plan and a journal hold it
    assert (
        decode_change(json.dumps(json.loads(json.dumps(Item(change).record()["change"])))) == change
    )
    assert change.state(admin).done is False
    with _journal(tmp_path, "apply") as journal:
        tally = apply_changes([Item(change)], admin, journal, say=lambda _l: None, progress=False)
    assert tally["done"] == 1, tally.lines
    reading = change.state(admin)
    assert reading.done is True, reading
    assert differences(before, organization_state(admin)), "the change changed nothing"
    inverses, cannot = undo_items(Journal.read(tmp_path / "apply.jsonl"))
    assert cannot == [] and len(inverses) == 1
    with _journal(tmp_path, "undo") as undo:
        undone = apply_changes(inverses, admin, undo, say=lambda _l: None, progress=False)
    assert undone["done"] == 1, undone.lines
    assert differences(before, organization_state(admin)) == []
    # applied again, the change is already undone: nothing sent
    with Journal.open(tmp_path / "again.jsonl", kind="undo") as again:
        repeat = apply_changes(inverses, admin, again, say=lambda _l: None, progress=False)
    assert repeat["already_done"] == 1 and repeat["done"] == 0


IRREVERSIBLE: dict[str, Make] = {
    "revoke an invitation": lambda c: RevokeInvitation(
        invite_id=max(i.id for i in c.invitations.list() if not i.is_multiuse)
    ),
    "delete a file": lambda c: DeleteAttachment(attachment_id=c.uploads.attachments()[0].id),
}


@pytest.mark.parametrize("case", list(IRREVERSIBLE))
def test_a_change_nothing_can_undo_says_why(
    case: str, admin: chatops.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHATOPS_STATE_DIR", str(tmp_path / "state"))
    change = IRREVERSIBLE[case](admin)
    assert change.irreversible
    with _journal(tmp_path, "apply") as journal:
        tally = apply_changes([Item(change)], admin, journal, say=lambda _l: None, progress=False)
    assert tally["done"] == 1
    (line,) = [r for r in Journal.read(tmp_path / "apply.jsonl").results()]
    assert line["inverse"] is None and line["irreversible"] == change.irreversible
    inverses, cannot = undo_items(Journal.read(tmp_path / "apply.jsonl"))
    assert inverses == [] and len(cannot) == 1


def test_an_undo_leaves_what_was_changed_again_since(
    admin: chatops.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone changed the description again after the apply: the undo does not overwrite it."""
    monkeypatch.setenv("CHATOPS_STATE_DIR", str(tmp_path / "state"))
    stream = _channel(admin, "support")
    change = UpdateChannel(stream_id=stream, settings={"description": "by the plan"})
    with _journal(tmp_path, "apply") as journal:
        apply_changes([Item(change)], admin, journal, say=lambda _l: None, progress=False)
    admin.channels.update(stream, description="by a person, later")
    inverses, _ = undo_items(Journal.read(tmp_path / "apply.jsonl"))
    with _journal(tmp_path, "undo") as undo:
        tally = apply_changes(inverses, admin, undo, say=lambda _l: None, progress=False)
    assert tally["changed_since"] == 1 and tally["done"] == 0
    assert admin.channels.get(stream).description == "by a person, later"


def test_a_change_made_before_an_interruption_is_not_sent_again(
    admin: chatops.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The intent was written and the call went out, but the run stopped before its result:
    the next run reads the server, finds it made, records it with its inverse, sends nothing."""
    monkeypatch.setenv("CHATOPS_STATE_DIR", str(tmp_path / "state"))
    group = _group(admin, "alumni")
    item = Item(DeactivateGroup(group_id=group))
    with _journal(tmp_path, "apply") as journal:
        journal.intend(item, None)
    admin.user_groups.deactivate(group)  # the call that went out before the stop
    sent: list[str] = []
    original = admin.post

    def post(path: str, **kw: Any) -> Any:
        sent.append(path)
        return original(path, **kw)

    monkeypatch.setattr(admin, "post", post)
    with Journal.open(tmp_path / "apply.jsonl", kind="apply") as journal:
        tally = apply_changes([item], admin, journal, say=lambda _l: None, progress=False)
    assert tally["done"] == 1 and sent == []
    (line,) = Journal.read(tmp_path / "apply.jsonl").results()
    assert line["message"] == "made before an interruption"
    assert line["inverse"] == {"kind": "ReactivateGroup", "group_id": group}
    admin.user_groups.reactivate(group)


def test_a_plan_line_of_a_reactivation_undoes_as_a_deactivation() -> None:
    assert ReactivateUser(user_id=5).inverse(None, {}) == DeactivateUser(user_id=5)
