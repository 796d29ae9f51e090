"""What ``chatops audit run`` checks once, before any notebook's kernel starts.

A missing key, a malformed zuliprc, a server that does not answer or a parameter out of range
would otherwise surface inside each notebook, after its kernel started (seconds per audit),
and leave a report folder of failures behind. :func:`precheck` finds them first::

    precheck(site, zuliprc, {"org_overview": {"days": -5}})
    # PrecheckError: parameter days of org_overview must be at least 1, not -5

The ranges are the audits' own, declared once in each audit function's signature
(:class:`~chatops.audits._params.Param`; the function refuses the same values with ``ValueError``
when called directly); a parameter without a range is only type-checked, by the runner.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._exceptions import ApiError, AuthenticationError, ConfigError, TransportError
from ._params import audit_parameters

__all__ = ["PrecheckError", "check_parameters", "precheck"]


class PrecheckError(ConfigError):
    """An audit run cannot start: bad credentials, no server, or a parameter out of range.

    Its message is one line, meant to be shown as it is (the CLI exits 2 with it).
    """


def check_parameters(parameters_by_audit: Mapping[str, Mapping[str, Any]]) -> None:
    """Raise :class:`PrecheckError` for the first parameter outside its audit's range.

    Args:
        parameters_by_audit: audit name -> parameters already converted to their types (the
            runner's ``validate_parameters`` result).
    """
    from . import AUDIT_FUNCTIONS

    for audit, parameters in parameters_by_audit.items():
        function = AUDIT_FUNCTIONS.get(audit)
        declared = audit_parameters(function) if function is not None else {}
        for name, value in parameters.items():
            if name not in declared or isinstance(value, bool):
                continue
            if not isinstance(value, int | float):
                continue
            rule = declared[name].param
            if not rule.accepts(value):
                raise PrecheckError(
                    f"parameter {name} of {audit} must be {rule.wanted}, not {value!r}"
                )


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
