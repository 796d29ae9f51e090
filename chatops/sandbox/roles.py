"""Who may call an endpoint at all: the real server's view decorators, checked first.

The real server wraps some views in ``@require_realm_admin``, ``@require_realm_owner``,
``@require_member_or_admin`` or ``@require_non_guest_user`` outside the parameter parsing
(``@typed_endpoint``), so a caller without the role is refused before any parameter is read:
a member who leaves out a required parameter of an administrators' endpoint hears "Must be
an organization administrator", not "Missing '…' argument". A route declares its guard with
``endpoint(role=...)`` (:func:`chatops.sandbox.routes._http.endpoint`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import realm as realm_mod
from .errors import ApiError
from .store import Row, Store

__all__ = [
    "MEMBER_OR_ADMIN",
    "NON_GUEST",
    "REALM_ADMIN",
    "REALM_OWNER",
    "USER_GROUP_CREATE",
    "Guard",
]


@dataclass(frozen=True)
class Guard:
    """One of the real server's role decorators: its name and the refusal it raises."""

    name: str
    check: Callable[[Store, Row], None]

    def __call__(self, store: Store, user: Row) -> None:
        """Refuse ``user`` with the decorator's error when they lack the role.

        Args:
            store: the organization (a guard may read its settings).
            user: the authenticated caller.
        """
        self.check(store, user)


def _is_guest(user: Row) -> bool:
    return int(user["role"]) == realm_mod.ROLE_GUEST


def _realm_admin(store: Store, user: Row) -> None:
    if not realm_mod.is_admin(user):
        raise ApiError("Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")


def _realm_owner(store: Store, user: Row) -> None:
    if int(user["role"]) != realm_mod.ROLE_OWNER:
        raise ApiError("Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")


def _member_or_admin(store: Store, user: Row) -> None:
    if _is_guest(user):
        raise ApiError("Not allowed for guest users")
    if user["is_bot"]:
        raise ApiError("This endpoint does not accept bot requests.")


def _non_guest(store: Store, user: Row) -> None:
    if _is_guest(user):
        raise ApiError("Not allowed for guest users")


def _user_group_create(store: Store, user: Row) -> None:
    _member_or_admin(store, user)
    if not realm_mod.realm_permits(store, user, "can_create_groups"):
        raise ApiError("Insufficient permission")


#: ``@require_realm_admin``: administrators and owners (``OrganizationAdministratorRequiredError``)
REALM_ADMIN = Guard("require_realm_admin", _realm_admin)
#: ``@require_realm_owner``: owners only (``OrganizationOwnerRequiredError``)
REALM_OWNER = Guard("require_realm_owner", _realm_owner)
#: ``@require_member_or_admin``: people who are not guests (guests first, then bots)
MEMBER_OR_ADMIN = Guard("require_member_or_admin", _member_or_admin)
#: ``@require_non_guest_user``: anyone but guests, bots included
NON_GUEST = Guard("require_non_guest_user", _non_guest)
#: ``@require_user_group_create_permission``: ``require_member_or_admin``, then the
#: organization's ``can_create_groups``
USER_GROUP_CREATE = Guard("require_user_group_create_permission", _user_group_create)
