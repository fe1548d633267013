"""A secret found whole: a list of backup codes, a passphrase read in part (`hub.secret_extent`)."""

from __future__ import annotations

import pytest

from hub import secret_extent
from hub.secrets import find_secrets, redact


def _found(text: str) -> list[tuple[str, str]]:
    return [(finding.kind, text[finding.start : finding.end]) for finding in find_secrets(text, said=True)]


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        (
            "Códigos de respaldo de la cuenta de Google de papá: 5829 1047, 3361 8820, 7714 0093",
            "5829 1047, 3361 8820, 7714 0093",
        ),
        (
            "أكواد الاسترداد لحساب جوجل: 2846-1193 ؛ 6071-5528 ؛ 9935-0417",
            "2846-1193 ؛ 6071-5528 ؛ 9935-0417",
        ),
        ("Los códigos de respaldo son 4417-2290 / 8835-1064, el vuelo es el IB3344", "4417-2290 / 8835-1064"),
    ],
)
def test_a_list_of_backup_codes_is_one_secret_and_redacted_whole(text: str, codes: str) -> None:
    # Read as codes one by one, or only the first: redacting left the rest of the list stored.
    assert _found(text) == [("recovery_codes", codes)]
    assert redact(text, said=True) == text.replace(codes, "[REDACTED:recovery_codes]")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Backup codes: 1234 5678, and call me at 0300 4444", [("recovery_codes", "1234 5678")]),
        ("Backup codes: 4417-2290, 8835-1064, 7301", [("recovery_codes", "4417-2290, 8835-1064")]),
        ("My PIN is 1234, room 5678", [("pin", "1234")]),
    ],
)
def test_a_list_of_codes_ends_where_its_form_or_its_kind_does(
    text: str, found: list[tuple[str, str]]
) -> None:
    assert _found(text) == found


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Passphrase fürs Backup: Laterne Pinguin Salz Brücke", "Laterne Pinguin Salz Brücke"),
        (
            "Passphrase fürs Backup: Laterne Pinguin Salz Brücke, frag nicht warum",
            "Laterne Pinguin Salz Brücke",
        ),
        (
            "La frase semilla de la cartera es: pato nube mesa cobre lluvia faro hilo mango trigo nieve sapo"
            " viento. No la pierdas",
            "pato nube mesa cobre lluvia faro hilo mango trigo nieve sapo viento",
        ),
    ],
)
def test_a_passphrase_read_in_part_is_found_to_the_end_of_its_clause(text: str, phrase: str) -> None:
    # A rule read its first word, or the model its first ten: the rest was stored by the redact policy.
    assert _found(text) == [("passphrase", phrase)]


def test_only_a_list_or_a_phrase_is_widened() -> None:
    text = "PIN 1234, 5678 / code 4417-2290 8835-1064"
    found = [(4, 8, "pin"), (22, 31, "recovery_codes"), (32, 41, "recovery_codes")]
    assert secret_extent.whole(text, found) == [(4, 8, "pin"), (22, 41, "recovery_codes")]
