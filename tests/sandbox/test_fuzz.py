"""Schema fuzzing: every operation of the API schema the sandbox serves, against a running one.

schemathesis generates requests from ``zulip-openapi-10.2.yaml`` (valid ones, and invalid
ones its negative mode derives from the same schema); each answer must be no 5xx, the error
envelope on every refusal, and leave the keep-alive connection usable.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode, openapi
from starlette.routing import Match, Route

from chatops.sandbox import Sandbox

SPEC = Path(__file__).resolve().parents[3] / "shared" / "reference" / "zulip-openapi-10.2.yaml"
SPEC = Path(os.environ.get("CHATOPS_OPENAPI", SPEC))
#: examples per operation and generation mode; the whole test stays well under 90 s
EXAMPLES = int(os.environ.get("CHATOPS_FUZZ_EXAMPLES", "6"))
#: operations the fuzzing leaves out, and why
SKIPPED = {
    ("GET", "/events"): "a long-poll by design; the soak test polls it",
    ("DELETE", "/users/me"): "deactivates the account the fuzzing runs as",
    ("POST", "/users/me/api_key/regenerate"): "replaces the key the fuzzing runs with",
}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SPEC.is_file(), reason=f"no OpenAPI schema at {SPEC}"),
]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A sandbox of its own: fuzzing deletes and changes whatever it can."""
    with Sandbox.start(tmp_path_factory.mktemp("fuzz"), size="small", seed=11) as sb:
        yield sb


def _served(sandbox: Sandbox, method: str, path: str) -> bool:
    concrete = "/api/v1" + "/".join(
        "1" if part.startswith("{") else part for part in path.split("/")
    )
    scope = {"type": "http", "method": method.upper(), "path": concrete}
    return any(
        isinstance(route, Route) and route.matches(scope)[0] is Match.FULL
        for route in sandbox._server.config.app.routes
    )


def _check(response: requests.Response, label: str) -> None:
    assert response.status_code < 500, f"{label}: {response.status_code} {response.text[:300]}"
    if response.status_code >= 400:
        body: Any = response.json()
        assert body["result"] == "error", label
        if response.status_code == 405:  # the real server's 405 names the methods, no code
            assert isinstance(body["allowed_methods"], list) and body["allowed_methods"], label
        else:
            assert isinstance(body["msg"], str) and isinstance(body["code"], str), label
    assert response.headers.get("connection", "").lower() != "close", label


def _fuzz(
    op: Any, mode: GenerationMode, base: str, session: requests.Session, statuses: Counter[int]
) -> None:
    """Send ``EXAMPLES`` generated requests of one operation and check every answer."""
    label = f"{op.method.upper()} {op.path} ({mode.value})"

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=op.as_strategy(generation_mode=mode))
    def one(case: Any) -> None:
        response = case.call(base_url=base, session=session, timeout=30)
        statuses[response.status_code] += 1
        _check(response, f"{label} {case.path_parameters} {case.query}")

    try:
        one()
    except Exception as exc:  # hypothesis gives up on a schema it cannot satisfy
        if type(exc).__name__ not in ("Unsatisfiable", "InvalidArgument"):
            raise


def test_every_served_operation_survives_the_schema_fuzzer(target: Sandbox) -> None:
    schema = openapi.from_path(str(SPEC))
    operations = [r.ok() for r in schema.get_all_operations()]
    served = [
        op
        for op in operations
        if _served(target, op.method, op.path) and (op.method.upper(), op.path) not in SKIPPED
    ]
    served.sort(key=lambda op: op.method.upper() == "DELETE")  # destructive ones last
    assert len(served) >= 60, [f"{op.method} {op.path}" for op in served]
    acc = target.accounts["admin"]
    session = requests.Session()
    session.auth = (acc.email, acc.api_key)
    base = f"{target.site}/api/v1"
    statuses: Counter[int] = Counter()
    started = time.monotonic()
    for op in served:
        label = f"{op.method.upper()} {op.path}"
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _fuzz(op, mode, base, session, statuses)
        after = session.get(f"{base}/server_settings", timeout=10)  # the connection still works
        assert after.status_code == 200, label
    pools = session.get_adapter(base).poolmanager.pools  # type: ignore[attr-defined]
    opened = sum(pools[key].num_connections for key in pools.keys())
    cases = sum(statuses.values())
    elapsed = time.monotonic() - started
    print(
        f"\nschema fuzzing: {cases} cases over {len(served)} operations in {elapsed:.1f}s; "
        f"statuses {dict(sorted(statuses.items()))}; connections opened {opened}"
    )
    assert cases >= len(served)
    # keep-alive held: a connection dropped after an answer would have been replaced
    assert 1 <= opened <= 2
