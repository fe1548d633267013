"""The model that reads secrets said in words: what the rules miss, and what it must leave alone.

Sentences written for this test, in none of the labelled sets."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hub import stated_secrets
from hub.secrets import _find_secrets, find_secrets, redact


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("Para el candado del trastero: 5092", "5092", "access_code"),
        ("Candado de la bici: 4471", "4471", "access_code"),
        ("Spind im Fitnessstudio, Kombination 2904", "2904", "access_code"),
        ("pass du wifi chez Léa : soleil_2024", "soleil_2024", "password"),
    ],
)
def test_a_secret_no_rule_reads_is_refused_naming_its_kind(text: str, value: str, kind: str) -> None:
    assert not _find_secrets(text, decode=False), "a rule reads it now: pick a sentence the rules miss"
    found = find_secrets(text, said=True)
    assert [(text[f.start : f.end], f.kind) for f in found] == [(value, kind)]
    assert value not in redact(text, said=True) and f"[REDACTED:{kind}]" in redact(text, said=True)


@pytest.mark.parametrize(
    "text",
    [
        "Flight LH1234 leaves from gate B12 at 14:30",
        "Habitación 1204, planta 12",
        "Die Postleitzahl ist 10115",
        "Promo code SAVE20 gives 20% off",
        "Tracking number 1Z999AA10123456784",
        "Call me at +34 612 345 678",
        "Take 2 pills of 500mg at 08:00",
        "Le code promo BIENVENUE10 marche encore",
        "4471 no es ningún código, es el número de la casa",
        "7305 es el número del vuelo",
    ],
)
def test_numbers_that_are_not_secrets_stay_storable(text: str) -> None:
    assert stated_secrets.model().find(text) == []
    assert find_secrets(text, said=True) == []


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("Kx9!mq72 is my Netflix password", "Kx9!mq72", "password"),
        ("5290 — это пин от карты мамы", "5290", "pin"),
        ("Sonne#4471 ist mein Kennwort fürs Konto", "Sonne#4471", "password"),
        pytest.param(
            "8812, es el código del portal",
            "8812",
            "access_code",
            marks=pytest.mark.xfail(strict=True, reason="a known miss: 0.79, tokens from 0.80"),
        ),
    ],
)
def test_a_secret_named_after_its_value_is_refused(text: str, value: str, kind: str) -> None:
    # The words that name it follow it: it is read as a value only since words after a value count.
    assert [(text[f.start : f.end], f.kind) for f in find_secrets(text, said=True)] == [(value, kind)]


def test_a_value_is_read_with_words_before_or_after_it_but_never_alone() -> None:
    read = stated_secrets.readable("Kx9!mq72 is my Netflix password")
    assert read[0] == (0, 8, "Kx9!mq72")
    assert stated_secrets.readable("4471") == []
    assert stated_secrets.readable("4471 !!") == []


def _tokens(text: str) -> list[str]:
    return [v for _, _, v in stated_secrets.candidates(text) if not stated_secrets.is_phrase(v)]


def test_plain_words_are_never_read_as_tokens() -> None:
    assert _tokens("the password is something long and secret") == []
    assert _tokens("code: 4471, pass: Sonne99!") == ["4471", "Sonne99"]


@pytest.mark.parametrize(
    ("text", "phrases"),
    [
        ("we walked along the river and talked for hours", []),  # nothing given
        (
            "the password is something long and secret",
            ["the password", "something long and secret"],
        ),  # before and after "is"
        ("Phrase: copper lantern drifts eastward. Thanks!", ["copper lantern drifts eastward"]),  # a colon
        (
            "Phrase secrète du coffre : marmotte bleue sous la pluie",
            ["Phrase secrète du coffre", "marmotte bleue sous la pluie"],
        ),  # French's colon, set apart
        ("vault = copper lantern drifts", ["copper lantern drifts"]),  # an equals sign
        (
            "copper lantern mild orchard — that's the passphrase",
            ["copper lantern mild orchard", "that's the passphrase"],
        ),  # before a dash
        (
            "the seed words: pomme, tiroir, nuage, violon. Thanks",
            ["the seed words", "pomme, tiroir, nuage, violon"],
        ),  # words listed between commas
        (
            "la frase -> girasol tranvía nube, no la olvides",
            ["la frase", "girasol tranvía nube"],
        ),  # an arrow, to the comma
        ("Merkphrase „blaue Möwe über Kiel“ bitte", ["blaue Möwe über Kiel"]),  # in quotes
        ("הסיסמה היא ים כחול ושקט", ["ים כחול ושקט"]),  # Hebrew's "is"
        ("это: " + " ".join(["слово"] * 12), [" ".join(["слово"] * 10)]),  # ten words at most
        ("pass: one", []),  # one word is a token's business
    ],
)
def test_words_are_read_as_a_phrase_only_where_given_as_something(text: str, phrases: list[str]) -> None:
    assert [v for _, _, v in stated_secrets.phrases(text)] == phrases


def test_the_phrases_of_a_long_text_crowd_out_none_of_its_tokens() -> None:
    text = " ".join(f"my note {i} is a long one here." for i in range(20)) + " pin 4471 ok"
    read = [value for _, _, value in stated_secrets.readable(text)]
    assert "4471" in read
    assert sum(map(stated_secrets.is_phrase, read)) == stated_secrets.MAX_VALUES


def test_digits_read_out_one_by_one_are_one_value() -> None:
    text = "um the pin is 4 4 1 8 dont forget, and the room is 12"
    assert _tokens(text) == ["4 4 1 8"]
    assert _tokens("at 7 30 or 8 15") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("el pin de la tarjeta es cuatro siete siete uno, no lo compartas", "cuatro siete siete uno"),
        ("Zahlencode vom Fahrradschloss: drei-null-acht-fünf", "drei-null-acht-fünf"),
        ("пин-код карты: два, ноль, шесть, девять", "два, ноль, шесть, девять"),
        ("the alarm code is oh five two eight, the panel by the door", "oh five two eight"),
    ],
)
def test_digits_said_as_words_are_read_as_digits(text: str, value: str) -> None:
    said, _ = stated_secrets.spelled(text)
    assert any(v.replace(" ", "").isdigit() for _, _, v in stated_secrets.readable(said))
    assert [text[f.start : f.end] for f in find_secrets(text, said=True)] == [value]


def test_a_position_after_digits_said_as_words_is_found_again_in_the_text() -> None:
    text = "codes: uno dos tres and then cuatro cinco seis siete, ok"
    said, runs = stated_secrets.spelled(text)
    assert said == "codes: 1 2 3 and then 4 5 6 7, ok"
    assert [(text[a:b], said[c:d]) for a, b, c, d in runs] == [
        ("uno dos tres", "1 2 3"),
        ("cuatro cinco seis siete", "4 5 6 7"),
    ]
    assert stated_secrets._unspelled(said.index("and"), runs, end=False) == text.index("and")
    assert stated_secrets._unspelled(said.index("5"), runs, end=True) == text.index(", ok")


def test_counting_out_loud_is_no_secret() -> None:
    assert find_secrets("one, two, three, go! and we all jumped into the lake", said=True) == []


def test_a_combination_read_two_digits_at_a_time_is_one_value() -> None:
    text = "the padlock opens on 15 35 05, then pull"
    assert _tokens(text) == ["15 35 05"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("الرمز هو 4471، لا تنسه", "4471"),  # an Arabic comma after it
        ("שיניתי את הקוד ל־8842 אתמול", "8842"),  # a Hebrew prefix joined by a maqaf
        ("הקוד ב-5093 עכשיו", "5093"),  # ... or by a hyphen
        ("暗証番号は 6621。", "6621"),  # a CJK full stop
    ],
)
def test_a_value_is_read_without_the_punctuation_and_prefixes_of_its_script(text: str, value: str) -> None:
    assert _tokens(text) == [value]


def test_a_value_of_the_longest_shape_is_read_like_any_other() -> None:
    # A marked value ("#" and 64 characters) is one longer than the longest length bucket.
    text = "the ticket is #" + "a1" * 32 + " for tomorrow"
    [value] = _tokens(text)
    assert len(value) == 65
    stated_secrets.model().find(text)  # read, whatever it says, without failing


def test_a_passphrase_of_plain_words_is_refused() -> None:
    text = 'Die Merkphrase fürs Backup lautet "blaue Möwe über Kiel"'
    assert not _find_secrets(text, decode=False), "a rule reads it now: pick a sentence the rules miss"
    found = find_secrets(text, said=True)
    assert [(text[f.start : f.end], f.kind) for f in found] == [("blaue Möwe über Kiel", "passphrase")]
    assert "Möwe" not in redact(text, said=True)


@pytest.mark.parametrize(
    "text",
    [
        "The recovery phrase is in the safe deposit box at the bank",
        "Mi frase favorita es: más vale tarde que nunca",
        'She said: "see you at the lake tomorrow"',
        "La passphrase est trop longue, il faut en choisir une autre",
    ],
)
def test_words_about_a_passphrase_or_anything_else_stay_storable(text: str) -> None:
    assert find_secrets(text, said=True) == []


def test_features_hash_the_same_in_every_process() -> None:
    # crc32, not Python's salted hash(): the shipped weights index these columns.
    here = stated_secrets.features("el código es 1234", 13, 17, "1234")
    code = (
        "from hub import stated_secrets; "
        "print(sorted(stated_secrets.features('el código es 1234', 13, 17, '1234').items()))"
    )
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert there.stdout.strip() == str(sorted(here.items()))
    assert all(0 <= column < stated_secrets.WIDTH for column in here)
