"""A hostile organization: what a member, a guest and an administrator can plant in every name,
topic, status and description, and the checks every output must pass over it.

The payload families:

- **html**: markup and script that would run if a page printed it as HTML; every element they
  would make carries ``chatops-pwn`` in its id, so a page is checked by looking for it (and for
  dialogs: each script calls ``alert``);
- **formula**: cells a spreadsheet would run (OWASP's CSV injection: ``=``, ``+``, ``-``, ``@``);
- **escape**: terminal sequences (CSI erase and cursor up, SGR colour, OSC window title, the
  8-bit CSI);
- **bidi**: right-to-left overrides and isolates, which show text in another order;
- **placeholder**: text that looks like a plan's ``{placeholder}``;
- **tex**: ``$`` text a figure would parse as TeX and fail on;
- **long**: a name at the 60-character topic limit, descriptions of 10,000 characters.

Planted through the API, as the organization's own people would (a member: topics, statuses,
profile fields, channels, groups, files, a bot; a guest: topics and a status; an administrator:
linkifiers, a folder, new accounts). Where the real server refuses a character (a control
character in a full name, a topic or a channel name: ``check_full_name``,
``check_stream_topic``, ``check_stream_name``), the value is written into the sandbox's store
directly, as an older server or a server that is not Zulip would hand it out: chatops must be
safe whatever a server returns. NUL is refused everywhere the server stores text, so it is only
in the unit tests of the writers.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chatops
from chatops import ApiError
from chatops.sandbox import Sandbox

#: every element an html payload would create has this in its id
MARK = "chatops-pwn"

HTML = [
    f"<img src=x id={MARK}-img onerror=alert('img')>",
    f"<script id={MARK}-script>alert('script')</script>",
    f'"><svg id={MARK}-svg onload=alert("svg")>',
    f"<img src=x id={MARK}-open onerror=alert('open') ",  # no ">": it would swallow what follows
    f"<a id={MARK}-link href=javascript:alert('link')>click</a>",
]
FORMULA = [
    '=HYPERLINK("http://127.0.0.1:1/x?"&A1,"Click")',
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(1,1)",
]
ESCAPE = [
    "Guest\x1b[2K\x1b[1A\x1b[2K\x1b[31mRED",
    "title\x1b]0;pwned\x07set",
    "csi\x9b2Jclear",
]
BIDI = ["\u202egnp.exe", "left\u2066isolated\u2069right", "ab\u200fcd"]
#: what a figure would parse as TeX (matplotlib's mathtext), breaking every figure it is in
TEX = ["price $\\frac{$ up", "$x^{$"]
PLACEHOLDER = ["help {user_id} please", "{folder_id}"]
LONG_TOPIC = "q" * 60
LONG_TEXT = "L" * 10_000

#: what the API takes in a full name (the real server refuses *, `, \, >, ", @ and controls)
NAME_SAFE_HTML = f"<img src=x id={MARK}-name onerror=alert('name') alt=x"
NAME_FORMULA = "=cmd|' /C calc'!A0"
NAME_BIDI = "\u202eEve Wolf"

#: a terminal's escape introducers and the characters that reorder text: none may reach it raw
_RAW_TERMINAL = re.compile("[\x1b\x9b\x07\u202a-\u202e\u2066-\u2069\u200e\u200f]")


def texts() -> list[str]:
    """Every payload, one list."""
    return [*HTML, *FORMULA, *ESCAPE, *BIDI, *PLACEHOLDER, *TEX, LONG_TOPIC]


@dataclass
class Planted:
    """What was planted, for the checks."""

    topics: list[str] = field(default_factory=list)
    channels: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    people: dict[int, str] = field(default_factory=dict)
    statuses: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    linkifiers: list[int] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    bots: list[str] = field(default_factory=list)
    refused: list[tuple[str, str, str]] = field(default_factory=list)


def _try(planted: Planted, what: str, value: str, call: Any) -> bool:
    try:
        call()
    except ApiError as exc:
        planted.refused.append((what, value, exc.msg))
        return False
    return True


def plant(sb: Sandbox) -> Planted:
    """Plant every family in ``sb``'s organization; returns what was planted."""
    planted = Planted()
    with (
        chatops.Client.from_zuliprc(sb.zuliprc("member")) as member,
        chatops.Client.from_zuliprc(sb.zuliprc("guest")) as guest,
        chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin,
    ):
        general = next(c for c in member.channels.list() if c.name == "general")
        _plant_topics(sb, planted, member, guest, general.name)
        _plant_statuses(planted, member, guest)
        _plant_channels(planted, member, admin)
        _plant_groups(planted, member, admin)
        _plant_people(sb, planted, admin)
        _plant_files(planted, member)
        _plant_bot(planted, member)
        _plant_admin_settings(planted, admin)
        _plant_profile(planted, member, admin)
    _plant_what_the_api_refuses(sb, planted)
    return planted


