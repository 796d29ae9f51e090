"""A change is "already done" only when a read of the server shows it made, never from an
error's text: read before it is sent (nothing sent when it shows), and after a refusal.

Each case writes a one-change plan, changes the organization between plan and apply (the thing
removed out of band, or left as it is), applies, and reads the journal.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import chatops
from chatops.audit.plan import pending, plan_line, read_plan, results_path
from chatops.changes import Change
from chatops.changes.engine import Tally, apply_changes
from chatops.changes.journal import Item, Journal
from chatops.changes.kinds import (
    ArchiveChannel,
    DeactivateBot,
    DeactivateGroup,
    DeactivateUser,
    DeleteAttachment,
    DeleteLinkifier,
    DeleteReminder,
    DeleteScheduledMessage,
    RevokeInvitation,
)
from chatops.sandbox import Sandbox


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("plan-state"), size="small", seed=7) as sb:
        yield sb


@pytest.fixture(scope="module")
def admin(org: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as client:
        yield client


def _results(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [line for line in lines if "status" in line]


def _item(change: Change, subject: str) -> Item:
    return Item(change, {"audit": "x", "subject": subject})


def _apply(plan: Path, item: Item, client: chatops.Client) -> tuple[Tally, dict[str, Any]]:
    plan.write_text(json.dumps(plan_line(item)) + "\n")
    todo = pending(None, read_plan(plan))
    assert [i.change.call().path for i in todo.to_run] == [item.change.call().path]
    with Journal.open(results_path(plan), kind="apply") as journal:
        tally = apply_changes(todo.to_run, client, journal, say=lambda _line: None, progress=False)
    (result,) = _results(results_path(plan))
    return tally, result


def _again(plan: Path) -> Any:
    return pending(Journal.read(results_path(plan)), read_plan(plan))


def _group_id(admin: chatops.Client, name: str) -> int:
    groups = admin.get("/user_groups", params={"include_deactivated_groups": True})
    return next(int(g["id"]) for g in groups["user_groups"] if g["name"] == name)


def _user_id(admin: chatops.Client, name: str) -> int:
    return next(u.user_id for u in admin.users.list() if u.full_name == name)


# -- removed out of band between plan and apply: already done -----------------------------------


def _channel(admin: chatops.Client) -> tuple[Change, Callable[[], None]]:
    sid = admin.channels.get_id("marketing")
    return ArchiveChannel(stream_id=sid), lambda: admin.channels.archive(sid)


def _user(admin: chatops.Client) -> tuple[Change, Callable[[], None]]:
    uid = _user_id(admin, "Kemi Eriksen")
    return DeactivateUser(user_id=uid), lambda: admin.users.deactivate(uid)


def _bot(admin: chatops.Client) -> tuple[Change, Callable[[], None]]:
    uid = _user_id(admin, "Helper Bot")
    return DeactivateBot(user_id=uid), lambda: admin.users.deactivate(uid)


def _group(admin: chatops.Client) -> tuple[Change, Callable[[], None]]:
    gid = _group_id(admin, "alumni")
    return DeactivateGroup(group_id=gid), lambda: admin.user_groups.deactivate(gid)


def _link(admin: chatops.Client) -> tuple[Change, Callable[[], None]]:
    admin.invitations.create_link(expires_in_minutes=None, invite_as=600)
    newest = max(i.id for i in admin.invitations.list() if i.is_multiuse)
    return RevokeInvitation(invite_id=newest, multiuse=True), lambda: admin.invitations.revoke_link(
        newest
    )


def _invitation(admin: chatops.Client) -> tuple[Change, Callable[[], None]]:
    emailed = [i.id for i in admin.invitations.list() if not i.is_multiuse]
    return RevokeInvitation(invite_id=emailed[0]), lambda: admin.invitations.revoke(emailed[0])


def _linkifier(admin: chatops.Client) -> tuple[Change, Callable[[], None]]:
    first = admin.get("/realm/linkifiers")["linkifiers"][0]["id"]
    return DeleteLinkifier(filter_id=first), lambda: admin.realm.remove_linkifier(first)


def _attachment(admin: chatops.Client) -> tuple[Change, Callable[[], None]]:
    first = admin.get("/attachments")["attachments"][0]["id"]
    return DeleteAttachment(attachment_id=first), lambda: admin.uploads.delete_attachment(first)


def _scheduled(admin: chatops.Client) -> tuple[Change, Callable[[], None]]:
    first = admin.get("/scheduled_messages")["scheduled_messages"][0]["scheduled_message_id"]
    change = DeleteScheduledMessage(scheduled_message_id=first)
    return change, lambda: admin.scheduled_messages.delete(first)


def _reminder(admin: chatops.Client) -> tuple[Change, Callable[[], None]]:
    message = admin.get("/messages", params={"anchor": "newest", "num_before": 1})
    made = admin.post(
        "/reminders",
        params={
            "message_id": message["messages"][-1]["id"],
            "scheduled_delivery_timestamp": int(time.time()) + 86_400,
        },
    )
    rid = made["reminder_id"]
    return DeleteReminder(reminder_id=rid), lambda: admin.reminders.delete(rid)


OUT_OF_BAND = {
    "channel": (_channel, "is_archived true"),
    "user": (_user, "is_active false"),
    "bot": (_bot, "is_active false"),
    "group": (_group, "deactivated true"),
    "invitation link": (_link, "not listed"),
    "invitation": (_invitation, "not listed"),
    "linkifier": (_linkifier, "not listed"),
    "attachment": (_attachment, "not listed"),
    "scheduled message": (_scheduled, "not listed"),
    "reminder": (_reminder, "not listed"),
}


@pytest.mark.parametrize("kind", list(OUT_OF_BAND))
def test_a_thing_removed_between_plan_and_apply_is_already_done(
    kind: str, admin: chatops.Client, tmp_path: Path
) -> None:
    make, shown = OUT_OF_BAND[kind]
    change, remove = make(admin)
    item, path = _item(change, kind), change.call().path
    plan = tmp_path / "plan.jsonl"
    plan.write_text(json.dumps(plan_line(item)) + "\n")
    remove()  # out of band, after the plan was written
    tally, result = _apply(plan, item, admin)
    assert (tally["done"], tally["already_done"], tally["refused"], tally["failed"]) == (0, 1, 0, 0)
    assert result["status"] == "already_done"
    assert not result["message"]  # read before sending: nothing was sent
    assert result["checked"].startswith("GET ") and result["checked"].endswith(shown)
    again = _again(plan)
    assert again.to_run == [] and [i.change.call().path for i in again.done] == [path]


# -- refused for another reason: refused, and not sent again ------------------------------------


def _member_archives(org: Sandbox, admin: chatops.Client) -> tuple[str, Change, str]:
    sid = admin.channels.get_id("engineering")
    return "member", ArchiveChannel(stream_id=sid), "is_archived false"


def _member_archives_a_private_channel(
    org: Sandbox, admin: chatops.Client
) -> tuple[str, Change, str]:
    # "Invalid channel ID" to an account that cannot see it: it reads as gone, yet it is not
    sid = admin.channels.get_id("data")
    return "member", ArchiveChannel(stream_id=sid), "cannot tell"


def _admin_deactivates_a_group_it_may_not(
    org: Sandbox, admin: chatops.Client
) -> tuple[str, Change, str]:
    return "admin", DeactivateGroup(group_id=_group_id(admin, "leads")), "deactivated false"


def _group_in_use(org: Sandbox, admin: chatops.Client) -> tuple[str, Change, str]:
    gid = _group_id(admin, "support-team")
    return "admin", DeactivateGroup(group_id=gid), "deactivated false"


def _last_owner(org: Sandbox, admin: chatops.Client) -> tuple[str, Change, str]:
    return "owner", DeactivateUser(user_id=_user_id(admin, "Olivia Owner")), "is_active true"


def _member_revokes_an_admins_invitation(
    org: Sandbox, admin: chatops.Client
) -> tuple[str, Change, str]:
    admin.invitations.create_link(expires_in_minutes=None, invite_as=400)
    newest = max(i.id for i in admin.invitations.list() if i.is_multiuse)
    # a member lists only their own invitations: a missing one proves nothing
    return "member", RevokeInvitation(invite_id=newest, multiuse=True), "cannot tell"


REFUSED = {
    "no permission to archive": (_member_archives, "permission to administer this channel"),
    "private channel the account cannot see": (
        _member_archives_a_private_channel,
        "Invalid channel ID",
    ),
    "no permission on the group": (
        _admin_deactivates_a_group_it_may_not,
        "Insufficient permission",
    ),
    "group in use": (_group_in_use, "Cannot deactivate user group in use."),
    "last owner": (_last_owner, "only organization owner"),
    "invitation not listed to a member": (_member_revokes_an_admins_invitation, "administrator"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_removal_refused_for_another_reason_is_refused_and_not_sent_again(
    case: str, org: Sandbox, admin: chatops.Client, tmp_path: Path
) -> None:
    make, said = REFUSED[case]
    account, change, shown = make(org, admin)
    item, path = _item(change, case), change.call().path
    plan = tmp_path / "plan.jsonl"
    with chatops.Client.from_zuliprc(org.zuliprc(account)) as client:
        tally, result = _apply(plan, item, client)
    assert (tally["done"], tally["already_done"], tally["refused"], tally["failed"]) == (0, 0, 1, 0)
    assert result["status"] == "refused"
    assert said in result["message"], result
    assert result["checked"].endswith(shown), result
    again = _again(plan)
    assert again.to_run == [] and [i.change.call().path for i in again.refused] == [path]


def test_a_read_that_fails_on_the_way_leaves_the_removal_to_try_again(tmp_path: Path) -> None:
    """A 5xx on the read of the state (the sandbox cannot make one): failed, sent again next
    time."""
    seen: list[str] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.method == "DELETE":
            body = {
                "result": "error",
                "code": "BAD_REQUEST",
                "msg": "Channel is already deactivated",
            }
            return httpx.Response(400, json=body)
        return httpx.Response(503, json={"result": "error", "code": "BAD_GATEWAY", "msg": "down"})

    creds = chatops.Credentials("https://chat.example.com", "admin@example.com", "KEY")
    item = _item(ArchiveChannel(stream_id=5), "#old")
    plan = tmp_path / "plan.jsonl"
    with chatops.Client(
        credentials=creds, transport=httpx.MockTransport(server), max_retries=0
    ) as client:
        tally, result = _apply(plan, item, client)
    # read first (cannot tell), sent, refused, read again (failed on the way)
    assert seen == ["GET /api/v1/streams/5", "DELETE /api/v1/streams/5", "GET /api/v1/streams/5"]
    assert (tally["done"], tally["already_done"], tally["refused"], tally["failed"]) == (0, 0, 0, 1)
    assert result["status"] == "failed" and "reading its state failed" in result["message"]
    assert [i.change.call().path for i in _again(plan).to_run] == ["/streams/5"]
