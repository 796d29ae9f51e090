"""Write the synchronous client from the asynchronous one: ``python scripts/unasync.py``.

``chatops/_async_client/`` (``AsyncClient`` and the async resources) is the only source that
people edit; ``chatops/_sync_client/`` is written from it token by token, the way ``unasync``
does it:

- ``async def`` / ``async with`` / ``async for`` lose ``async``; ``await`` goes;
- names change by :data:`RENAMES` (``__aenter__`` -> ``__enter__``, ``aclose`` -> ``close``,
  ``asyncio.sleep`` -> ``time.sleep``, ...), and any other ``AsyncName`` becomes ``Name``
  (``AsyncClient`` -> ``Client``, ``AsyncMessages`` -> ``Messages``, ``AsyncIterator`` ->
  ``Iterator``), in code, docstrings and comments alike (whose examples lose ``async`` and
  ``await`` too: docstrings are written once, for both clients);
- ``asyncio`` is refused except for ``asyncio.sleep``: code that waits differently in the two
  worlds lives outside ``_async_client/``, one hand-written module per twin pair.

Each public module ``chatops/_async_client/resources/<area>.py`` also gets its public face,
``chatops/resources/<area>.py``, which names both twins (:func:`facade`).

The result goes through ``ruff check --fix`` (imports) and ``ruff format`` with the project's
settings, so that what is committed passes both. ``python scripts/unasync.py --check`` exits 1
and names the files that differ from what this writes (``tests/test_unasync.py`` does the same).
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

__all__ = ["COMMAND", "RENAMES", "facade", "generate", "main", "sources", "unasync_source"]

COMMAND = "python scripts/unasync.py"
PACKAGE = Path(__file__).resolve().parent.parent / "chatops"
SOURCE = PACKAGE / "_async_client"
TARGET = PACKAGE / "_sync_client"
FACADES = PACKAGE / "resources"

#: names whose synchronous twin is not the name without ``Async``
RENAMES: dict[str, str] = {
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    "__aiter__": "__iter__",
    "__anext__": "__next__",
    "aclose": "close",
    "aiter_bytes": "iter_bytes",
    "aiter_raw": "iter_raw",
    "aread": "read",
    "anext": "next",
    "asyncio": "time",
    "AsyncResource": "SyncResource",
    "StopAsyncIteration": "StopIteration",
    "run_bounded": "run_sequential",
}

_ASYNC_NAME = re.compile(r"\bAsync(?=[A-Z])")
_WORDS = re.compile(r"\b(" + "|".join(re.escape(k) for k in RENAMES) + r")\b")
_REMOVED = {"async", "await"}
_PROSE_KEYWORDS = re.compile(r"\b(?:async|await) (?=\S)")


def _rename_text(text: str) -> str:
    """The same renames inside a docstring or comment, whose examples lose ``async``/``await``."""
    text = _WORDS.sub(lambda m: RENAMES[m.group(1)], text)
    text = _PROSE_KEYWORDS.sub("", text)
    return _ASYNC_NAME.sub("", text)


def _rename(name: str) -> str:
    if name in RENAMES:
        return RENAMES[name]
    if _ASYNC_NAME.match(name):
        return name[len("Async") :]
    return name


def _check_asyncio(tokens: list[tokenize.TokenInfo], path: str) -> None:
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.NAME or tok.string != "asyncio":
            continue
        before = tokens[i - 1].string if i else ""
        if before == "import":
            continue
        nxt = [t.string for t in tokens[i + 1 : i + 3]]
        if nxt != [".", "sleep"]:
            line = tok.start[0]
            raise ValueError(
                f"{path}:{line}: only asyncio.sleep has a synchronous twin (time.sleep); "
                "code that waits differently belongs in a hand-written module"
            )


def unasync_source(source: str, path: str = "<source>") -> str:
    """The synchronous twin of one module's text, before formatting."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    _check_asyncio(tokens, path)
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(pos: tuple[int, int]) -> int:
        return offsets[pos[0] - 1] + pos[1]

    out: list[str] = []
    cursor = 0
    skip_space = False
    for tok in tokens:
        start, end = at(tok.start), at(tok.end)
        gap = source[cursor:start]
        if skip_space and gap.strip(" ") == "":
            gap = ""
        out.append(gap)
        skip_space = False
        if tok.type == tokenize.NAME and tok.string in _REMOVED:
            skip_space = True
        elif tok.type == tokenize.NAME:
            out.append(_rename(tok.string))
        elif tok.type in (tokenize.STRING, tokenize.COMMENT):
            out.append(_rename_text(tok.string))
        else:
            out.append(source[start:end])
        cursor = end
    out.append(source[cursor:])
    return _dedupe_imports("".join(out))