def _plant_topics(sb: Sandbox, planted: Planted, member: Any, guest: Any, channel: str) -> None:
    ids = []
    for n, topic in enumerate([*HTML, *FORMULA, *BIDI, *PLACEHOLDER, *TEX, LONG_TOPIC]):
        author = guest if n % 3 == 2 else member
        content = f"{topic}\n\n{HTML[n % len(HTML)]} {FORMULA[n % len(FORMULA)]}"

        def send(author: Any = author, topic: str = topic, content: str = content) -> None:
            ids.append(
                author.post(
                    "/messages",
                    params={"type": "stream", "to": channel, "topic": topic, "content": content},
                )["id"]
            )

        if _try(planted, "topic", topic, send):
            planted.topics.append(topic)
    # a question in a long message, and the topics old enough for unresolved_topics to judge
    member.post(
        "/messages",
        params={"type": "stream", "to": channel, "topic": FORMULA[0], "content": LONG_TEXT},
    )
    for mid in ids:
        sb.store.execute(
            "UPDATE messages SET timestamp = timestamp - ? WHERE id = ?", [30 * 86_400, mid]
        )


def _plant_statuses(planted: Planted, member: Any, guest: Any) -> None:
    for who, text in ((member, FORMULA[1]), (guest, ESCAPE[0][:60])):
        params = {"status_text": text, "emoji_name": "", "away": "false"}
        if _try(
            planted,
            "status",
            text,
            lambda who=who, p=params: who.post("/users/me/status", params=p),
        ):
            planted.statuses.append(text)


def _create_channel(client: Any, name: str, description: str) -> None:
    client.post(
        "/users/me/subscriptions",
        params={"subscriptions": [{"name": name, "description": description}]},
    )


def _plant_channels(planted: Planted, member: Any, admin: Any) -> None:
    names = [
        HTML[0],
        FORMULA[1],
        FORMULA[2],
        BIDI[0],
        PLACEHOLDER[0],
        TEX[0],
        f"ops {ESCAPE[1][:20]}",
    ]
    descriptions = [LONG_TEXT[:1000], HTML[2], ESCAPE[0], FORMULA[0], BIDI[1], TEX[1], ""]
    for name, description in zip(names, descriptions, strict=True):
        made = _try(
            planted,
            "channel",
            name,
            lambda n=name, d=description: _create_channel(member, n, d),
        ) or _try(
            planted, "channel", name, lambda n=name, d=description: _create_channel(admin, n, d)
        )
        if made:
            planted.channels.append(name)


def _plant_groups(planted: Planted, member: Any, admin: Any) -> None:
    me = member.users.me().user_id
    for name, description in (
        (HTML[1][:100], FORMULA[0]),
        (FORMULA[3], HTML[0]),
        (f"team {ESCAPE[0]}", BIDI[0]),
        ("{user_ids}", LONG_TEXT[:1024]),
    ):
        params = {"name": name, "description": description, "members": []}

        def create(client: Any, p: dict[str, Any] = params) -> None:
            client.post("/user_groups/create", params=p)

        if _try(planted, "group", name, lambda: create(member)) or _try(
            planted, "group", name, lambda: create(admin)
        ):
            planted.groups.append(name)
    del me


