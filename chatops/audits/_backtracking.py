"""Catastrophic backtracking, measured: a linkifier's pattern, wrapped in the server's context
rules, run by Python's backtracking ``re`` on adversarial inputs in a subprocess that is
abandoned after a time limit per input, so that the measuring cannot hang.

RE2, the server's engine, is linear; web and mobile clients that match with backtracking
engines (JavaScript, Python) are not. This is the one step of the ``linkifiers`` audit that
runs something besides reading the server: :func:`chatops.audits.linkifiers.measure`.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import sys
import time

__all__ = ["adversarial_inputs", "backtracking_ms"]

# The server's context rules (chatops.linkifiers) for Python's backtracking engine.
_BEFORE_PY = r"(?<![^\s'\"\(,:<])"
_AFTER_PY = r"(?![^\W_])"  # not followed by a letter or a digit
#: Lengths of the repeated part of each adversarial input: short for exponential blow-ups,
#: long for polynomial ones.
_LENGTHS = (28, 2500)
#: Seconds a trial subprocess may take to start before the measurement begins.
_STARTUP_SECONDS = 20.0

_TRIAL = r"""
import json, re, sys, time
spec = json.loads(sys.stdin.readline())
pattern = re.compile(spec["pattern"])
print("ready", flush=True)
for text in spec["inputs"]:
    t0 = time.perf_counter()
    pattern.search(text)
    print(f"{(time.perf_counter() - t0) * 1000:.3f}", flush=True)
"""


def adversarial_inputs(pattern: str) -> list[str]:
    """Texts that make a backtracking engine try many ways to match ``pattern`` and fail.

    A character the pattern can repeat, many times over, then one that ends every attempt;
    with and without the pattern's literal prefix (``#``, ``CVE-``) in front.
    """
    prefix = ""
    for ch in pattern:
        if ch.isalnum() or ch in "#-_/:@!%&=~":
            prefix += ch
        else:
            break
    literal = [c for c in re.sub(r"\\.", "", pattern) if c.isalnum() or c in "-_./#@"]
    chars: list[str] = []
    for c in [*literal, "a", "A", "0", "-", "_", ".", " ", "/"]:
        if c not in chars:
            chars.append(c)
    texts: list[str] = []
    for n in _LENGTHS:
        for c in chars[:16]:
            for head in dict.fromkeys(["", prefix]):
                texts.append(head + c * n + "\x00")
    return texts


def backtracking_ms(pattern: str, texts: list[str], timeout_ms: int) -> tuple[float, bool, str]:
    """The slowest search of ``pattern`` (server-wrapped) over ``texts`` with Python's ``re``.

    Returns ``(milliseconds, timed_out, slowest_text)``; a trial still running after
    ``timeout_ms`` is abandoned (its subprocess killed) and counts as timed out.
    """
    wrapped = f"{_BEFORE_PY}(?:{pattern}){_AFTER_PY}"
    try:
        re.compile(wrapped)
    except re.error:
        return 0.0, False, ""
    proc = subprocess.Popen(
        [sys.executable, "-c", _TRIAL],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    sel = selectors.DefaultSelector()
    worst, worst_text, timed_out = 0.0, "", False
    try:
        proc.stdin.write((json.dumps({"pattern": wrapped, "inputs": texts}) + "\n").encode())
        proc.stdin.close()
        sel.register(proc.stdout, selectors.EVENT_READ)
        buffer = b""
        lines: list[str] = []
        index = -1  # -1 while waiting for "ready"
        deadline = time.monotonic() + _STARTUP_SECONDS
        while index < len(texts):
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                lines.append(raw.decode())
            if lines:
                line = lines.pop(0)
                if index >= 0:
                    ms = float(line)
                    if ms > worst:
                        worst, worst_text = ms, texts[index]
                index += 1
                # the child reports its own time; the wait allows for scheduling on a busy box
                deadline = time.monotonic() + max(timeout_ms * 4, timeout_ms + 1000) / 1000
                continue
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(timeout=left):
                timed_out = True
                worst = max(worst, float(timeout_ms))
                worst_text = texts[max(index, 0)]
                break
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
    finally:
        sel.close()
        proc.kill()
        proc.wait()
        proc.stdout.close()
    return worst, timed_out or worst > timeout_ms, worst_text
