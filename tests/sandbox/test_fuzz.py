"""Conformance of every answer: every operation of the API schema the sandbox serves.

Two runs, each against a sandbox of its own, each answer through all of schemathesis's
response checks (``tests.sandbox.conformance``):

* schemathesis generates requests from ``zulip-openapi-10.2.yaml`` (valid ones, and invalid
  ones its negative mode derives from the same schema), as an administrator;
* a sweep sends every declared parameter of every served operation, one at a time, with
  boundary and bad values (2^63, -1, empty, NUL, 10 KB of text, the wrong JSON type), as the
  owner and as a member.

Both must give no 5xx and no violation outside the commented allow-list
(``tests.sandbox.conformance_allowed``), and keep the keep-alive connection usable. Each
prints its numbers.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
import requests
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode, openapi
from starlette.routing import Match, Route
from tqdm import tqdm

from chatops.sandbox import Sandbox
from tests.sandbox.conformance import SKIP_WITHOUT_SPEC, SKIPPED, SPEC, Tally

#: examples per operation and generation mode (about 1.5 minutes for the fuzzer on 2 cores)
EXAMPLES = int(os.environ.get("CHATOPS_FUZZ_EXAMPLES", "5"))
#: the boundary and bad values of the sweep; ``wrong type`` depends on the declared type
BAD_VALUES = ("2^63", "-1", "empty", "NUL", "10 KB", "wrong type")

pytestmark = [
    pytest.mark.slow,
    # each run takes 1.5 to 2.5 minutes alone on 2 cores; the margin is for a loaded machine
    pytest.mark.timeout(600),
    pytest.mark.skipif(**SKIP_WITHOUT_SPEC),
]


@pytest.fixture(scope="module")
def schema() -> Any:
    return openapi.from_path(str(SPEC))


@pytest.fixture(scope="module")
def raw_schema() -> dict[str, Any]:
    with SPEC.open(encoding="utf-8") as f:
        loaded: dict[str, Any] = yaml.safe_load(f)
    return loaded


def _sandbox(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp(name), size="small", seed=11) as sb:
        yield sb


@pytest.fixture
def fuzz_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A sandbox of its own: fuzzing deletes and changes whatever it can."""
    yield from _sandbox(tmp_path_factory, "fuzz")


@pytest.fixture
def sweep_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    yield from _sandbox(tmp_path_factory, "sweep")


def _served(sandbox: Sandbox, raw: dict[str, Any], op: Any) -> bool:
    """Whether a route of the sandbox answers the operation's path with a typical value.

    Each path segment gets the schema's example, else 1 for an integer and ``abc`` for text,
    so ``/users/{email}`` is not taken for ``/users/{user_id:int}``.
    """
    examples = {
        name: str(example if example is not None else (1 if kind == "integer" else "abc"))
        for where, name, kind, _required, example in _parameters(raw, op)
        if where == "path"
    }
    concrete = "/api/v1" + "/".join(
        examples.get(part.strip("{}"), "1") if part.startswith("{") else part
        for part in op.path.split("/")
    )
    scope = {"type": "http", "method": op.method.upper(), "path": concrete}
    return any(
        isinstance(route, Route) and route.matches(scope)[0] is Match.FULL
        for route in sandbox._server.config.app.routes
    )


def _operations(schema: Any, raw: dict[str, Any], sandbox: Sandbox) -> list[Any]:
    operations = [r.ok() for r in schema.get_all_operations()]
    served = [
        op
        for op in operations
        if _served(sandbox, raw, op) and (op.method.upper(), op.path) not in SKIPPED
    ]
    served.sort(key=lambda op: op.method.upper() == "DELETE")  # destructive ones last
    assert len(served) >= 60, [f"{op.method} {op.path}" for op in served]
    return served


def _session(sandbox: Sandbox, account: str) -> requests.Session:
    acc = sandbox.accounts[account]
    session = requests.Session()
    session.auth = (acc.email, acc.api_key)
    return session


def _connections(session: requests.Session, base: str) -> int:
    pools = session.get_adapter(base).poolmanager.pools  # type: ignore[attr-defined]
    return sum(pools[key].num_connections for key in pools.keys())


# -- schemathesis ---------------------------------------------------------------------------
def _fuzz(
    op: Any, mode: GenerationMode, base: str, session: requests.Session, tally: Tally
) -> None:
    label = f"{op.method.upper()} {op.path}"

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
        tally.record(case, response, label)

    try:
        one()
    except Exception as exc:  # hypothesis gives up on a schema it cannot satisfy
        if type(exc).__name__ not in ("Unsatisfiable", "InvalidArgument"):
            raise


