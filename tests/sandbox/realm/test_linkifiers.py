"""Linkifiers over HTTP (spec 4.15): validation, update, order, and their effect on messages."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error

Make = Callable[..., chatops.Client]


@pytest.fixture
def admin(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("admin", fresh_sandbox)


@pytest.fixture(autouse=True)
def no_demo_linkifiers(admin: chatops.Client) -> None:
    """The demo organization comes with linkifiers; these tests start from none."""
    for linkifier in admin.realm.linkifiers():
        admin.realm.remove_linkifier(linkifier.id)


@pytest.fixture
def member(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("member", fresh_sandbox)


def test_linkifiers_take_effect_in_content_and_topic_links(
    fresh_sandbox: Sandbox, admin: chatops.Client, member: chatops.Client
) -> None:
    lid = admin.realm.add_linkifier(r"#(?P<id>[0-9]+)", "https://github.com/acme/app/issues/{id}")
    sent = member.messages.send_to_channel("general", "fix #12 and #13", "closes #77, not `#78`")
    message = member.messages.get(anchor=sent.id, num_before=0, num_after=0).messages[0]
    assert '<a href="https://github.com/acme/app/issues/77">#77</a>' in message.content
    assert "issues/78" not in message.content
    assert [link.to_dict() for link in message.topic_links] == [
        {"text": "#12", "url": "https://github.com/acme/app/issues/12"},
        {"text": "#13", "url": "https://github.com/acme/app/issues/13"},
    ]

    # spec 4.15: update replaces pattern and template; new messages and all topic links follow
    admin.realm.update_linkifier(
        lid, pattern=r"(?P<repo>[a-z]+)#(?P<id>[0-9]+)", url_template="https://gh/{repo}/{id}"
    )
    assert [(x.pattern, x.url_template) for x in admin.realm.linkifiers()] == [
        (r"(?P<repo>[a-z]+)#(?P<id>[0-9]+)", "https://gh/{repo}/{id}")
    ]
    sent = member.messages.send_to_channel("general", "app#5", "see docs#9")
    message = member.messages.get(anchor=sent.id, num_before=0, num_after=0).messages[0]
    assert '<a href="https://gh/docs/9">docs#9</a>' in message.content
    assert [link.url for link in message.topic_links] == ["https://gh/app/5"]
    admin.realm.remove_linkifier(lid)
    assert admin.realm.linkifiers() == []


@pytest.mark.parametrize(
    ("pattern", "template", "field"),
    [
        ("#(?P<id>[0-9]+", "https://x/{id}", "pattern"),
        ("", "https://x/{id}", "pattern"),
        ("#(?P<id>[0-9]+)", "https://x/{other}", "__all__"),
        ("#(?P<id>[0-9]+)", "https://x/", "__all__"),
        ("#(?P<id>[0-9]+)", "not a url {id}", "url_template"),
        ("#(?P<id>[0-9]+)", "https://x/{id", "url_template"),
    ],
)
def test_invalid_linkifiers_are_refused_with_field_errors(
    fresh_sandbox: Sandbox, admin: chatops.Client, pattern: str, template: str, field: str
) -> None:
    lid = admin.realm.add_linkifier(r"JIRA-(?P<n>[0-9]+)", "https://jira/{n}")
    try:
        for call in (
            lambda: admin.realm.add_linkifier(pattern, template),
            lambda: admin.realm.update_linkifier(lid, pattern=pattern, url_template=template),
        ):
            with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST") as info:
                call()
            assert list(info.value.errors) == [field]
            assert info.value.errors[field] == [info.value.msg]
    finally:
        admin.realm.remove_linkifier(lid)


def test_linkifier_permissions_and_unknown_ids(
    fresh_sandbox: Sandbox, admin: chatops.Client, member: chatops.Client
) -> None:
    sb = fresh_sandbox
    lid = admin.realm.add_linkifier(r"T(?P<n>[0-9]+)", "https://t/{n}")
    with unchanged(sb.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        member.realm.add_linkifier(r"X(?P<n>[0-9]+)", "https://x/{n}")
    with unchanged(sb.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        member.realm.update_linkifier(lid, pattern=r"Y(?P<n>[0-9]+)", url_template="https://y/{n}")
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Linkifier not found."):
        admin.realm.update_linkifier(99999, pattern=r"Y(?P<n>[0-9]+)", url_template="https://y/{n}")
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Linkifier not found."):
        admin.realm.remove_linkifier(99999)
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        admin.realm.add_linkifier(r"T(?P<n>[0-9]+)", "https://t/{n}")  # duplicate
    with unchanged(sb.store), api_error("REQUEST_VARIABLE_MISSING"):
        admin._request("PATCH", f"/realm/filters/{lid}", params={"url_template": "https://t/{n}"})
    assert member.realm.linkifiers()[0].id == lid  # anyone may read them
    admin.realm.remove_linkifier(lid)


def test_reorder_decides_which_linkifier_wins(
    fresh_sandbox: Sandbox, admin: chatops.Client
) -> None:
    a = admin.realm.add_linkifier(r"#(?P<id>[0-9]+)", "https://a/{id}")
    b = admin.realm.add_linkifier(r"#(?P<id>[0-9]+)", "https://b/{id}")
    sent = admin.messages.send_to_channel("general", "order", "#1")
    first = admin.messages.get(anchor=sent.id, num_before=0, num_after=0).messages[0]
    assert "https://a/1" in first.content
    admin.realm.reorder_linkifiers([b, a])
    assert [x.id for x in admin.realm.linkifiers()] == [b, a]
    sent = admin.messages.send_to_channel("general", "order", "#2")
    second = admin.messages.get(anchor=sent.id, num_before=0, num_after=0).messages[0]
    assert "https://b/2" in second.content
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST"):
        admin.realm.reorder_linkifiers([a])
    admin.realm.remove_linkifier(a)
    admin.realm.remove_linkifier(b)


def test_format_string_before_feature_level_176(fresh_sandbox: Sandbox) -> None:
    sent: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/register"):
            return httpx.Response(
                200, json={"result": "success", "msg": "", "zulip_feature_level": 100}
            )
        sent.append(request.content)
        return httpx.Response(200, json={"result": "success", "msg": "", "id": 3})

    creds = fresh_sandbox.credentials("admin")
    with chatops.Client(credentials=creds, transport=httpx.MockTransport(handler)) as client:
        client.realm.add_linkifier(r"#(?P<id>[0-9]+)", "https://x/{id}")
    assert b"url_format_string=https%3A%2F%2Fx%2F%25%28id%29s" in sent[-1]


# -- RE2, as the real server ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (r"(?<=x)#(?P<id>[0-9]+)", "Bad regular expression: invalid perl operator: (?<="),
        (r"#(?P<id>[0-9]+)(?!-draft)", "Bad regular expression: invalid perl operator: (?!"),
        (r"(?P<id>[a-z])\1", "Bad regular expression: invalid escape sequence: \\1"),
    ],
)
def test_patterns_re2_cannot_compile_are_refused_in_its_words(
    fresh_sandbox: Sandbox, admin: chatops.Client, pattern: str, message: str
) -> None:
    """Look-around and back-references compile in Python's re but not in RE2, the server's
    engine: they are refused with RE2's message under ``pattern``, and nothing is stored."""
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST", msg=message) as info:
        admin.realm.add_linkifier(pattern, "https://x/{id}")
    assert info.value.errors == {"pattern": [message]}


