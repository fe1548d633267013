"""One memory line: tag, date, text and evidence, read and written the same way."""

from datetime import date

import pytest

from hub.markdown.entries import Entry, parse_entry, render_entry, split_tags
from hub.models import Kind


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[FACT] Noa is allergic to penicillin.", Entry("Noa is allergic to penicillin.", Kind.fact)),
        (
            "[DEDUCED] Noa prefers voice notes — evidence: 2026-02-03: answered three; asked twice",
            Entry(
                "Noa prefers voice notes", Kind.deduced, None, ("2026-02-03: answered three", "asked twice")
            ),
        ),
        (
            "[FACT] 2026-01-12: Maya started school",
            Entry("Maya started school", Kind.fact, date(2026, 1, 12)),
        ),
        (
            "[fact] (2026-01-12) Maya started school",
            Entry("Maya started school", Kind.fact, date(2026, 1, 12)),
        ),
        ("[Open loop] Call the plumber", Entry("Call the plumber", Kind.open_loop)),
        ("[x] Sent the photos", Entry("Sent the photos", done=True, boxed=True)),
        ("[ ] Call the plumber", Entry("Call the plumber", boxed=True)),
        ("[PRIVATE] [fact] Dana's lawyer is Ronit", Entry("Dana's lawyer is Ronit", Kind.fact, private=True)),
        ("**Name:**   Noa  Levi", Entry("Name: Noa Levi")),
        (
            "Pays rent monthly (evidence: bank statement)",
            Entry("Pays rent monthly", None, None, ("bank statement",)),
        ),
        ("[URGENT] call the bank", Entry("[URGENT] call the bank")),  # not a kind: part of the text
        ("2026-13-40: not a date", Entry("2026-13-40: not a date")),
    ],
)
def test_parse_entry(line: str, expected: Entry) -> None:
    assert parse_entry(line, dated=True) == expected


def test_files_dated_by_their_name_keep_a_leading_date_as_text() -> None:
    assert parse_entry("2026-03-01: moved", dated=False) == Entry("2026-03-01: moved")


@pytest.mark.parametrize(
    "line",
    [
        "- [DEDUCED] 2026-03-02: Noa decides fast — evidence: two flights; one hotel",
        "- [FACT] Dana's birthday is 14 July",
        "- Plain line; with a semicolon",
        "- [DECISION] [FACT] a text that starts like a tag",
        "- [x] [OPEN_LOOP] 2026-03-02: Order the tiles",
        "- [ ] Call the plumber",
        "- [ ] [TASK] Renew the passports",
        "- [FACT] [PRIVATE] Dana's divorce lawyer is Ronit Levi",
        "- [PRIVATE] [URGENT] a private line that starts like a tag",
    ],
)
def test_render_then_parse_gives_the_same_line(line: str) -> None:
    entry = parse_entry(line.removeprefix("- "), dated=True)
    written = render_entry(
        entry.text,
        kind=entry.kind,
        day=entry.day,
        evidence=list(entry.evidence),
        done=entry.done,
        boxed=entry.boxed,
        private=entry.private,
    )
    assert written == line


def test_split_tags() -> None:
    assert split_tags("#family, Haifa;  travel ,") == ["family", "Haifa", "travel"]
