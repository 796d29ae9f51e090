"""Reading a group's membership (feature level 127): members, one user's membership, subgroups.

Three groups in a chain: ``leaves`` (two members, one later deactivated) is a subgroup of
``branch`` (one member), which is a subgroup of ``trunk`` (no direct members).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import group_id, unchanged
from tests.sandbox.helpers import api_error, raw


@dataclass
class Chain:
    leaves: int
    branch: int
    trunk: int
    leaf_member: int
    gone: int
    branch_member: int


@pytest.fixture(scope="module")
def chain(fresh_sandbox: Sandbox) -> Iterator[Chain]:
    sb = fresh_sandbox
    ids = {name: sb.accounts[name].user_id for name in ("member", "guest", "moderator")}
    with chatops.Client.from_zuliprc(sb.zuliprc("owner")) as owner:
        gone = owner.users.create(email="gone@example.com", password="pw-123456", full_name="Gone")
        leaves = owner.user_groups.create("leaves", members=[ids["member"], gone])
        branch = owner.user_groups.create("branch", members=[ids["moderator"]], subgroups=[leaves])
        trunk = owner.user_groups.create("trunk", members=[], subgroups=[branch])
        owner.users.deactivate(gone)
    yield Chain(leaves, branch, trunk, ids["member"], gone, ids["moderator"])


@pytest.fixture
def reader(client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox) -> chatops.Client:
    # members and administrators may read; guests and bots are refused (require_member_or_admin)
    return client_for("member", fresh_sandbox)


def test_members_over_http(fresh_sandbox: Sandbox, chain: Chain) -> None:
    status, body = raw(fresh_sandbox, "member", "GET", f"/user_groups/{chain.trunk}/members")
    assert status == 200, body
    assert body["members"] == sorted([chain.leaf_member, chain.branch_member])
    status, body = raw(
        fresh_sandbox,
        "member",
        "GET",
        f"/user_groups/{chain.branch}/members",
        direct_member_only="true",
    )
    assert (status, body["members"]) == (200, [chain.branch_member])


def test_members_leave_out_deactivated_users(reader: chatops.Client, chain: Chain) -> None:
    assert reader.user_groups.members(chain.leaves) == [chain.leaf_member]
    assert chain.gone not in reader.user_groups.members(chain.trunk)
    assert reader.user_groups.members(chain.trunk, direct_member_only=True) == []


def test_is_member_over_http_and_by_the_client(
    fresh_sandbox: Sandbox, reader: chatops.Client, chain: Chain
) -> None:
    path = f"/user_groups/{chain.trunk}/members/{chain.leaf_member}"
    status, body = raw(fresh_sandbox, "member", "GET", path)
    assert (status, body["is_user_group_member"]) == (200, True)
    status, body = raw(fresh_sandbox, "member", "GET", path, direct_member_only="true")
    assert (status, body["is_user_group_member"]) == (200, False)
    assert reader.user_groups.is_member(chain.branch, chain.branch_member, direct_member_only=True)
    assert not reader.user_groups.is_member(chain.leaves, chain.gone)  # deactivated
    assert not reader.user_groups.is_member(chain.leaves, chain.branch_member)


def test_subgroups(reader: chatops.Client, fresh_sandbox: Sandbox, chain: Chain) -> None:
    status, body = raw(fresh_sandbox, "member", "GET", f"/user_groups/{chain.trunk}/subgroups")
    assert (status, body["subgroups"]) == (200, sorted([chain.branch, chain.leaves]))
    assert reader.user_groups.subgroups(chain.trunk, direct_subgroup_only=True) == [chain.branch]
    assert reader.user_groups.subgroups(chain.leaves) == []


def test_role_groups_count_their_members_by_role(
    reader: chatops.Client, fresh_sandbox: Sandbox
) -> None:
    admins = group_id(fresh_sandbox.store, "role:administrators")
    expected = {
        int(r["id"])
        for r in fresh_sandbox.store.query(
            "SELECT id FROM users WHERE is_active = 1 AND role <= 200"
        )
    }
    assert set(reader.user_groups.members(admins)) == expected
    assert reader.user_groups.is_member(admins, fresh_sandbox.accounts["owner"].user_id)


def test_errors(reader: chatops.Client, fresh_sandbox: Sandbox, chain: Chain) -> None:
    with unchanged(fresh_sandbox.store):
        for call in (
            lambda: reader.user_groups.members(999_999),
            lambda: reader.user_groups.subgroups(999_999),
            lambda: reader.user_groups.is_member(999_999, chain.leaf_member),
        ):
            with api_error("BAD_REQUEST") as info:
                call()
            assert info.value.msg == "Invalid user group"
        with api_error("BAD_REQUEST") as info:
            reader.user_groups.is_member(chain.leaves, 999_999)
        assert info.value.msg == "No such user"


def test_the_async_twins(fresh_sandbox: Sandbox, chain: Chain) -> None:
    async def main() -> tuple[list[int], bool, list[int]]:
        async with chatops.AsyncClient.from_zuliprc(fresh_sandbox.zuliprc("member")) as client:
            return (
                await client.user_groups.members(chain.branch),
                await client.user_groups.is_member(chain.trunk, chain.branch_member),
                await client.user_groups.subgroups(chain.trunk),
            )

    members, is_member, subgroups = asyncio.run(main())
    assert members == sorted([chain.leaf_member, chain.branch_member])
    assert is_member is True
    assert subgroups == sorted([chain.branch, chain.leaves])
