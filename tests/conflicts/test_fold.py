"""The fold guard: a restatement is folded into an older memory only if it adds nothing."""

import pytest

from benchmarks.conflict_quality import load_pairs
from hub.conflicts.judge.fold import adds_nothing


def test_every_labelled_restatement_can_be_folded_but_one_that_names_someone_new() -> None:
    same = [p for p in load_pairs() if p["label"] == "same"]
    assert len(same) > 40
    # "Noa and Itai go to Ramot Elementary" says who "the kids" of the older one are: kept beside it.
    assert [p["id"] for p in same if not adds_nothing(p["a"], p["b"])] == ["cp-257"]


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # The judges read first sentences: these open alike and then say something new.
        (
            "Rina: Good. I'm making stuffed peppers and the meatballs Itai likes",
            "Rina: Good. I'm making kubbeh soup, the kids eat it?",
        ),
        (
            "Noa: hi its Noa on mom's phone!! Shaked invited me to her birthday pool party",
            "Noa: its Noa. Yuval's birthday is an escape room!!! sunday 3 jan at 17:00",
        ),
        (
            "Netanel: what are we doing saturday? forecast says rain all day",
            "Netanel: saturday? not haifa this week",
        ),
        # One sentence, but news the older one lacks.
        (
            "Leumi charged a 25 shekel fee for the standing order to Partner; Netanel wants it moved to the credit card.",
            "Moved the Partner standing order from Leumi to the credit card; after a call with Yaara Golan, Leumi refunded the 25 NIS fee.",
        ),
        # A paraphrase, all but a name: the judge agrees on Dr. Shachar and would drop Dr. Eli Gross.
        (
            "Avital's Maccabi family doctor Dr. Shachar is retiring.",
            "Avital's family doctor at Maccabi is Dr. Eli Gross; Dr. Shachar retired.",
        ),
    ],
)
def test_a_text_with_news_is_not_folded(older: str, newer: str) -> None:
    assert not adds_nothing(older, newer)


def test_a_repeat_with_fewer_words_is_folded() -> None:
    assert adds_nothing("Netanel: thanks", "Netanel: thanks 🙏")
    assert adds_nothing("Dana likes green tea", "Dana likes green tea.")
