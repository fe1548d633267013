"""Tokenising a statement: contractions spelled out, possessives split, numbers and times kept whole."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from hub.conflicts.judge import lexicon as lx

_CONTRACTIONS = [
    (re.compile(r"\bcan't\b", re.I), "can not"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"n't\b", re.I), " not"),
    (re.compile(r"'m\b", re.I), " am"),
    (re.compile(r"'re\b", re.I), " are"),
    (re.compile(r"'ve\b", re.I), " have"),
    (re.compile(r"'ll\b", re.I), " will"),
    (re.compile(r"\b(it|that|there|he|she|what|who)'s\b", re.I), r"\1 is"),
    (re.compile(r"(\w)'s\b"), r"\1 's"),
    (re.compile(r"(\w)s'(?=\s|$|[,.;])"), r"\1s 's"),
]

_TOKEN = re.compile(
    r"""
    (?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)
   |(?P<ident>\d+(?:-\d+)+)(?![-\w])
   |(?P<ampm>\d{1,2}(?::\d{2})?\s?(?:a\.m\.|p\.m\.|am|pm))(?!\w)
   |(?P<time>\d{1,2}:\d{2})(?![\d:])
   |(?P<pair>\d+:\d+)
   |(?P<blood>(?-i:AB|A|B|O)[+-])(?![\w+-])
   |(?P<ordinal>\d+(?:st|nd|rd|th))\b
   |(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+[.,]\d{1,2}(?![\d,])|\d+(?:\.\d+)?)
   |(?P<poss>'s\b)
   |(?P<word>[^\W\d_](?:[^\W\d_]|')*(?:-(?:[^\W\d_]|')+)*)
   |(?P<sym>[₪$£€])
   |(?P<comma>[,;:])
    """,
    re.X | re.I,
)

# A blood type written in words is the same value as its sign: "O negative", "O-negative" and "O-".
_BLOOD = re.compile(r"\bblood\b", re.I)
_BLOOD_IN_WORDS = re.compile(r"(?<![\w-])(AB|A|B|O)[\s-]((?i:positive|negative))\b")

_SENTENCE_END = re.compile(r"(?<=[a-z0-9)])[.!?](?:\s+|$)")
_TITLES = ("dr", "mr", "mrs", "ms", "prof", "st")


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    low: str
    kind: str  # word, num, ordinal, time, ampm, pair, ident, email, blood, poss, sym, comma
    cap: bool


def tokenize(text: str) -> list[Token]:
    """The tokens of a statement's first sentence."""
    return _tokens(first_sentence(_straight_quotes(text).strip()))


def _straight_quotes(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


def _tokens(text: str) -> list[Token]:
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    if _BLOOD.search(text):
        text = _BLOOD_IN_WORDS.sub(
            lambda m: m.group(1) + ("+" if m.group(2).lower() == "positive" else "-"), text
        )
    tokens = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "word"
        raw = match.group(kind)
        tokens.append(Token(raw, raw.lower(), kind, raw[:1].isupper()))
    return tokens


def first_sentence(text: str) -> str:
    """A memory may hold several sentences; the first carries the claim ("Dr." does not end one)."""
    return text[: next(_sentence_ends(text), len(text))]


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence that holds `text[start:end]`, without its full stop."""
    ends = list(_sentence_ends(text))
    first = max((e for e in ends if e < start), default=-1) + 1
    return text[first : next((e for e in ends if e >= end), len(text))].strip()


def _sentence_ends(text: str) -> Iterator[int]:
    """Where each sentence of `text` ends: its full stop, question or exclamation mark."""
    for match in _SENTENCE_END.finditer(text):
        words = text[: match.start()].split()
        if not words or words[-1].lower() not in _TITLES:
            yield match.start()


_LETTERS = re.compile(r"[^\W\d_]+")  # letters, "Jürgen" whole; "lisbon-trip" is two words


def letter_words(text: str) -> set[str]:
    """Every run of letters in `text`, casefolded, unfolded otherwise (names as they are written)."""
    return {w.casefold() for w in _LETTERS.findall(text)}


@lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """The folded words and numbers of a whole text (every sentence), function words left out; cached,
    as one memory meets many candidates."""
    return frozenset(
        {
            canon(t.low) if t.kind == "word" else t.low
            for t in _tokens(_straight_quotes(text))
            if t.kind not in ("poss", "comma", "sym")
            and t.low not in lx.STOPWORDS
            and t.low not in lx.NEGATORS
        }
    )


def canon(word: str) -> str:
    """A word folded for comparison: synonyms merged, plural and possessive endings dropped."""
    word = word.lower().strip("'")
    if word in lx.SYNONYMS:
        return lx.SYNONYMS[word]
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and len(word) > 3 and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    return lx.SYNONYMS.get(word, word)


@lru_cache(maxsize=65536)
def words_match(a: str, b: str) -> bool:
    """Two folded words name the same thing: equal, or one is a stem of the other (allergy, allergic)."""
    if a == b:
        return True
    if "-" in a or "-" in b:  # "wi-fi" is "wifi"
        a, b = a.replace("-", ""), b.replace("-", "")
        if a == b:
            return True
    short, long_ = sorted((a, b), key=len)
    if len(short) < 4:
        return False
    common = 0
    for x, y in zip(short, long_, strict=False):
        if x != y:
            break
        common += 1
    return common == len(short) or common >= max(4, int(0.7 * len(short) + 0.5))


def is_verb(low: str) -> bool:
    """A likely verb form of a word the lexicon knows as a verb (lives, moved, coming)."""
    if low in lx.VERBS:
        return True
    # -ing forms are left out: inside a noun phrase they are modifiers ("swimming class").
    for suffix in ("s", "es", "ed", "d"):
        stem = low[: -len(suffix)]
        if low.endswith(suffix) and (stem in lx.VERBS or stem + "e" in lx.VERBS or stem[:-1] in lx.VERBS):
            return True
    return False
