"""What ``chatops audit run`` checks once, before any notebook's kernel starts.

A missing key, a malformed zuliprc, a server that does not answer or a parameter out of range
would otherwise surface inside each notebook, after its kernel started (seconds per audit),
and leave a report folder of failures behind. :func:`precheck` finds them first::

    precheck(site, zuliprc, {"org_overview": {"days": -5}})
    # PrecheckError: parameter days of org_overview must be at least 1, not -5

The ranges are the audits' own (each audit function refuses the same values with
``ValueError`` when called directly); a parameter not listed here is only type-checked, by the
runner.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .._exceptions import ApiError, AuthenticationError, ConfigError, TransportError

__all__ = ["PARAMETER_RANGES", "PrecheckError", "check_parameters", "precheck"]


class PrecheckError(ConfigError):
    """An audit run cannot start: bad credentials, no server, or a parameter out of range.

    Its message is one line, meant to be shown as it is (the CLI exits 2 with it).
    """


Check = Callable[[float], bool]


def _at_least(low: float) -> tuple[Check, str]:
    return (lambda v: v >= low), f"at least {low:g}"


def _between(low: float, high: float) -> tuple[Check, str]:
    return (lambda v: low <= v <= high), f"between {low:g} and {high:g}"


_THRESHOLD = _at_least(-1)  # a "fail when more than" threshold; -1 turns it off
_SHARE = (lambda v: v == -1 or 0 <= v <= 1), "-1 (off) or between 0 and 1"

#: parameter -> (accepts, what it must be); the same rules as the audit functions' own checks
PARAMETER_RANGES: dict[str, tuple[Check, str]] = {
    "days": _at_least(1),
    "inactive_days": _at_least(1),
    "stale_days": _at_least(1),
    "max_messages": _at_least(1),
    "timeout_ms": _at_least(1),
    "older_than_days": _at_least(0),
    "unlinked_days": _at_least(0),
    "max_expiry_days": _at_least(0),
    "max_channels": _at_least(0),
    "min_channel_messages": _at_least(0),
    "sample_messages": _between(0, 5000),
    "scan_messages": _between(0, 5000),
    "similarity": ((lambda v: 0 < v <= 1), "above 0 and at most 1"),
    "min_size_mb": ((lambda v: v > 0), "more than 0"),
    "max_group_size_ratio": _SHARE,
    "max_inactive_share": _SHARE,
    "max_inactive_channel_share": _SHARE,
    "max_guest_share": _SHARE,
    "min_members": _at_least(0),
    "min_subscribers": _at_least(0),
    "seat_cost": _at_least(0),
}


def _rule(name: str) -> tuple[Check, str] | None:
    if name in PARAMETER_RANGES:
        return PARAMETER_RANGES[name]
    if name.startswith("max_"):  # every other max_* is a threshold count
        return _THRESHOLD
    return None


def check_parameters(parameters_by_audit: Mapping[str, Mapping[str, Any]]) -> None:
    """Raise :class:`PrecheckError` for the first parameter outside its audit's range.

    Args:
        parameters_by_audit: audit name -> parameters already converted to their types (the
            runner's ``validate_parameters`` result).
    """
    for audit, parameters in parameters_by_audit.items():
        for name, value in parameters.items():
            rule = _rule(name)
            if rule is None or isinstance(value, bool) or not isinstance(value, int | float):
                continue
            accepts, wanted = rule
            if not math.isfinite(value) or not accepts(value):
                raise PrecheckError(f"parameter {name} of {audit} must be {wanted}, not {value!r}")


def check_server(site: str | None, zuliprc: str | None, *, timeout: float = 10.0) -> None:
    """Raise :class:`PrecheckError` unless the credentials resolve and the server accepts them.

    One ``GET /users/me``, without retries: a server that does not answer within ``timeout``
    is unreachable. With neither ``site`` nor ``zuliprc`` there is nothing to check (the runner
    starts a demo sandbox).
    """
    from .._client import Client  # the client pulls in httpx; parameters alone do not need it

    if not site and not zuliprc:
        return
    if zuliprc and not Path(zuliprc).expanduser().is_file():
        raise PrecheckError(f"zuliprc {zuliprc} does not exist")
    config = Path(zuliprc).expanduser() if zuliprc else None
    try:
        client = Client(site=site or None, config_file=config, timeout=timeout, max_retries=0)
    except ConfigError as exc:
        raise PrecheckError(str(exc).splitlines()[0]) from None
    with client:
        where = client.credentials.site
        try:
            client.users.me()
        except AuthenticationError as exc:
            raise PrecheckError(
                f"{where} refused the credentials of {client.credentials.email}: {exc.msg}"
            ) from None
        except TransportError as exc:
            raise PrecheckError(f"{where} is unreachable: {exc}".splitlines()[0]) from None
        except ApiError as exc:
            raise PrecheckError(f"{where} answered {exc.status}: {exc.msg}") from None


def precheck(
    site: str | None,
    zuliprc: str | None,
    parameters_by_audit: Mapping[str, Mapping[str, Any]],
) -> None:
    """Check parameter ranges, then credentials and reachability; raise :class:`PrecheckError`.

    Args:
        site: the ``--site`` option, or None.
        zuliprc: the ``--zuliprc`` option, or None.
        parameters_by_audit: audit name -> its converted parameters.

    Parameters first: they cost nothing to check, and a wrong value is wrong on every server.
    """
    check_parameters(parameters_by_audit)
    check_server(site, zuliprc)
