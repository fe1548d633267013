"""A role of one holder, said either way round: "Dr. Levi is our dentist" / "Our dentist is Dr. Katz"."""

import pytest

from hub.conflicts import RuleJudge, Statement, Verdict
from hub.conflicts.judge.roles import held_role
from hub.conflicts.judge.text import parse


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("Dr. Levi is our dentist.", ("owner>dentist", "dr levi", "Dr. Levi")),
        ("Dr. Levi is the family dentist, clinic on Herzl street.", ("owner>dentist", "dr levi", "Dr. Levi")),
        ("Ruti is Amir's mother", ("amir>mother", "ruti", "Ruti")),
        ("Svetlana is my regular babysitter since May", ("owner>babysitter", "svetlana", "Svetlana")),
        ("Noa is Shira's teacher", None),  # a child has several
        ("Ruti is Amir's sister", None),  # so may a brother
        ("Dr. Levi is great with kids", None),
        ("Amir says Dr. Levi is our dentist", None),  # Amir holds nothing
        ("Our dentist is Dr. Katz", None),  # the role is the subject already
    ],
)
def test_who_holds_a_role_of_one_holder(text: str, held: tuple[str, str, str] | None) -> None:
    assert held_role(parse(text)) == held


def test_the_owners_names_hold_their_roles_too() -> None:
    assert held_role(parse("Dr. Katz is Yael's dentist"), frozenset({"yael"})) == (
        "owner>dentist",
        "dr katz",
        "Dr. Katz",
    )


def judge(a: str, b: str, owner_names: frozenset[str] = frozenset()) -> Verdict:
    return RuleJudge(owner_names=owner_names).judge(Statement(a), Statement(b)).verdict


def test_two_holders_of_one_role_conflict_whichever_way_round_each_is_said() -> None:
    assert judge("Dr. Levi is our dentist.", "Our dentist is Dr. Katz.") is Verdict.conflict
    assert judge("Our dentist is Dr. Katz.", "Dr. Levi is our dentist.") is Verdict.conflict
    assert judge("Dr. Levi is our dentist.", "Dr. Katz is our dentist.") is Verdict.conflict
    yael = frozenset({"yael"})
    family = "Dr. Levi is the family dentist, clinic on Herzl street."
    assert judge(family, "Yael's dentist is Dr. Katz in Ramat Gan.", yael) is Verdict.conflict
    # The same holder, another role or another possessor, or nothing said of who holds it: no conflict.
    assert judge("Dr. Levi is our dentist.", "Our dentist is Dr. Levi.") is not Verdict.conflict
    assert judge("Dr. Levi is Shira's dentist.", "Our dentist is Dr. Katz.") is not Verdict.conflict
    assert judge("Dr. Levi is our dentist.", "Our dentist is great with kids.") is not Verdict.conflict
    assert judge("Noa is Shira's teacher.", "Shira's teacher is Orly.") is not Verdict.conflict
