"""Sentences as the conflict rules read them: a title's full stop ends none."""

from __future__ import annotations

from hub.conflicts.judge.tokens import first_sentence, sentence_around, tokenize, words_match
from hub.conflicts.judge.values import extract

TEXT = "Itai's ENT is Dr. Sela at Maccabi. His ears are clear now, she says. Next check in May."


def test_the_first_sentence_runs_past_a_title() -> None:
    assert first_sentence(TEXT) == "Itai's ENT is Dr. Sela at Maccabi"
    assert first_sentence("No full stop here") == "No full stop here"


def test_the_sentence_around_a_span() -> None:
    now = TEXT.index("now")
    assert sentence_around(TEXT, now, now + 3) == "His ears are clear now, she says"
    sela = TEXT.index("Sela")
    assert sentence_around(TEXT, sela, sela + 4) == "Itai's ENT is Dr. Sela at Maccabi"
    may = TEXT.index("May")
    assert sentence_around(TEXT, may, may + 3) == "Next check in May"


def test_a_name_with_an_umlaut_is_one_word_and_a_decimal_comma_one_number() -> None:
    tokens = tokenize("Jürgen pays 12,50 € for Käthe's lunch; 1,250 in all.")
    assert [t.text for t in tokens if t.kind == "word"] == [
        "Jürgen",
        "pays",
        "for",
        "Käthe",
        "lunch",
        "in",
        "all",
    ]
    assert [t.text for t in tokens if t.kind == "num"] == ["12,50", "1,250"]
    money = [v for v in extract(tokenize("The Kita costs 12,50 € a day."), set())[0] if v.kind == "money"]
    assert [set(v.keys) for v in money] == [{"12.5"}]
    assert words_match("wifi", "wi-fi")


def test_a_capital_that_opens_a_labelled_sentence_names_nothing() -> None:
    def names(text: str) -> list[str]:
        return [v.shown for v in extract(tokenize(text), set())[0] if v.kind == "name"]

    assert names("Emi: That is amazing") == []
    assert names("elise: Today I went to the spa with Kate") == ["Kate"]
    assert names("Dentist: Dr. Levi, Herzl St.") == ["Levi", "Herzl St"]
    assert names("The dentist is Dr. Levi") == ["Dr Levi"]
