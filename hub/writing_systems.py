"""What BM25 reads of words in scripts its word tokenizer takes whole: Hebrew, Arabic, Chinese, Japanese, Korean.

The keyword half of search (`hub.sparse`: qdrant's BM25, word tokenizer, English stemming, accents
folded) finds "reunión" by "reunion", but reads a Hebrew or Arabic word whole, with the prefix letters
written onto it and any vowel marks, and a run of CJK characters, written without spaces, as a single
token. So "הבית" (the house) is not found by "בית", nor "نتنائيل" with harakat by the same name without,
nor "東京" inside "東京に住んでいる". Documents and queries are both rewritten here first, the way the
light analyzers of search engines do it (Lucene's Arabic normaliser and light stemmer, its CJK bigram
filter; no Hebrew stemmer ships with them, and the same light prefix stripping serves):

- Hebrew and Arabic: vowel marks, cantillation and the tatweel are dropped, and the quote marks of an
  acronym ("ד\"ר", "נתב״ג") joined into the word.
- Hebrew: each word is kept, and followed by its form without the prefix letters (ו ה ב כ ל מ ש) written
  onto it, stripped while at least three letters remain; both forms are indexed, so an exact form
  outranks a word that only shares its stem.
- Arabic: alef, taa marbuta and alef maqsura variants are unified; each word is kept and followed by
  its light stem (Larkey's light10: the conjunction و, the article and its attached prepositions, and
  common suffixes).
- Chinese, Japanese and Korean: each run of characters becomes its overlapping character pairs.

Text in any other script passes unchanged: English memories get the same BM25 vectors as before.
"""

from __future__ import annotations

import re

# Cantillation and niqqud, not the punctuation among them (maqaf, paseq, sof pasuq, nun hafukha).
_HEBREW_MARKS = "\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7"
_ARABIC_MARKS = "\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640"
_MARKS = re.compile(f"[{_HEBREW_MARKS}{_ARABIC_MARKS}]")
_HEBREW_LETTERS = "\u05d0-\u05ea"
# An acronym's quote marks sit between two Hebrew letters: ASCII quotes, geresh and gershayim.
_ACRONYM = re.compile(f"(?<=[{_HEBREW_LETTERS}])[\"'\u05f3\u05f4](?=[{_HEBREW_LETTERS}])")
_HEBREW_WORD = re.compile(f"[{_HEBREW_LETTERS}]+")
_ARABIC_WORD = re.compile("[\u0621-\u064a]+")
# Han, kana, Hangul syllables and jamo: scripts written without spaces between words.
_CJK_RUN = re.compile("[\u1100-\u11ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")

HEBREW_PREFIXES = frozenset("והבכלמש")
# A stem keeps at least this many letters: shorter, unrelated words would meet in it.
MIN_STEM = 3

_ARABIC_UNIFIED = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ة": "ه", "ى": "ي"})
_ARABIC_ARTICLES = ("وال", "بال", "كال", "فال", "لل", "ال")
_ARABIC_SUFFIXES = ("ها", "ان", "ات", "ون", "ين", "يه", "ه", "ي")


def for_bm25(text: str) -> str:
    """`text` as BM25 should read it: unchanged unless it has Hebrew, Arabic or CJK words."""
    if text.isascii():
        return text
    text = _MARKS.sub("", text)
    text = _ACRONYM.sub("", text)
    text = _HEBREW_WORD.sub(lambda m: _with_stem(m.group(), hebrew_stem(m.group())), text)
    text = _ARABIC_WORD.sub(lambda m: _arabic(m.group()), text)
    return _CJK_RUN.sub(lambda m: _bigrams(m.group()), text)


def hebrew_stem(word: str) -> str:
    """The word without the prefix letters written onto it, keeping at least MIN_STEM letters."""
    while len(word) > MIN_STEM and word[0] in HEBREW_PREFIXES:
        word = word[1:]
    return word


def arabic_stem(word: str) -> str:
    """Larkey's light10 stem of a unified word: و, then an article, then suffixes, each while enough is left."""
    if len(word) > MIN_STEM and word.startswith("و"):
        word = word[1:]
    for article in _ARABIC_ARTICLES:
        if word.startswith(article) and len(word) - len(article) >= 2:
            word = word[len(article) :]
            break
    for suffix in _ARABIC_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            word = word[: -len(suffix)]
    return word


def _arabic(word: str) -> str:
    unified = word.translate(_ARABIC_UNIFIED)
    return _with_stem(unified, arabic_stem(unified))


def _with_stem(word: str, stem: str) -> str:
    return word if stem == word else f"{word} {stem}"


def _bigrams(run: str) -> str:
    if len(run) < 2:
        return run
    return " ".join(run[i : i + 2] for i in range(len(run) - 1))
