"""A crypto wallet's seed phrase written out, in any language a wallet writes one in.

A wallet gives its owner 12 to 24 words from one of BIP-39's word lists, and whoever holds the words
holds the wallet. So a run of at least 12 words of one list is a seed phrase whatever names it, or
nothing does: the words are the lists' own, as Trezor's reference implementation (`mnemonic`) ships
them, rather than any language's word for "seed phrase". Prose never runs that long on them: every
language's sentences need short words the lists leave out (an article, "is", "of"). Read: English,
Spanish, French, Italian, Portuguese, Czech, Russian, Turkish, Japanese and Korean; not Chinese, whose
lists are single characters, what all Chinese prose is made of.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache

from mnemonic import Mnemonic

SHORTEST = 12  # BIP-39's shortest phrase
_WORD = re.compile(r"[^\W\d_]+")
# A text shorter than this cannot hold SHORTEST words of two letters or more (Korean's shortest) with a
# gap between each.
_TOO_SHORT = SHORTEST * 3 - 1


@cache
def _lists() -> dict[str, int]:
    """Each word of every list, with a bit for each list that holds it."""
    bits: dict[str, int] = {}
    languages = sorted(name for name in Mnemonic.list_languages() if not name.startswith("chinese"))
    for i, language in enumerate(languages):
        for word in Mnemonic(language).wordlist:
            key = unicodedata.normalize("NFC", word)
            bits[key] = bits.get(key, 0) | 1 << i
    return bits


def find(text: str) -> Iterator[tuple[int, int]]:
    """Where each seed phrase is: runs of SHORTEST or more words of one list, numbered or not ("1. witch
    2. collapse ...") and in whatever punctuation; written in small letters (or all capitals), as the
    lists are, so a run of words is broken by a capitalised one, which may start the next. Accented
    letters are read composed, as keyboards type them (the lists are stored decomposed)."""
    if len(text) < _TOO_SHORT:
        return
    # Most texts hold fewer than SHORTEST words of any list, counted without a loop of our own (lowering
    # the text once and reading it twice costs less than lowering each word).
    if sum(map(_lists().__contains__, _WORD.findall(text.lower()))) < SHORTEST:
        return
    # Runs are found on the words alone, and placed in the text only for the rare one found.
    runs = list(_runs(_WORD.findall(text)))
    if runs:
        spans = [m.span() for m in _WORD.finditer(text)]
        yield from ((spans[first][0], spans[last][1]) for first, last in runs)


def _runs(words: list[str]) -> Iterator[tuple[int, int]]:
    """The first and last index of each run of SHORTEST or more words of one list."""
    lists = _lists()
    first = count = shared = 0  # shared: the lists every word of the run so far is in
    for i, word in enumerate(words):
        lower = word.lower()
        bits = lists.get(lower, 0) if word == lower or word.isupper() else 0
        if bits and shared & bits:
            shared &= bits
            count += 1
            continue
        if count >= SHORTEST:
            yield first, i - 1
        shared = bits or (lists.get(lower, 0) if word[:1].isupper() else 0)
        first, count = i, 1 if shared else 0
    if count >= SHORTEST:
        yield first, len(words) - 1
