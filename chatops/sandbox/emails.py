"""Email address validation as the real server does it: Django's ``EmailValidator``.

The real server checks every address it accepts (invitations, ``POST /users``, the join form,
``POST /fetch_api_key``) with ``django.core.validators.validate_email``: a dot-atom or quoted
local part, and a domain of dot-separated labels (no empty label, so ``a@example..com`` is
refused) ending in a label of at least two characters, or an IP literal in brackets, or
``localhost``; at most 320 characters. Internationalised domains are checked in their IDNA form.
"""

from __future__ import annotations

import ipaddress
import re

MAX_LENGTH = 320

_USER = re.compile(
    # dot-atom
    r"(^[-!#$%&'*+/=?^_`{}|~0-9A-Z]+(\.[-!#$%&'*+/=?^_`{}|~0-9A-Z]+)*\Z"
    # quoted string
    r'|^"([\001-\010\013\014\016-\037!#-\[\]-\177]|\\[\001-\011\013\014\016-\177])*"\Z)',
    re.IGNORECASE,
)
_DOMAIN = re.compile(
    # labels of at most 63 characters, not starting or ending with a hyphen, then the last one
    r"((?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+)(?:[A-Z0-9-]{2,63}(?<!-))\Z",
    re.IGNORECASE,
)
_LITERAL = re.compile(r"\[([A-F0-9:.]+)\]\Z", re.IGNORECASE)
_ALLOWED_DOMAINS = ("localhost",)


def _valid_domain(domain: str) -> bool:
    if _DOMAIN.match(domain):
        return True
    literal = _LITERAL.match(domain)
    if literal is None:
        return False
    try:
        ipaddress.ip_address(literal.group(1))
    except ValueError:
        return False
    return True


def valid_email(address: str) -> bool:
    """Whether the real server's email validation accepts ``address`` (as given, not stripped)."""
    if not address or "@" not in address or len(address) > MAX_LENGTH:
        return False
    user, domain = address.rsplit("@", 1)
    if not _USER.match(user):
        return False
    if domain in _ALLOWED_DOMAINS or _valid_domain(domain):
        return True
    try:  # an internationalised domain, checked in its ASCII form
        ascii_domain = domain.encode("idna").decode("ascii")
    except UnicodeError:
        return False
    return _valid_domain(ascii_domain)
