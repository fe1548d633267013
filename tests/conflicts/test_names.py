"""Names read across two statements: lowercase names in chat messages, pet names, kin titles."""

from __future__ import annotations

import pytest

from hub.conflicts import RuleJudge, Statement, Verdict
from hub.conflicts.judge.names import align, pet_name_of
from hub.conflicts.judge.text import parse


@pytest.mark.parametrize(
    ("short", "name", "inside", "expected"),
    [
        ("Zo", "Zoe", False, True),
        ("Bis", "Biscuit", False, True),
        ("Maxi", "Maximilian", False, True),
        ("Maxi", "Max", False, True),
        ("Max", "Maxi", False, False),  # Maxi is Max's pet name, not the other way round
        ("Lenchen", "Lena", False, True),
        ("Fritzchen", "Fritz", False, True),
        ("Tali", "Avital", False, False),  # inside a name only where people speak
        ("Tali", "Avital", True, True),
        ("Basti", "Sebastian", True, True),
        ("Zoe", "Zoe", False, False),
        ("Dana", "Daniel", False, False),
        ("Paul", "Paula", False, False),  # a name made of another is someone else's
        ("Jan", "Jana", False, False),
        ("Leonie", "Leon", False, False),
        ("Kai", "Katrin", False, False),
        ("Benni", "Benjamin", False, True),
        ("Tommy", "Tom", False, True),
    ],
)
def test_pet_names(short: str, name: str, inside: bool, expected: bool) -> None:
    assert pet_name_of(short, name, inside=inside) is expected


def test_a_chat_message_spells_the_names_the_other_statement_gives() -> None:
    older, newer = align(
        "Rachel and Tom both run with Didsbury Runners on Thursday evenings.",
        "Tom: we left didsbury runners, doing parkrun on sat mornings instead",
    )
    assert newer == "Tom: we left Didsbury Runners, doing parkrun on sat mornings instead"
    assert older.startswith("Rachel and Tom both run with Didsbury Runners")
    # A pet name in a chat message, the speaker's own included.
    assert (
        align("Sebastian plays football.", "Mama: basti quit football")[1] == "Mama: Sebastian quit football"
    )
    assert align("Helene is allergic to nuts.", "Leni: my nuts thing")[1] == "Helene: my nuts thing"
    # A common word is no pet name ("run" / Runners), and a plain statement's lowercase is its own.
    assert align("Didsbury Runners meet on Thursdays.", "Tom: i run on thursdays")[1] == (
        "Tom: i run on thursdays"
    )
    assert align("Will walks the dog.", "The dog will walk itself.")[1] == "The dog will walk itself."


def test_a_kin_title_before_a_name_is_no_part_of_it() -> None:
    assert parse("Grandma Pat lives in Chorlton.").subject.key == "pat"
    assert parse("Oma Gisela lives in Freiburg.").subject.key == "gisela"
    assert parse("Grandma lives in Chorlton.").subject.key == "grandma"


def test_a_change_said_with_a_pet_name_in_a_chat_message_is_read() -> None:
    judge = RuleJudge(change_similarity=0.5)
    found = judge.judge(
        Statement("Lena's swimming lessons are on Tuesdays at 16:00 at the Stadtbad."),
        Statement("Katrin: lenchen's swimming is thursdays now, same time"),
        0.55,
    )
    assert found.verdict is Verdict.conflict
    restated = judge.judge(
        Statement("Helene is allergic to hazelnuts."),
        Statement("Katrin: leni can't have hazelnuts, she's allergic"),
        0.74,
    )
    assert restated.verdict is Verdict.same