def test_re2_syntax_python_lacks_is_accepted_and_links(
    fresh_sandbox: Sandbox, admin: chatops.Client
) -> None:
    r"""``\pL`` (a Unicode letter) is RE2 syntax that Python's re refuses."""
    lid = admin.realm.add_linkifier(r"\pL+-(?P<n>[0-9]+)", "https://pl.example.org/{n}")
    sent = admin.messages.send_to_channel("general", "unicode", "see Ärger-12 now")
    message = admin.messages.get(anchor=sent.id, num_before=0, num_after=0).messages[0]
    assert '<a href="https://pl.example.org/12">Ärger-12</a>' in message.content
    admin.realm.remove_linkifier(lid)


@pytest.mark.timeout(60)
def test_a_backtracking_pattern_renders_in_linear_time(
    fresh_sandbox: Sandbox, admin: chatops.Client
) -> None:
    """``(a+)+$`` took seconds per character with a backtracking engine, holding the server;
    with RE2 a message of 5,000 ``a``s and ``!`` is sent and rendered at once."""
    lid = admin.realm.add_linkifier(r"(?P<id>(a+)+)$", "https://a.example.org/{id}")
    sent = admin.messages.send_to_channel("general", "backtracking", "a" * 5000 + "!")
    unlinked = admin.messages.get(anchor=sent.id, num_before=0, num_after=0).messages[0]
    assert "<a " not in unlinked.content
    sent = admin.messages.send_to_channel("general", "backtracking", "aaaa")
    linked = admin.messages.get(anchor=sent.id, num_before=0, num_after=0).messages[0]
    assert linked.content == '<p><a href="https://a.example.org/aaaa">aaaa</a></p>'
    admin.realm.remove_linkifier(lid)


