"""Keyed pseudonyms of people: what ``anonymize=True`` and ``chatops data export --pseudonymise``
put in place of user ids.

A pseudonym is ``u-`` and 16 hex digits of HMAC-SHA256 over the user id under a secret key.
User ids are small integers, so an unkeyed hash (or one under a salt everybody knows) is undone
by hashing 1, 2, 3...; under a secret key nobody without the key can tell whose a pseudonym is.
The same key gives the same pseudonyms in every view, export and run; another key, others.

There is no default key. The key is, first found:

1. the ``key`` given to the view or the export (a string of at least 32 characters);
2. the environment variable ``CHATOPS_PSEUDONYM_KEY`` (the same);
3. the key file that ``chatops data key`` writes (:func:`make_key`), owner-only (0600), in
   chatops's state folder (``$CHATOPS_STATE_DIR``, else ``$XDG_STATE_HOME/chatops``, else
   ``~/.local/state/chatops``): ``pseudonym.key``.

With none of them, asking for pseudonyms is refused (``ValueError`` naming the command and the
variable). A key never appears in a repr, an exception or an output::

    >>> make_key()                  # once, as `chatops data key` does
    PosixPath('/home/me/.local/state/chatops/pseudonym.key')
    >>> key = load_key()
    >>> key
    PseudonymKey(from the key file /home/me/.local/state/chatops/pseudonym.key)
    >>> key.pseudonym(42)           # 16 hex digits that differ with every key
    'u-3f9c0a51d2e87b46'
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from .._files import atomic_write

__all__ = [
    "KEY_ENV",
    "KEY_FILE_NAME",
    "MIN_KEY_LENGTH",
    "PseudonymKey",
    "key_file",
    "load_key",
    "make_key",
    "pseudonym",
]

#: the environment variable holding the key
KEY_ENV = "CHATOPS_PSEUDONYM_KEY"
#: the key file's name in chatops's state folder
KEY_FILE_NAME = "pseudonym.key"
#: the fewest characters a key has (``chatops data key`` writes 64 hex digits)
MIN_KEY_LENGTH = 32
#: hex digits of the HMAC kept in a pseudonym: 64 bits, so that two of a million people share
#: one with odds of about 1 in 36 million
_DIGITS = 16

NO_KEY = (
    "pseudonyms need a secret key and none is configured: run `chatops data key` "
    f"(it writes an owner-only key file) or set {KEY_ENV} to a secret of at least "
    f"{MIN_KEY_LENGTH} characters"
)


class PseudonymKey:
    """A secret pseudonym key; its repr and str say where it came from, never what it is.

    Args:
        secret: the key's bytes (at least :data:`MIN_KEY_LENGTH`).
        source: where it came from, as the repr says it.
    """

    __slots__ = ("_secret", "source")

    def __init__(self, secret: bytes, source: str = "an argument") -> None:
        if len(secret) < MIN_KEY_LENGTH:
            raise ValueError(
                f"the pseudonym key from {source} is too short: a key has at least "
                f"{MIN_KEY_LENGTH} characters (`chatops data key` makes one)"
            )
        self._secret = secret
        self.source = source

    def __repr__(self) -> str:
        return f"PseudonymKey(from {self.source})"

    __str__ = __repr__

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a pseudonym key is not pickled: load it where it is used")

    def pseudonym(self, user_id: int) -> str:
        """The pseudonym of ``user_id``: ``u-`` and 16 hex digits of HMAC-SHA256.

        Args:
            user_id: the user id.
        """
        mac = hmac.new(self._secret, str(int(user_id)).encode(), hashlib.sha256)
        return "u-" + mac.hexdigest()[:_DIGITS]

    def label(self, kind: str, text: str) -> str:
        """A keyed pseudonym of a piece of text (a topic name): ``kind`` and 16 hex digits.

        Args:
            kind: the prefix (``t`` for topics); it is also hashed, so the same text under
                two kinds gives two unrelated pseudonyms.
            text: the text.
        """
        mac = hmac.new(self._secret, f"{kind}\x00{text}".encode(), hashlib.sha256)
        return f"{kind}-{mac.hexdigest()[:_DIGITS]}"


def key_file() -> Path:
    """Where ``chatops data key`` keeps the key: ``pseudonym.key`` in chatops's state folder."""
    from ..changes.journal import state_dir

    return state_dir() / KEY_FILE_NAME


def make_key(path: Path | None = None, *, replace: bool = False) -> Path:
    """Write a new random key (64 hex digits) to an owner-only (0600) file; returns its path.

    Args:
        path: the file; default :func:`key_file`.
        replace: write over a key that exists. Every pseudonym changes with the key, so what
            was shared before no longer matches what is shared after.

    Raises:
        FileExistsError: the file exists and ``replace`` is false.
    """
    target = path if path is not None else key_file()
    if target.exists() and not replace:
        raise FileExistsError(target)
    text = secrets.token_hex(32) + "\n"

    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="ascii")

    atomic_write(target, write)
    return target


def _from_file(path: Path) -> PseudonymKey:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ValueError(
            f"the pseudonym key file {path} can be read by other accounts "
            f"(mode {mode:04o}): make it owner-only with chmod 600 {path}"
        )
    return PseudonymKey(path.read_bytes().strip(), f"the key file {path}")


def load_key(key: PseudonymKey | str | bytes | None = None) -> PseudonymKey:
    """The pseudonym key: ``key`` when given, else ``$CHATOPS_PSEUDONYM_KEY``, else the key file.

    Args:
        key: a key, or its secret as text or bytes (at least 32 characters).

    Raises:
        ValueError: no key anywhere (the message names ``chatops data key`` and the variable),
            a key too short, or a key file other accounts can read.
    """
    if isinstance(key, PseudonymKey):
        return key
    if isinstance(key, str | bytes):
        return PseudonymKey(key.encode() if isinstance(key, str) else key, "the key argument")
    if key is not None:
        raise ValueError(f"key must be text, bytes or a PseudonymKey, not {type(key).__name__}")
    env = os.environ.get(KEY_ENV)
    if env:
        return PseudonymKey(env.encode(), KEY_ENV)
    path = key_file()
    if path.is_file():
        return _from_file(path)
    raise ValueError(NO_KEY)


def pseudonym(user_id: int, key: PseudonymKey | str | bytes | None = None) -> str:
    """The keyed pseudonym of ``user_id`` (see :func:`load_key` for where the key comes from).

    Args:
        user_id: the user id.
        key: the key; default the configured one.

    Example::

        >>> r = views.participation_distribution(messages, anonymize=True)
        >>> pseudonym(42) in set(r.frame["user_id"])    # when user 42 posted
        True
    """
    return load_key(key).pseudonym(user_id)
