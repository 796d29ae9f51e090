"""One reader for the lists of people the panels take: pasted text and uploaded files."""

from __future__ import annotations

import pytest

from chatops.widgets._people import (
    INVITEES,
    MAX_FILE_BYTES,
    MEMBERS,
    STATUS_USERS,
    Entry,
    ListFileError,
    ListKind,
    header_key,
    read_list_file,
    split_pasted,
)
from chatops.widgets.invitations_data import addresses_from_file, split_addresses
from chatops.widgets.user_groups_edit import entries_from_file, split_entries

KINDS = [MEMBERS, INVITEES, STATUS_USERS]


def texts(content: bytes, kind: ListKind, name: str = "list.csv") -> list[str]:
    return read_list_file(content, name, kind).texts()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "team.csv is empty."),
        (b" \n\n", "team.csv is empty."),
        (b",,\n,,\n", "team.csv is empty."),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "team.csv is not a text file; upload a CSV"),
        ("email\nzoë@x.org\n".encode("latin-1"), "team.csv is not UTF-8 text; save it as “CSV"),
        (b"a" * (MAX_FILE_BYTES + 1), "team.csv is 5.0 MiB; a list of people is at most 5 MiB."),
    ],
)
def test_an_unusable_file_is_refused_in_the_same_words_by_every_panel(
    kind: ListKind, content: bytes, words: str
) -> None:
    with pytest.raises(ListFileError) as refused:
        read_list_file(content, "team.csv", kind)
    assert str(refused.value).startswith(words)
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize("kind", KINDS)
def test_the_delimiter_and_excels_byte_order_mark(kind: ListKind) -> None:
    for delimiter in (",", ";", "\t"):
        data = f"name{delimiter}email\nAnn{delimiter}ann@x.org\nBo{delimiter}bo@x.org\n"
        assert texts(b"\xef\xbb\xbf" + data.encode(), kind) == ["ann@x.org", "bo@x.org"]


def test_header_cells_compare_without_case_dashes_or_underscores() -> None:
    assert header_key("  E-Mail ") == header_key("e_mail") == "e mail"
    assert header_key("User_ID") == header_key("user id") == "user id"
    assert header_key("Full   Name") == "full name"


def test_the_first_named_column_of_the_kind_wins() -> None:
    data = b"name,user_id,email\nAnn,7,ann@x.org\n"
    assert texts(data, MEMBERS) == ["ann@x.org"]  # an email column before a name column
    assert texts(data, STATUS_USERS) == ["7"]  # a user ID column before an email column
    people = read_list_file(data, "t.csv", INVITEES)
    assert (people.texts(), people.where, people.column) == (
        ["ann@x.org"],
        "column “email”",
        "email",
    )


def test_rows_count_the_rows_that_hold_text_and_keep_empty_cells() -> None:
    people = read_list_file(
        b"email,name\n\nann@x.org,Ann\n,Bo\ncy@x.org,Cy\n", "t.csv", STATUS_USERS
    )
    assert people.entries == [Entry(2, "ann@x.org"), Entry(3, ""), Entry(4, "cy@x.org")]
    assert people.texts() == ["ann@x.org", "cy@x.org"]


def test_without_a_header_the_first_column_holding_an_entry() -> None:
    people = read_list_file(b"Ann,ann@x.org\nBo,bo@x.org\n", "t.csv", INVITEES)
    assert (people.texts(), people.where) == (["ann@x.org", "bo@x.org"], "column 2")
    people = read_list_file(b"12,x\nann@x.org,y\n", "t.csv", STATUS_USERS)
    assert (people.texts(), people.where) == (["12", "ann@x.org"], "the first column")
    with pytest.raises(
        ListFileError, match=r"t.csv has a header row \(name, phone\) but no column"
    ):
        read_list_file(b"name,phone\nAnn,123\n", "t.csv", INVITEES)


def test_names_without_a_header_are_every_cell() -> None:
    people = read_list_file(b"Ann Lee,bo@x.org\nCy\n", "t.csv", MEMBERS)
    assert (people.texts(), people.where) == (["Ann Lee", "bo@x.org", "Cy"], "every cell")


def test_a_text_file_reads_as_pasted_text() -> None:
    people = read_list_file(b"Ann <ann@x.org>, bo@x.org\n\ncy@x.org\n", "list.txt", INVITEES)
    assert people.texts() == ["Ann <ann@x.org>", "bo@x.org", "cy@x.org"]
    assert people.where == "the lines of the file"


@pytest.mark.parametrize("kind", KINDS)
def test_a_column_with_no_entry_is_refused(kind: ListKind) -> None:
    with pytest.raises(ListFileError, match=rf"t.csv has no {kind.entries} in column “email”."):
        read_list_file(b"email,name\n,Ann\n", "t.csv", kind)


def test_pasted_text_splits_at_the_kinds_separators() -> None:
    assert split_pasted(" a@x.org, b ;\n\nc ", MEMBERS) == ["a@x.org", "b", "c"]
    assert split_pasted("Ann <a@x.org>, b@x.org;c\n", INVITEES) == ["Ann <a@x.org>", "b@x.org;c"]


def test_the_panels_read_their_lists_with_it() -> None:
    assert split_entries("a, b;c") == split_pasted("a, b;c", MEMBERS)
    assert entries_from_file(b"member\nAnn\n") == texts(b"member\nAnn\n", MEMBERS)
    assert split_addresses("Ann <a@x.org>, b@x.org") == [
        ("Ann <a@x.org>", "a@x.org"),
        ("b@x.org", "b@x.org"),
    ]
    assert addresses_from_file(b"ann@x.org\n", "a.csv") == (["ann@x.org"], "the first column")
