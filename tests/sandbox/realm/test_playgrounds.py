"""Code playgrounds (``POST /realm/playgrounds``, ``DELETE /realm/playgrounds/{id}``): the real
server's checks and messages, the ``realm_playgrounds`` event and register block."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error, assert_error, raw

PY = "https://python.example.com?code={code}"


@pytest.fixture
def admin(fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]) -> chatops.Client:
    return client_for("admin", fresh_sandbox)


@pytest.fixture
def queue(fresh_sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(fresh_sandbox, "member", fetch_event_types=["realm_playgrounds"])
    yield q
    q.close()


@pytest.fixture(autouse=True)
def no_playgrounds(fresh_sandbox: Sandbox) -> None:
    fresh_sandbox.store.execute("DELETE FROM realm_playgrounds")


def _registered(sandbox: Sandbox) -> list[dict[str, object]]:
    q = Queue(sandbox, "guest", fetch_event_types=["realm_playgrounds"])
    q.close()
    playgrounds: list[dict[str, object]] = q.registration["realm_playgrounds"]
    return playgrounds


def test_add_announce_register_and_remove(
    fresh_sandbox: Sandbox, admin: chatops.Client, queue: Queue
) -> None:
    pid = admin.realm.add_playground(
        name="  Python playground ", pygments_language=" Python", url_template=PY + " "
    )
    record = {"id": pid, "name": "Python playground", "pygments_language": "Python"}
    record["url_template"] = PY
    event = queue.wait_for("realm_playgrounds")
    assert event["realm_playgrounds"] == [record]
    assert _registered(fresh_sandbox) == [record]
    # another playground for the same language under another name
    other = admin.realm.add_playground(name="Py2", pygments_language="Python", url_template=PY)
    assert [p["id"] for p in queue.wait_for("realm_playgrounds")["realm_playgrounds"]] == [
        pid,
        other,
    ]
    admin.realm.remove_playground(pid)
    assert [p["id"] for p in queue.wait_for("realm_playgrounds")["realm_playgrounds"]] == [other]
    assert [p["id"] for p in _registered(fresh_sandbox)] == [other]
    assert chatops.types.RealmPlayground(**record).url_template == PY


@pytest.mark.parametrize(
    ("name", "language", "template", "errors"),
    [
        ("", "Python", PY, {"name": ["This field cannot be blank."]}),
        ("P", "Python", "", {"url_template": ["This field cannot be blank."]}),
        ("P", "Python", "https://x/{code", {"url_template": ["Invalid URL template."]}),
        (
            "P",
            "Python",
            "https://x/?c={src}",
            {"__all__": ['Missing the required variable "code" in the URL template']},
        ),
        (
            "P",
            "Python",
            "https://x/{lang}?c={code}",
            {"__all__": ['"code" should be the only variable present in the URL template']},
        ),
        ("P", "two words", PY, {"pygments_language": ["Invalid characters in pygments language"]}),
    ],
)
def test_field_errors_are_the_models(
    fresh_sandbox: Sandbox,
    admin: chatops.Client,
    queue: Queue,
    name: str,
    language: str,
    template: str,
    errors: dict[str, list[str]],
) -> None:
    first = next(iter(errors.values()))[0]
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST", msg=first, errors=errors):
        admin.realm.add_playground(name=name, pygments_language=language, url_template=template)
    assert not [e for e in queue.poll() if e["type"] == "realm_playgrounds"]


def test_duplicates_bad_languages_and_members_are_refused(
    fresh_sandbox: Sandbox, admin: chatops.Client, client_for: Callable[..., chatops.Client]
) -> None:
    pid = admin.realm.add_playground(name="P", pygments_language="Rust", url_template=PY)
    duplicate = "Realm playground with this Realm, Pygments language and Name already exists."
    with unchanged(fresh_sandbox.store):
        with api_error("BAD_REQUEST", msg=duplicate, errors={"__all__": [duplicate]}):
            admin.realm.add_playground(name="P", pygments_language="Rust", url_template=PY)
        # checked before the model: no errors field
        body = assert_error(
            raw(
                fresh_sandbox,
                "admin",
                "POST",
                "/realm/playgrounds",
                name="Q",
                pygments_language="C++!",
                url_template=PY,
            ),
            "BAD_REQUEST",
        )
        assert body["msg"] == "Invalid characters in pygments language" and "errors" not in body
        body = assert_error(
            raw(
                fresh_sandbox,
                "admin",
                "POST",
                "/realm/playgrounds",
                name="Q",
                pygments_language="x" * 41,
                url_template=PY,
            ),
            "BAD_REQUEST",
        )
        assert body["msg"] == "pygments_language is too long (limit: 40 characters)"
        member = client_for("member", fresh_sandbox)
        with api_error("UNAUTHORIZED_PRINCIPAL", msg="Must be an organization administrator"):
            member.realm.add_playground(name="Q", pygments_language="Go", url_template=PY)
        with api_error("UNAUTHORIZED_PRINCIPAL", msg="Must be an organization administrator"):
            member.realm.remove_playground(pid)
        with api_error("BAD_REQUEST", msg="Invalid playground"):
            admin.realm.remove_playground(pid + 1000)
        body = assert_error(
            raw(fresh_sandbox, "admin", "POST", "/realm/playgrounds", name="Q", url_template=PY),
            "REQUEST_VARIABLE_MISSING",
        )
        assert body["var_name"] == "pygments_language"
