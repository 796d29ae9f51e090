"""The demo accounts: one per role, a generic bot and an outgoing-webhook bot, with credentials.

Their API keys and passwords are drawn from the operating system's randomness, not from the
demo's seed: two organizations generated from one seed share everything but these secrets.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from .. import realm as realm_mod
from .. import users
from ..files import private_folder, write_private
from ..store import Store

DEMO_ACCOUNTS = ("owner", "admin", "moderator", "member", "guest", "bot")
DOMAIN = "demo.chatops.test"


@dataclass(frozen=True)
class Account:
    """A demo account's credentials; the key and password never appear in its repr."""

    name: str
    user_id: int
    email: str
    full_name: str
    role: int
    api_key: str = ""
    password: str | None = None

    def __repr__(self) -> str:
        return f"Account(name={self.name!r}, user_id={self.user_id}, email={self.email!r})"


def _account(store: Store, account: str, full_name: str, role: int, start: int) -> Account:
    password = secrets.token_urlsafe(12)
    email = f"{account}@{DOMAIN}"
    key = users.new_api_key()
    uid = users.create_user(
        store,
        email=email,
        full_name=full_name,
        role=role,
        password=password,
        api_key=key,
        date_joined=start - 86400,
        timezone="Europe/Berlin",
    )
    return Account(account, uid, email, full_name, role, key, password)


def add_owner(store: Store, start: int) -> Account:
    """The owner alone (the organization of size ``empty``)."""
    return _account(store, "owner", "Olivia Owner", realm_mod.ROLE_OWNER, start)


def add_accounts(store: Store, start: int) -> dict[str, Account]:
    """The accounts of :data:`DEMO_ACCOUNTS`, and the webhook bot (not a demo account)."""
    accounts: dict[str, Account] = {}
    roles = [
        ("owner", "Olivia Owner", realm_mod.ROLE_OWNER),
        ("admin", "Adam Admin", realm_mod.ROLE_ADMIN),
        ("moderator", "Mona Moderator", realm_mod.ROLE_MODERATOR),
        ("member", "Mei Member", realm_mod.ROLE_MEMBER),
        ("guest", "Gus Guest", realm_mod.ROLE_GUEST),
    ]
    for account, full_name, role in roles:
        accounts[account] = _account(store, account, full_name, role, start)
    key = users.new_api_key()
    bot_id = users.create_user(
        store,
        email=f"helper-bot@{DOMAIN}",
        full_name="Helper Bot",
        is_bot=True,
        bot_type=1,
        bot_owner_id=accounts["admin"].user_id,
        api_key=key,
        date_joined=start,
    )
    accounts["bot"] = Account(
        "bot", bot_id, f"helper-bot@{DOMAIN}", "Helper Bot", realm_mod.ROLE_MEMBER, key, None
    )
    users.create_user(
        store,
        email=f"webhook-bot@{DOMAIN}",
        full_name="Webhook Bot",
        is_bot=True,
        bot_type=3,
        bot_owner_id=accounts["admin"].user_id,
        date_joined=start,
    )
    return accounts


def write_credentials(accounts: dict[str, Account], site: str, directory: Path) -> None:
    """``DIR/<account>.zuliprc`` (standard ``[api]`` section) and ``<account>.password``."""
    private_folder(directory)
    for name, acc in accounts.items():
        rc = directory / f"{name}.zuliprc"
        write_private(rc, f"[api]\nemail={acc.email}\nkey={acc.api_key}\nsite={site}\n")
        if acc.password is not None:
            write_private(directory / f"{name}.password", acc.password + "\n")


def save_accounts(accounts: dict[str, Account], path: Path) -> None:
    data = {
        k: {
            "name": a.name,
            "user_id": a.user_id,
            "email": a.email,
            "full_name": a.full_name,
            "role": a.role,
            "api_key": a.api_key,
            "password": a.password,
        }
        for k, a in accounts.items()
    }
    write_private(path, json.dumps(data, indent=1))


def load_accounts(path: Path) -> dict[str, Account]:
    data = json.loads(path.read_text())
    return {k: Account(**v) for k, v in data.items()}
