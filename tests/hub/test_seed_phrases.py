"""A wallet's seed phrase is refused by its words, in any of BIP-39's languages, whatever names it."""

from __future__ import annotations

import unicodedata

import pytest
from mnemonic import Mnemonic

from hub import seed_phrases
from hub.secrets import find_secrets, redact

# Fixed entropy: the same phrases on every run, each a valid BIP-39 phrase of its list.
ENTROPY = bytes(range(7, 23))


def phrase(language: str, entropy: bytes = ENTROPY) -> str:
    # Wallets show the words composed, as people type them (the lists are stored decomposed).
    return unicodedata.normalize("NFC", Mnemonic(language).to_mnemonic(entropy))


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("english", "ok here are the words, don't lose them: {}"),
        ("spanish", "Guárdame esto por favor → {} (no lo compartas)"),
        ("french", "mes mots de récupération : {}"),
        ("italian", "le parole del portafoglio sono {} grazie"),
        ("portuguese", "anota aí: {}"),
        ("russian", "сохрани пожалуйста: {}"),
        ("czech", "slova: {}"),
        ("japanese", "メモ: {}"),
        ("korean", "지갑 단어: {}"),
    ],
)
def test_a_phrase_of_any_list_is_refused_whatever_names_it(language: str, said: str) -> None:
    words = phrase(language)
    text = said.format(words)
    findings = find_secrets(text, said=True)
    assert [f.kind for f in findings] == ["seed_phrase"]
    start = text.index(words)
    assert findings[0].start <= start and findings[0].end >= start + len(words)
    assert words not in redact(text, said=True)


def test_twenty_four_words_numbered_one_per_line() -> None:
    words = Mnemonic("english").to_mnemonic(bytes(range(32))).split()
    text = "backup\n" + "\n".join(f"{i}) {word}" for i, word in enumerate(words, 1))
    [(start, end)] = list(seed_phrases.find(text))
    assert text[start:end].startswith(words[0]) and text[start:end].endswith(words[-1])


def test_all_capitals_read_as_small_letters() -> None:
    assert len(list(seed_phrases.find(phrase("english").upper()))) == 1


def test_eleven_words_are_no_phrase() -> None:
    words = phrase("english").split()
    assert list(seed_phrases.find(" ".join(words[:11]))) == []
    assert list(seed_phrases.find(" ".join(words[:12]))) == [(0, len(" ".join(words[:12])))]


def test_a_capitalised_word_breaks_a_run() -> None:
    # Names and sentence starts are capitalised; the lists are not.
    words = phrase("english").split()
    broken = " ".join(words[:6] + [words[6].capitalize()] + words[7:])
    assert list(seed_phrases.find(broken)) == []


def test_chinese_lists_are_not_read() -> None:
    # Their words are single characters: all Chinese prose would be made of them. 24 of them, spaced as a
    # wallet shows them, are long enough to be read were the lists loaded.
    text = phrase("chinese_simplified", bytes(range(32)))
    assert len(text.split()) == 24
    assert list(seed_phrases.find(text)) == []


def test_words_of_two_lists_do_not_make_one_run() -> None:
    english = phrase("english").split()[:6]
    italian = [w for w in phrase("italian").split() if w not in Mnemonic("english").wordlist][:6]
    assert len(italian) == 6
    assert list(seed_phrases.find(" ".join(english + italian))) == []


@pytest.mark.parametrize(
    "text",
    [
        # Long prose full of the lists' words: every language needs the short words the lists leave out.
        "We usually make lava cake. The contrast between the rich, moist cake and the gooey chocolate lava "
        "is simply irresistible. It's definitely a dessert that can make any day feel extra special.",
        "buy milk, eggs, bread, butter, apples, lemons, rice, pasta, cheese, coffee, sugar and salt",
        "Compré pan, leche, huevos y fruta para toda la semana en el mercado del barrio, que abre a las 8.",
        "Я купил хлеб, молоко и яйца, а потом пошёл домой через парк, потому что была хорошая погода.",
    ],
)
def test_prose_is_no_phrase(text: str) -> None:
    assert list(seed_phrases.find(text)) == []
    assert find_secrets(text, said=True) == []
