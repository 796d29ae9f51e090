"""Deactivating one's own account (``DELETE /users/me``) as the real server's
``deactivate_user_own_backend``: anyone may leave, with the bots they own, unless they are
the organization's only owner or only user (``CANNOT_DEACTIVATE_LAST_USER``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error

Make = Callable[..., chatops.Client]


@pytest.fixture
def queue(fresh_sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(fresh_sandbox, "admin", event_types=["realm_user", "realm_bot"])
    yield q
    q.close()


def _active(sandbox: Sandbox, user_id: int) -> bool:
    return bool(sandbox.store.scalar("SELECT is_active FROM users WHERE id = ?", [user_id]))


def test_a_member_leaves_with_their_bots(
    fresh_sandbox: Sandbox, client_for: Make, queue: Queue
) -> None:
    member = client_for("member", fresh_sandbox)
    me = member.users.me().user_id
    bot = member.bots.create(full_name="Helper", short_name="helper-own").user_id
    member.users.deactivate_own_account()
    assert not _active(fresh_sandbox, me) and not _active(fresh_sandbox, bot)
    events = queue.poll()
    gone = {
        e["person"]["user_id"]
        for e in events
        if e["type"] == "realm_user"
        and e["op"] == "update"
        and e["person"].get("is_active") is False
    }
    assert gone == {me, bot}
    with api_error("UNAUTHORIZED", 401, msg="Account is deactivated"):  # facts 1.2
        member.users.me()


def test_the_only_owner_cannot_leave_until_there_is_another(
    fresh_sandbox: Sandbox, client_for: Make, queue: Queue
) -> None:
    owner = client_for("owner", fresh_sandbox)
    with (
        unchanged(fresh_sandbox.store),
        api_error(
            "CANNOT_DEACTIVATE_LAST_USER",
            msg="Cannot deactivate the only organization owner.",
            is_last_owner=True,
            entity="organization owner",
        ),
    ):
        owner.users.deactivate_own_account()
    assert not [e for e in queue.poll() if e["type"] == "realm_user"]
    moderator_id = client_for("moderator", fresh_sandbox).users.me().user_id
    owner.users.update(moderator_id, role=100)
    owner.users.deactivate_own_account()
    assert not _active(fresh_sandbox, fresh_sandbox.accounts["owner"].user_id)


def test_the_only_user_cannot_leave(fresh_sandbox: Sandbox, client_for: Make) -> None:
    guest = client_for("guest", fresh_sandbox)
    me = guest.users.me().user_id
    # test set-up: everyone else has left
    fresh_sandbox.store.execute(
        "UPDATE users SET is_active = 0 WHERE id != ? AND is_system_bot = 0", [me]
    )
    with (
        unchanged(fresh_sandbox.store),
        api_error(
            "CANNOT_DEACTIVATE_LAST_USER",
            msg="Cannot deactivate the only user.",
            is_last_owner=False,
            entity="user",
        ),
    ):
        guest.users.deactivate_own_account()
