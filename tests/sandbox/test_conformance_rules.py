"""The conformance tally itself: an allow-list entry tolerates only its operation, check and
kind; a 5xx is never tolerated."""

from __future__ import annotations

import json
from typing import Any

from schemathesis.core.failures import Failure, FailureGroup, ServerError
from schemathesis.openapi.checks import UndefinedStatusCode

from tests.sandbox.conformance import Tally
from tests.sandbox.conformance_allowed import ALLOWED

ENVELOPE = '{"result": "error", "msg": "No", "code": "BAD_REQUEST"}'


class _Response:
    def __init__(self, status: int, body: str = ENVELOPE) -> None:
        self.status_code = status
        self.text = body

    def json(self) -> Any:
        return json.loads(self.text)


class _Case:
    """Stands for a schemathesis case whose checks fail with the given failures."""

    def __init__(self, *failures: Failure) -> None:
        self.failures = failures

    def validate_response(self, response: Any, checks: Any) -> None:
        if self.failures:
            raise FailureGroup(list(self.failures), "failed")


def _undocumented(status: int, op: str) -> UndefinedStatusCode:
    return UndefinedStatusCode(
        operation=op,
        status_code=status,
        defined_status_codes=["200"],
        allowed_status_codes=[200],
        message=f"Received: {status}",
    )


def test_an_entry_tolerates_its_own_operation_and_kind_only() -> None:
    assert ALLOWED[("GET /messages", "status_code_conformance")]["status 400"]
    assert "status 400" not in ALLOWED.get(("GET /server_settings", "status_code_conformance"), {})
    tally = Tally()
    tally.record(_Case(_undocumented(400, "GET /messages")), _Response(400), "GET /messages")
    assert sum(tally.tolerated.values()) == 1 and not tally.violations
    # the same kind on an operation without that entry is a violation
    tally.record(
        _Case(_undocumented(400, "GET /server_settings")), _Response(400), "GET /server_settings"
    )
    assert tally.violations == {
        ("GET /server_settings", "status_code_conformance", "status 400"): 1
    }
    # another status on the operation with an entry is a violation too
    tally.record(_Case(_undocumented(409, "GET /messages")), _Response(409), "GET /messages")
    assert ("GET /messages", "status_code_conformance", "status 409") in tally.violations
    assert tally.cases == 3 and tally.statuses == {400: 2, 409: 1}


def test_a_server_error_is_never_tolerated() -> None:
    tally = Tally()
    failure = ServerError(operation="GET /messages", status_code=500)
    tally.record(_Case(failure), _Response(500), "GET /messages")
    assert tally.server_errors == 1
    assert list(tally.violations) == [("GET /messages", "not_a_server_error", "status 500")]
    assert "5xx 1" in tally.summary("t") and "VIOLATION" in tally.summary("t")


def test_a_clean_answer_counts_without_findings() -> None:
    tally = Tally()
    tally.record(_Case(), _Response(200, '{"result": "success"}'), "GET /messages")
    assert (tally.cases, tally.server_errors, dict(tally.violations)) == (1, 0, {})


def test_a_refusal_that_is_not_the_error_envelope_is_a_violation() -> None:
    tally = Tally()
    tally.record(_Case(), _Response(400, '{"result": "error"}'), "GET /messages")
    tally.record(_Case(), _Response(404, "<html>Not Found</html>"), "GET /messages")
    tally.record(_Case(), _Response(400), "GET /messages")
    assert tally.violations == {("GET /messages", "error_envelope", "not the error envelope"): 2}