def test_every_served_operation_conforms_under_the_schema_fuzzer(
    fuzz_target: Sandbox, schema: Any, raw_schema: dict[str, Any]
) -> None:
    served = _operations(schema, raw_schema, fuzz_target)
    session = _session(fuzz_target, "admin")
    base = f"{fuzz_target.site}/api/v1"
    tally = Tally()
    started = time.monotonic()
    for op in tqdm(served, desc="schema fuzzing", unit="op", mininterval=5):
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _fuzz(op, mode, base, session, tally)
        after = session.get(f"{base}/server_settings", timeout=10)  # the connection still works
        assert after.status_code == 200, f"{op.method.upper()} {op.path}"
    opened = _connections(session, base)
    print(
        "\n"
        + tally.summary("schema fuzzing")
        + f"\n  {time.monotonic() - started:.1f}s; connections opened {opened}"
    )
    assert tally.cases >= len(served)
    assert tally.server_errors == 0
    assert not tally.violations, tally.summary("schema fuzzing")
    # keep-alive held: a connection dropped after an answer would have been replaced
    assert 1 <= opened <= 2


# -- the sweep ------------------------------------------------------------------------------
def _resolve(raw: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = raw
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def _type(raw: dict[str, Any], schema: Any) -> str:
    schema = _resolve(raw, schema) or {}
    if "type" in schema:
        return str(schema["type"])
    for key in ("oneOf", "anyOf", "allOf"):
        for option in schema.get(key, []):
            found = _type(raw, option)
            if found != "string":
                return found
    return "string"


def _parameters(raw: dict[str, Any], op: Any) -> list[tuple[str, str, str, bool, Any]]:
    """(location, name, type, required, example) of every parameter the operation declares."""
    definition = raw["paths"][op.path][op.method.lower()]
    out = []
    for param in definition.get("parameters", []):
        param = _resolve(raw, param)
        schema = _resolve(raw, param.get("schema") or {})
        content = param.get("content", {}).get("application/json", {})
        if content:
            schema = _resolve(raw, content.get("schema") or {})
        example = param.get("example", schema.get("example"))
        out.append(
            (param["in"], param["name"], _type(raw, schema), param.get("required", False), example)
        )
    body = definition.get("requestBody", {}).get("content", {})
    form = body.get("application/x-www-form-urlencoded")
    if form:
        schema = _resolve(raw, form["schema"])
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            prop = _resolve(raw, prop)
            out.append(("body", name, _type(raw, prop), name in required, prop.get("example")))
    return out


def _encode(kind: str, value: Any) -> str:
    """A value as the wire carries it: strings as they are, anything else as JSON text."""
    if kind == "string" and isinstance(value, str):
        return value
    return json.dumps(value)


_DEFAULTS: dict[str, Any] = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}


def _bad(label: str, kind: str) -> str:
    return {
        "2^63": str(2**63),
        "-1": "-1",
        "empty": "",
        "NUL": "a\x00b",
        "10 KB": "x" * 10240,
        "wrong type": {"array": '"text"', "object": "[1]"}.get(kind, '{"a": [1]}'),
    }[label]


def _sweep(
    op: Any,
    params: list[Any],
    sandbox: Sandbox,
    account: str,
    session: requests.Session,
    base: str,
    tally: Tally,
) -> None:
    label = f"{op.method.upper()} {op.path}"
    me = sandbox.accounts[account]
    baseline: dict[str, dict[str, str]] = {"path": {}, "query": {}, "body": {}}
    for where, name, kind, required, example in params:
        if where == "path":
            value = me.email if "email" in name else (1 if kind == "integer" else "x")
            baseline["path"][name] = str(value)
        elif required and where in baseline:
            value = example if example is not None else _DEFAULTS.get(kind, "x")
            baseline[where][name] = _encode(kind, value)
    for where, name, kind, _required, _example in params:
        if where not in baseline:
            continue  # headers and cookies: the sandbox reads none the schema declares
        for bad in BAD_VALUES:
            sent = {k: dict(v) for k, v in baseline.items()}
            sent[where][name] = _bad(bad, kind)
            path = op.path
            for key, value in sent["path"].items():
                path = path.replace("{" + key + "}", quote(value, safe="") or "%20")
            response = session.request(
                op.method.upper(),
                base + path,
                params=sent["query"],
                data=sent["body"] or None,
                timeout=30,
            )
            extra: dict[str, Any] = {}
            if sent["body"]:
                extra = {"body": sent["body"], "media_type": "application/x-www-form-urlencoded"}
            case = op.Case(path_parameters=sent["path"], query=sent["query"], **extra)
            tally.record(case, response, label)


def test_every_declared_parameter_with_bad_values_as_owner_and_member(
    sweep_target: Sandbox, schema: Any, raw_schema: dict[str, Any]
) -> None:
    served = _operations(schema, raw_schema, sweep_target)
    base = f"{sweep_target.site}/api/v1"
    tally = Tally()
    started = time.monotonic()
    for account in ("member", "owner"):
        session = _session(sweep_target, account)
        for op in tqdm(served, desc=f"parameter sweep as {account}", unit="op", mininterval=5):
            _sweep(op, _parameters(raw_schema, op), sweep_target, account, session, base, tally)
        assert session.get(f"{base}/users/me", timeout=10).status_code == 200, account
        assert 1 <= _connections(session, base) <= 2, account
    print(
        "\n"
        + tally.summary("parameter sweep (owner and member)")
        + f"\n  {time.monotonic() - started:.1f}s"
    )
    assert tally.cases >= 6 * len(served)
    assert tally.server_errors == 0
    assert not tally.violations, tally.summary("parameter sweep")
