"""Checking the sandbox's answers against the real server's API schema (zulip-openapi-10.2).

Every answer goes through all of schemathesis's response checks (no 5xx, documented status
codes, content types, headers, the response schema). A failure becomes a *kind*
(``status 404``, ``extra field: topics_policy``, ``oneOf overlap``, ...); a kind is tolerated
only where :data:`ALLOWED` names it for that operation and check, with the reason the real
server's code wins over its schema. Everything else is a violation.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.failures import Failure, FailureGroup

from tests.sandbox.conformance_allowed import ALLOWED

_NAME = Path("shared") / "reference" / "zulip-openapi-10.2.yaml"
#: the real server's OpenAPI file: CHATOPS_OPENAPI, else shared/ beside the checkout (as in CI)
SPEC = Path(
    os.environ.get("CHATOPS_OPENAPI")
    or next((p / _NAME for p in Path(__file__).resolve().parents if (p / _NAME).is_file()), _NAME)
)
#: skip where the file is missing, but never in CI, where it is always beside the clone
SKIP_WITHOUT_SPEC = {
    "condition": not SPEC.is_file() and not os.environ.get("CI"),
    "reason": f"no OpenAPI schema at {SPEC} (set CHATOPS_OPENAPI)",
}

#: every response check schemathesis has for an answer on its own
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]

#: operations left out, and why
SKIPPED = {
    ("GET", "/events"): "a long-poll by design; the soak test polls it",
    ("DELETE", "/users/me"): "deactivates the account the checks run as",
    ("POST", "/users/me/api_key/regenerate"): "replaces the key the checks run with",
}

_EXTRA = re.compile(r"Additional properties are not allowed \((.*) (?:was|were) unexpected\)")


def _check_name(failure: Failure) -> str:
    names = {
        "ServerError": "not_a_server_error",
        "UndefinedStatusCode": "status_code_conformance",
        "UndefinedContentType": "content_type_conformance",
        "MissingContentType": "content_type_conformance",
        "MalformedMediaType": "content_type_conformance",
        "MissingHeaders": "response_headers_conformance",
        "JsonSchemaError": "response_schema_conformance",
        "ContentDeserializationError": "response_schema_conformance",
    }
    return names.get(type(failure).__name__, type(failure).__name__)


def kinds(failure: Failure, body: Any = None) -> list[str]:
    """What is wrong, as short stable names an allow-list entry can match exactly."""
    name = type(failure).__name__
    if name == "ServerError":
        return [f"status {getattr(failure, 'status_code', '5xx')}"]
    if name == "UndefinedStatusCode":
        return [f"status {getattr(failure, 'status_code', '?')}"]
    if name == "JsonSchemaError":
        lines = [
            line
            for line in failure.message.splitlines()
            if line.strip() and line.strip() != "Response violates schema"
        ]
        detail = lines[0] if lines else "?"
        extra = _EXTRA.search(detail)
        if extra:
            return [f"extra field: {n.strip(' ' + chr(39))}" for n in extra.group(1).split(",")]
        if "valid under more than one of the schemas listed in the 'oneOf'" in detail:
            return ["oneOf overlap"]
        if "is not valid under any of the schemas listed in the 'oneOf'" in detail:
            code = body.get("code") if isinstance(body, dict) else None
            return [f"oneOf none: {code}" if code else "oneOf none"]
        return [f"schema: {detail[:160]}"]
    return [f"{name}: {failure.title}"]


def _is_envelope(response: Any) -> bool:
    try:
        body = response.json()
    except ValueError:
        return False
    if not (isinstance(body, dict) and body.get("result") == "error"):
        return False
    if response.status_code == 405:  # the real server's 405 names the methods and has no code
        methods = body.get("allowed_methods")
        return isinstance(methods, list) and bool(methods)
    return isinstance(body.get("msg"), str) and isinstance(body.get("code"), str)


@dataclass
class Tally:
    """What a run saw: cases, answers by status, tolerated kinds and violations."""

    cases: int = 0
    operations: set[str] = field(default_factory=set)
    statuses: Counter[int] = field(default_factory=Counter)
    tolerated: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    violations: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    examples: dict[tuple[str, str, str], str] = field(default_factory=dict)

    @property
    def server_errors(self) -> int:
        return sum(n for s, n in self.statuses.items() if s >= 500)

    def record(self, case: Any, response: Any, label: str) -> None:
        """Check one answer; every failure kind is tolerated (allow-listed) or a violation."""
        self.cases += 1
        self.operations.add(label)
        self.statuses[response.status_code] += 1
        if response.status_code >= 400 and not _is_envelope(response):
            # every refusal is the error envelope, also where the schema documents no error
            key = (label, "error_envelope", "not the error envelope")
            self.violations[key] += 1
            self.examples.setdefault(key, f"{response.status_code} {response.text[:240]!r}")
        try:
            case.validate_response(response, checks=CHECKS)
        except FailureGroup as group:
            failures: list[Failure] = list(group.exceptions)
        except Failure as failure:
            failures = [failure]
        else:
            return
        try:
            body = response.json()
        except ValueError:
            body = None
        for failure in failures:
            check = _check_name(failure)
            allowed = ALLOWED.get((label, check), {})
            for kind in kinds(failure, body):
                key = (label, check, kind)
                if kind in allowed and check != "not_a_server_error":
                    self.tolerated[key] += 1
                else:
                    self.violations[key] += 1
                    self.examples.setdefault(key, f"{response.status_code} {response.text[:240]!r}")

    def summary(self, title: str) -> str:
        lines = [
            f"{title}: {self.cases} cases over {len(self.operations)} operations; "
            f"5xx {self.server_errors}; violations {sum(self.violations.values())} "
            f"({len(self.violations)} distinct); tolerated by the allow-list "
            f"{sum(self.tolerated.values())}; statuses {dict(sorted(self.statuses.items()))}"
        ]
        for key, n in sorted(self.violations.items()):
            lines.append(f"  VIOLATION x{n} {key[0]} [{key[1]}] {key[2]} :: {self.examples[key]}")
        return "\n".join(lines)