def _plant_people(sb: Sandbox, planted: Planted, admin: Any) -> None:
    for n, name in enumerate(
        (NAME_SAFE_HTML, NAME_FORMULA, NAME_BIDI, "Plain Placeholder {user_id}")
    ):
        email = f"hostile{n}@{sb.accounts['member'].email.split('@')[1]}"

        def create(name: str = name, email: str = email) -> None:
            uid = admin.post(
                "/users", params={"email": email, "password": "hostile-pw-1", "full_name": name}
            )["user_id"]
            planted.people[int(uid)] = name

        _try(planted, "person", name, create)


def _plant_files(planted: Planted, member: Any) -> None:
    for name in (f"{FORMULA[1]}.txt", f"{HTML[0]}.txt", f"{BIDI[0]}.txt"):
        try:
            member.uploads.upload(io.BytesIO(b"hostile file\n"), filename=name)
        except (ApiError, TypeError, ValueError) as exc:
            planted.refused.append(("file", name, str(exc)))
        else:
            planted.files.append(name)


def _plant_bot(planted: Planted, member: Any) -> None:
    name = f"{NAME_FORMULA} bot"

    def create() -> None:
        member.post("/bots", params={"full_name": name, "short_name": "hostile", "bot_type": 1})

    if _try(planted, "bot", name, create):
        planted.bots.append(name)


def _plant_admin_settings(planted: Planted, admin: Any) -> None:
    for pattern, template in (
        (r"=cmd(?P<a>[0-9]+)", "https://example.org/{a}"),
        (r"<img(?P<b>[a-z]+)", "https://example.org/x?q={b}&h=<script>"),
    ):

        def add(p: str = pattern, t: str = template) -> None:
            planted.linkifiers.append(
                int(admin.post("/realm/filters", params={"pattern": p, "url_template": t})["id"])
            )

        _try(planted, "linkifier", pattern, add)
    for name in (FORMULA[0][:60], HTML[2][:60]):

        def folder(n: str = name) -> None:
            admin.post("/channel_folders/create", params={"name": n, "description": ESCAPE[0]})

        if _try(planted, "folder", name, folder):
            planted.folders.append(name)


def _plant_profile(planted: Planted, member: Any, admin: Any) -> None:
    fields = admin.get("/realm/profile_fields")["custom_fields"]
    text_fields = [f for f in fields if f["type"] in (1, 2)]
    values = [HTML[0], FORMULA[0], ESCAPE[0], BIDI[0]]
    data = [{"id": f["id"], "value": v} for f, v in zip(text_fields, values, strict=False)]
    if data:
        _try(
            planted,
            "profile",
            "text fields",
            lambda: member.patch("/users/me/profile_data", params={"data": data}),
        )


def _plant_what_the_api_refuses(sb: Sandbox, planted: Planted) -> None:
    """Controls where the real server refuses them, written into the store (an older server,
    or another implementation of the API, hands them out)."""
    store = sb.store
    guest = sb.accounts["guest"].user_id
    store.execute("UPDATE users SET full_name = ? WHERE id = ?", [ESCAPE[0], guest])
    planted.people[guest] = ESCAPE[0]
    for uid, name in list(planted.people.items()):
        if name == NAME_BIDI:
            hostile = f"{NAME_BIDI}{ESCAPE[1]}"
            store.execute("UPDATE users SET full_name = ? WHERE id = ?", [hostile, uid])
            planted.people[uid] = hostile
    topic = f"stuck {ESCAPE[2]}"
    row = store.one("SELECT id FROM messages WHERE stream_id IS NOT NULL ORDER BY id LIMIT 1")
    if row is not None:
        store.execute("UPDATE messages SET topic = ? WHERE id = ?", [topic, row["id"]])
        planted.topics.append(topic)
    name = f"ops{ESCAPE[0][5:]}"
    channel = store.one("SELECT id FROM streams WHERE name = ?", ["design"])
    if channel is not None:
        store.execute("UPDATE streams SET name = ? WHERE id = ?", [name, channel["id"]])
        planted.channels.append(name)