def test_where_a_match_may_start_and_end_follows_the_server(
    fresh_sandbox: Sandbox, admin: chatops.Client
) -> None:
    """After the start, whitespace (any Unicode space) or one of ' " ( , : <; before the end
    or anything but a letter or digit; an earlier linkifier wins overlapping text."""
    order = [
        admin.realm.add_linkifier(r"#(?P<id>[0-9]+)", "https://a.example.org/{id}"),
        admin.realm.add_linkifier(r"PR #(?P<id>[0-9]+)", "https://b.example.org/{id}"),
        admin.realm.add_linkifier(
            r"[A-Z]+-(?P<n>[0-9]+)(?:-(?P<m>[0-9]+))?", "https://c.example.org/{n}{/m}"
        ),
    ]
    cases = {
        "see #1, (#2), x#3, #4a, #5_, '#6' and <#7> PR #8": [
            ("#1", "https://a.example.org/1"),
            ("#2", "https://a.example.org/2"),
            ("#5", "https://a.example.org/5"),
            ("#6", "https://a.example.org/6"),
            ("#7", "https://a.example.org/7"),
            ("#8", "https://a.example.org/8"),
        ],
        "OPS-1-2 ab-3 XY-4x X-5, #12#13 #14.": [
            ("OPS-1-2", "https://c.example.org/1/2"),
            ("X-5", "https://c.example.org/5"),
            ("#12", "https://a.example.org/12"),
            ("#14", "https://a.example.org/14"),
        ],
        "a\u00a0#9 \u2003#10 ü#11": [
            ("#9", "https://a.example.org/9"),
            ("#10", "https://a.example.org/10"),
        ],
    }
    for text, expected in cases.items():
        sent = admin.messages.send_to_channel("general", "context", text)
        message = admin.messages.get(anchor=sent.id, num_before=0, num_after=0).messages[0]
        links = re.findall(r'<a href="([^"]+)">([^<]+)</a>', message.content)
        assert [(t, u) for u, t in links] == expected, text
    for lid in order:
        admin.realm.remove_linkifier(lid)


def test_every_message_of_a_topic_on_a_page_has_its_links(
    fresh_sandbox: Sandbox, admin: chatops.Client, member: chatops.Client
) -> None:
    """A page matches each topic once; every message of the topic carries the links."""
    lid = admin.realm.add_linkifier(r"#(?P<id>[0-9]+)", "https://tracker.test/{id}")
    try:
        ids = [
            member.messages.send_to_channel("general", topic, "text").id
            for topic in ("bug #41", "no link", "bug #41", "bug #41")
        ]
        page = member.messages.get(anchor=ids[0], num_before=0, num_after=3).messages
        assert [m.id for m in page] == ids
        assert [[link.to_dict() for link in m.topic_links] for m in page] == [
            [{"text": "#41", "url": "https://tracker.test/41"}],
            [],
            [{"text": "#41", "url": "https://tracker.test/41"}],
            [{"text": "#41", "url": "https://tracker.test/41"}],
        ]
    finally:
        admin.realm.remove_linkifier(lid)