def _dedupe_imports(text: str) -> str:
    """Drop a top-level ``import x`` line already present (``asyncio`` became ``time``)."""
    seen: set[str] = set()
    kept: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("import "):
            if line in seen:
                continue
            seen.add(line)
        kept.append(line)
    return "".join(kept)


def _ruff() -> str:
    try:
        from ruff.__main__ import find_ruff_bin  # type: ignore[import-untyped]

        return str(find_ruff_bin())
    except ImportError:  # pragma: no cover - ruff is a test dependency
        return "ruff"


def _ruff_pass(args: list[str], text: str, filename: Path) -> str:
    done = subprocess.run(
        [_ruff(), *args, "--quiet", "--stdin-filename", str(filename), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1) or not done.stdout:
        raise RuntimeError(f"ruff {args[0]} failed on {filename}: {done.stderr.strip()}")
    return done.stdout


def _header(source: Path) -> str:
    rel = source.relative_to(PACKAGE.parent).as_posix()
    return f"# Generated by `{COMMAND}` from {rel}: edit that file, not this one.\n"


def generate(source: Path, target: Path) -> str:
    """The committed text of ``target``, the synchronous twin of ``source``."""
    text = _header(source) + unasync_source(source.read_text(), str(source))
    text = _ruff_pass(["check", "--fix", "--select", "F401,F811,I"], text, target)
    return _ruff_pass(["format"], text, target)


def facade(source: Path, target: Path) -> str:
    """The committed text of ``chatops/resources/<area>.py``: both twins of one area by name."""
    area = source.stem
    summary = (ast.get_docstring(ast.parse(source.read_text())) or area).split("\n\n")[0]
    rel = source.relative_to(PACKAGE.parent).as_posix()
    text = (
        f'{_header(source)}"""{summary}\n\nWritten in ``{rel}``; the synchronous twins are '
        f'generated.\n"""\n\nfrom .._async_client.resources.{area} import *  # noqa: F403\n'
        f"from .._sync_client.resources.{area} import *  # noqa: F403\n"
    )
    return _ruff_pass(["format"], text, target)


def sources() -> Iterator[tuple[Path, Path]]:
    """Each source module under ``_async_client/`` with its twin's path under ``_sync_client/``."""
    for source in sorted(SOURCE.rglob("*.py")):
        yield source, TARGET / source.relative_to(SOURCE)


def facades() -> Iterator[tuple[Path, Path]]:
    """Each public async resource module with the path of its public face under ``resources/``."""
    for source in sorted((SOURCE / "resources").glob("[!_]*.py")):
        yield source, FACADES / source.name


def written() -> Iterator[tuple[Path, str]]:
    """Every file this script writes, with its text."""
    for source, target in sources():
        yield target, generate(source, target)
    for source, target in facades():
        yield target, facade(source, target)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a file would change"
    )
    args = parser.parse_args(argv)
    stale: list[str] = []
    expected = {target for _, target in sources()}
    for target, text in written():
        if target.exists() and target.read_text() == text:
            continue
        stale.append(str(target))
        if not args.check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    for orphan in sorted(set(TARGET.rglob("*.py")) - expected):
        stale.append(f"{orphan} (no source)")
        if not args.check:
            orphan.unlink()
    for name in stale:
        print(("differs: " if args.check else "wrote: ") + name)
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