# -- the checks ---------------------------------------------------------------------------


def formula_cells_in_workbook(path: Path) -> list[str]:
    """Cells of the workbook that a spreadsheet would run or read as something else than
    text: formula cells, error cells, and text cells beginning with a formula character
    without Excel's quote prefix."""
    import openpyxl

    found = []
    workbook = openpyxl.load_workbook(path)
    for sheet in workbook.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if cell.data_type in ("f", "e"):
                    found.append(
                        f"{sheet.title}!{cell.coordinate}={cell.value!r} ({cell.data_type})"
                    )
                elif (
                    isinstance(cell.value, str)
                    and cell.value.startswith(("=", "+", "-", "@"))
                    and not cell.quotePrefix
                ):
                    found.append(f"{sheet.title}!{cell.coordinate}={cell.value!r} (no prefix)")
    return found


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def formula_cells_in_csv(text: str) -> list[str]:
    """Cells of CSV ``text`` beginning with a formula character that are not numbers."""
    return [
        cell
        for row in csv.reader(io.StringIO(text))
        for cell in row
        if cell.startswith(("=", "+", "-", "@", "\t", "\r")) and not _number(cell)
    ]


def raw_terminal_characters(output: str | bytes) -> list[str]:
    """Escape introducers, bells and direction characters in terminal ``output``."""
    text = output.decode("utf-8", "replace") if isinstance(output, bytes) else output
    return [repr(m.group()) for m in _RAW_TERMINAL.finditer(text)]


#: run in a page: the elements a payload made, and every on* handler attribute with "alert"
INJECTED_JS = """() => {
  const made = [...document.querySelectorAll('[id^="MARK"]')].map(e => e.outerHTML.slice(0, 80));
  const handlers = [...document.querySelectorAll('*')].flatMap(e =>
    [...e.attributes].filter(a => a.name.startsWith('on') && a.value.includes('alert'))
      .map(a => e.tagName + ' ' + a.name));
  const links = [...document.querySelectorAll('a[href^="javascript:"]')].map(a => a.outerHTML);
  return [...made, ...handlers, ...links];
}""".replace("MARK", MARK)


def outside_requests(urls: Iterable[str]) -> list[str]:
    """The requests among ``urls`` that leave 127.0.0.1 (data:, blob: and file: stay)."""
    out = []
    for url in urls:
        if url.startswith(("data:", "blob:", "file:", "about:")):
            continue
        if re.match(r"^(https?|wss?)://(127\.0\.0\.1|localhost)(:\d+)?/", url):
            continue
        out.append(url)
    return out


@dataclass
class Visit:
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    injected: list[str] = field(default_factory=list)
    text: str = ""


def visit(browser: Any, url: str, *, ready: str | None = None, shot: str = "") -> Visit:
    """Open ``url`` at 1400x900, wait for ``ready`` (a selector) or the load, and report."""
    from tests.browser.conftest import screenshot

    seen = Visit()
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.on("request", lambda request: seen.requests.append(request.url))
    page = context.new_page()

    def dialog(d: Any) -> None:
        seen.dialogs.append(f"{d.type}: {d.message}")
        d.dismiss()

    page.on("dialog", dialog)
    try:
        page.goto(url)
        if ready:
            page.locator(ready).first.wait_for(timeout=90_000)
        page.wait_for_load_state("load")
        page.wait_for_timeout(500)  # an onerror or onload would have fired by now
        seen.injected = page.evaluate(INJECTED_JS)
        seen.text = page.inner_text("body")
        if shot:
            screenshot(page, shot)
    finally:
        context.close()
    return seen


def clean(seen: Visit, where: str) -> None:
    assert seen.dialogs == [], (where, seen.dialogs)
    assert seen.injected == [], (where, seen.injected)
    assert outside_requests(seen.requests) == [], (where, outside_requests(seen.requests))
