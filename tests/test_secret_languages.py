"""Secrets said in each language of hub.secret_languages, against the labelled multilingual set.

tests/data/secrets_i18n.jsonl holds, per language, secrets said the ways people say them and look-alikes
that must stay storable; its test half is the guarantee asserted here (see benchmarks.secrets_i18n).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hub.secret_languages import LANGUAGES
from hub.secrets import LABELS, SecretError, _find_secrets, ensure_no_secrets, find_secrets, redact

SET_PATH = Path(__file__).parent / "data" / "secrets_i18n.jsonl"
ROWS: list[dict[str, Any]] = [json.loads(line) for line in SET_PATH.read_text(encoding="utf-8").splitlines()]
COVERED = {"es", "fr", "de", "pt", "it", "ru", "ar", "he", "en"}
TEST_SECRETS = [row for row in ROWS if row["split"] == "test" and row["label"] == "secret"]
TEST_LOOKALIKES = [row for row in ROWS if row["split"] == "test" and row["label"] == "not"]


def _id(row: dict[str, Any]) -> str:
    return f"{row['lang']} {row['what']}: {row['text'][:40]}"


def _found(text: str) -> list[tuple[str, str]]:
    return [(finding.kind, text[finding.start : finding.end]) for finding in find_secrets(text, said=True)]


def test_the_set_covers_each_language_with_secrets_and_look_alikes() -> None:
    counts = Counter((row["lang"], row["label"]) for row in ROWS if row["split"] in ("dev", "test"))
    assert {lang for lang, _ in counts} == COVERED <= {language.code for language in LANGUAGES}
    assert all(counts[lang, label] >= 25 for lang in COVERED for label in ("secret", "not"))
    assert {row["kind"] for row in ROWS if row["label"] == "secret"} <= set(LABELS)


@pytest.mark.parametrize("row", TEST_SECRETS, ids=_id)
def test_a_secret_of_the_test_half_is_refused_naming_its_kind(row: dict[str, Any]) -> None:
    with pytest.raises(SecretError) as caught:
        ensure_no_secrets(row["text"])
    assert f"{LABELS[row['kind']]} ({row['kind']})" in str(caught.value)
    assert row["value"] not in str(caught.value)
    assert (row["kind"], row["value"]) in _found(row["text"])
    assert row["value"] not in redact(row["text"])


def test_at_most_one_look_alike_in_a_hundred_of_the_test_half_is_refused() -> None:
    refused = [row["text"] for row in TEST_LOOKALIKES if find_secrets(row["text"], said=True)]
    assert len(refused) <= len(TEST_LOOKALIKES) // 100, refused


def test_languages_are_told_apart_by_their_codes() -> None:
    codes = [language.code for language in LANGUAGES]
    assert len(codes) == len(set(codes))


# How the table's words are read, each shown once: the set above is the measure.


def test_a_word_for_a_digit_means_the_same_digit_in_every_language() -> None:
    meaning: dict[str, set[int]] = {}
    for language in LANGUAGES:
        assert len(language.digits) in (0, 10), language.code
        for digit, words in enumerate(language.digits):
            for form in words.split("|"):
                meaning.setdefault(form.casefold(), set()).add(digit)
    assert {form: digits for form, digits in meaning.items() if len(digits) > 1} == {}


def test_after_words_a_number_that_reads_as_a_year_is_none() -> None:
    assert _found("ПИН-код карты 4821") == [("pin", "4821")]
    assert _found("Поменяла ПИН-код в 2023 году") == []
    assert _found("El PIN de la tarjeta caduca en 2027") == []


def test_after_a_word_following_the_name_only_a_value_no_word_could_be_is_taken() -> None:
    assert _found("Contraseña nueva: Perro_2024") == [("password", "Perro_2024")]
    assert _found("Contraseña cambiada: ayer") == []
    assert _found("La carte bleue de Marc, code de la carte principale : 4471") == [("pin", "4471")]


def test_where_nouns_are_capitalized_one_after_is_is_the_sentence_going_on() -> None:
    assert _found("Das Passwort ist Pflicht.") == []
    assert _found("Das Passwort ist Pflicht2024.") == [("password", "Pflicht2024")]
    assert _found("Passwort: Tannenbaum") == [("password", "Tannenbaum")]


def test_a_code_needs_what_it_opens_named_with_it() -> None:
    assert _found("El código postal es 28013") == []
    assert _found("Il codice sconto è ESTATE20") == []
    assert _found("Der Türcode ist 4711") == [("access_code", "4711")]
    assert _found("Код от входной двери 5521") == [("access_code", "5521")]
    assert _found("קוד לשער 6060") == [("access_code", "6060")]
    assert _found("Code de l'antivol du vélo : 4821") == [("access_code", "4821")]


def test_a_key_names_a_password_only_with_a_digit_in_it() -> None:
    assert _found("La clave del éxito es paciencia.") == []
    assert _found("La clave del wifi es girasol2020") == [("password", "girasol2020")]


def test_a_value_may_be_quoted_as_the_language_quotes() -> None:
    assert _found("Le mot de passe est « Printemps 12 »") == [("password", "Printemps 12")]
    assert _found("Das Passwort lautet „grüner Apfel“") == [("password", "grüner Apfel")]


def test_the_kind_is_the_name_said_unless_what_it_opens_says_more() -> None:
    assert _found("Mon code PIN est 1357.") == [("pin", "1357")]
    assert _found("Le digicode de l'immeuble est 2580") == [("access_code", "2580")]
    assert _found("La frase de contraseña del disco es «tres gatos»") == [("passphrase", "tres gatos")]
    # A password of a card is its PIN, of a gate its code; a value of another shape stays a password.
    assert _found("A senha do cartão é 7731.") == [("pin", "7731")]
    assert _found("A senha do portão é 7788") == [("access_code", "7788")]
    assert _found("the password for the garage app is tulipfield.") == [("password", "tulipfield")]
    # Anything said of a bank is a bank login, but for a card's PIN.
    assert _found("Das Banking-Passwort ist Rhein-Main-55") == [("bank_login", "Rhein-Main-55")]
    assert _found("Onlinebanking: Anmeldename mueller84, PIN 61730") == [("bank_login", "61730")]
    assert _found("Die Geheimzahl meiner Bankkarte ist 5082.") == [("pin", "5082")]
    # A bank in another sentence says nothing of this one; a database is no bank.
    assert _found("Ich war bei der Bank. Das Passwort ist Sonne99!") == [("password", "Sonne99!")]
    assert _found("Das Datenbank-Passwort ist Rhein-Main-55") == [("password", "Rhein-Main-55")]


def test_a_verb_may_stand_between_a_code_and_what_it_opens() -> None:
    assert _found("El código para entrar al edificio es 4417") == [("access_code", "4417")]
    assert _found("Der Code zum Öffnen der Tür ist 2580") == [("access_code", "2580")]
    assert _found("The code to open the gate is 1504") == [("access_code", "1504")]
    assert _found("The code to get into the sale is SAVE20") == []


def test_a_door_code_may_open_with_a_capital_letter() -> None:
    assert _found("Le code pour ouvrir le portail : B2046") == [("access_code", "B2046")]
    assert _found("Gate A12, boarding code AF1234") == []


def test_where_of_is_a_case_ending_a_preposition_is_no_word_between_name_and_value() -> None:
    assert _found("Пароль от почты на работе: Kotik_1987") == [("password", "Kotik_1987")]
    assert _found("הקוד הסודי של כרטיס הדביט החדש: 1234") == [("pin", "1234")]
    assert _found("Пароль от Wi-Fi на даче у бабушки сменили в 2021") == []


def test_a_keypad_key_keyed_with_a_code_is_part_of_it() -> None:
    assert _found("El código del trastero es #4471") == [("access_code", "#4471")]
    assert _found("Türcode vom Keller 3390* danach grün") == [("access_code", "3390*")]
    # Keyed in, a number that reads as a year is still a code.
    assert _found("קוד השער של החצר 1987#") == [("access_code", "1987#")]


def test_a_code_may_have_a_capital_among_its_digits_or_be_spaced() -> None:
    assert _found("Il codice del portone è 3C58") == [("access_code", "3C58")]
    assert _found("the locker combination is 08 15 42") == [("access_code", "08 15 42")]
    assert _found("call me on 06 12 34 56 78 about the door") == []


def test_a_few_words_may_stand_between_a_name_and_a_colon() -> None:
    assert _found("Código de la verja en casa de Luis: 7146") == [("access_code", "7146")]
    assert _found("PIN nouvelle carte reçue hier : 6093") == [("pin", "6093")]
    # Not with "is" or "and" among them (the rules: the model reads this one as a gate code, which a
    # person might too). Nor before "is" for the rules; the model's "PIN code area" is a known false refusal.
    assert _find_secrets("the gate code was changed and flight: 4412", decode=False) == []


def test_what_a_code_opens_may_come_first_with_how_it_is_keyed_in() -> None:
    assert _found("Pour le garage de Paul, tape 3071 puis OK") == [("access_code", "3071")]
    assert _found("Al cancello del cortile digita 5520") == [("access_code", "5520")]
    assert _found("the storage locker opens with 4096.") == [("access_code", "4096")]
    assert _found("Die Haustür machst du mit 7312 auf") == [("access_code", "7312")]
    # After "with", a number going on into the sentence is a count; a short one keyed in a phone's.
    assert _found("the building with 140 flats has a gym") == []
    assert _found("at the gate, dial 112 if anyone is hurt") == []


def test_recovery_codes_may_be_listed_short_or_after_a_space() -> None:
    assert _found("Wiederherstellungscodes Dropbox: 3381 9920 4417") == [("recovery_codes", "3381 9920 4417")]
    assert _found("backup codes for github 77213 55810") == [("recovery_codes", "77213 55810")]
    assert _found("I used one backup code yesterday, 4 left") == []


def test_where_of_is_a_construct_a_secret_name_may_hold_what_it_opens() -> None:
    assert _found("קוד הכספת הסודי 40-12-33") == [("access_code", "40-12-33")]


def test_a_bank_named_by_its_name_makes_a_bank_login() -> None:
    assert _found("Sparkasse App: Benutzer jonas77, Passwort Elbe!2020") == [("bank_login", "Elbe!2020")]
    assert _found("mon compte Boursorama, identifiant 5583012, mot de passe 991204") == [
        ("bank_login", "991204")
    ]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "Para el disco externo uso una frase secreta: tortuga lenta bajo la lluvia.",
            "tortuga lenta bajo la lluvia",
        ),
        ("Ma phrase de passe pour le coffre — hibou gris sur la branche", "hibou gris sur la branche"),
        ("Кодовая фраза для банка: старый маяк у моря", "старый маяк у моря"),
        ("passphrase del gestore: lampada verde sul tavolo, non dirla a nessuno", "lampada verde sul tavolo"),
        ("משפט סיסמה לכונן: ענן לבן מעל ההר", "ענן לבן מעל ההר"),
    ],
)
def test_a_passphrase_after_a_colon_or_a_dash_is_the_words_to_the_end_of_the_clause(
    text: str, value: str
) -> None:
    # The rules read it, not the model: no digit or symbol is in it for the model to read.
    assert [(f.kind, text[f.start : f.end]) for f in _find_secrets(text, decode=False)] == [
        ("passphrase", value)
    ]
    assert value not in redact(text, said=True)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my vault passphrase is copper lantern meadow fox, don't share it", "copper lantern meadow fox"),
        ("la frase secreta del disco es tortuga naranja volcán dormido", "tortuga naranja volcán dormido"),
        (
            "die Passphrase fürs NAS ist Leuchtturm Kiesel Nebelhorn und mehr sag ich nicht",
            "Leuchtturm Kiesel Nebelhorn",
        ),
        ("кодовая фраза — медный фонарь лесная сова", "медный фонарь лесная сова"),
    ],
)
def test_a_passphrase_after_is_is_its_words_up_to_a_function_word(text: str, value: str) -> None:
    # The run of words stops at the end of its clause or at the first function word of the language ("und").
    assert [(f.kind, text[f.start : f.end]) for f in _find_secrets(text, decode=False)] == [
        ("passphrase", value)
    ]


def test_words_after_a_passphrase_is_or_too_many_are_not_its_value() -> None:
    # After "is" the words may say where it is or what it is like: a function word among the first three
    # makes them a description; a long run after a colon is a sentence.
    assert _found("La frase secreta está escrita en la libreta azul.") == []
    assert _found("The passphrase for the vault is written on the card in the safe") == []
    assert _found("my passphrase is stored offline") == []


def _known(text: str, why: str) -> Any:
    return pytest.param(text, marks=pytest.mark.xfail(strict=True, reason=f"a known false refusal: {why}"))


# Look-alikes the model refuses that rules were once written to leave alone. Each fails until a model reads
# it better; a rule for the sentence would hide the fault, not mend it.
@pytest.mark.parametrize(
    "text",
    [
        _known(
            "Das Haus mit 1200 Quadratmetern steht leer",
            "read as a door code (0.82; tokens from 0.80)",
        ),
        _known(
            "Passphrase: I will tell you tomorrow when we meet at the office after lunch",
            "its words after a passphrase's name and a colon read as one (0.959; phrases from 0.50): the"
            " words themselves (I, will, you) weigh less than the name before them",
        ),
        _known(
            "la phrase secrète est vraiment très longue",
            "'vraiment très longue' after a passphrase's name and 'est' read as one (0.938)",
        ),
        _known(
            "the wallet passphrase is twelve words long",
            "'twelve words long' after a passphrase's name and 'is' read as one (0.919): refused since"
            " phrases are refused below 0.95, which refuses more held-out secrets (docs/secrets.md)",
        ),
        # A date range, once refused as an access code (docs/secrets.md).
        "The kids' summer camp is at the Technion, July 1-19.",
        _known(
            "1200 m² tiene la casa",
            "a quantity first, read as a door code (0.88) since values named after them are read",
        ),
        _known(
            "the PIN code area is 411014 for the Pune office",
            "an Indian postcode (a 'PIN code') read as a PIN (0.90) since values named after them are read"
            " and learned",
        ),
    ],
)
def test_words_about_a_secret_are_no_secret(text: str) -> None:
    assert _found(text) == []
