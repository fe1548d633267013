"""Secrets said in words, read by a model learned from labelled sentences rather than by word lists.

The rules of `hub.secrets` read a secret where a language's table names it ("el PIN es 7733"); people
say them many more ways. This model reads every value-shaped token (digits, digits said as words, or
letters with a symbol) with the characters around it: character n-grams of what comes before and after,
which carry "código", "Kennwort", "пароль" or "קוד" in any inflection, those of the few words just before
it again on their own, and the value's shape and length, hashed into a fixed number of columns (numpy
only at run time). It reads a phrase of plain words too, where a sentence gives one (after a colon, a
dash, "is", or in quotes; or before any of these), with the phrase's own words. Two multinomial logistic regressions over those, one
for tokens and one for phrases, trained by `training/secret_detector.py` on the project's labelled sentences
(`tests/data/secrets_i18n.jsonl`, all but its blind halves, and `training/data/secrets_train.jsonl`) and
on real chat messages as look-alikes, say which kind of secret a value is, or none.
`hub.secrets.find_secrets(text, said=True)` asks it only where no rule found anything, and only of what a
person said or wrote (a memory's text, its context, a note).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
import zlib
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from hub.secret_languages import LANGUAGES
from hub.writing_systems import HEBREW_PREFIXES

FOLDER = Path(__file__).parent / "secret_model"
# The lowest of 0.5, 0.55, ... 0.95 at which the held-out look-alikes the model refuses in
# `python -m training.secret_detector --cv` are at most 1%, and of REALTALK's even conversations and the
# project's own memories none that the model trained on everything, the one that ships, refuses.
THRESHOLD = 0.80
# For a phrase of words (`phrases`): the lowest of the same at which the halves of the labelled set held
# out in turn, screened as the hub screens (`python -m training.secret_detector --halves`), have at most
# 1% of their look-alikes refused, and of REALTALK's even conversations and the project's own memories none
# that the model that ships refuses.
PHRASE_THRESHOLD = 0.50
NONE = "none"
REDACTED = "REDACTED:"
_LETTER = re.compile(r"[^\W\d_]")
# Tokens read per text, at most, and as many phrases: a secret said in words sits in a sentence, not in
# a page of tokens, and the cost of a text stays bounded whatever it holds.
MAX_VALUES = 16
LEFT, RIGHT = 60, 25  # characters read before and after a value
# A token with a digit, or letters with a symbol ("Sonne99!", "Luna.Llena.12", "tortuga_azul"): plain
# words are never values here, which keeps the model off most of a chat's text.
VALUE = re.compile(r"[*#]?(?=\S{0,63}?[\d!@$%&_*#])[^\s,;()\[\]\"«»“”]{3,64}")


# Numbers read out one or two digits at a time ("the pin is 4 4 1 8", a dial's "10 20 30"), as a
# voice assistant transcribes them or a person reads a combination: one value.
DICTATED = re.compile(r"(?<!\w)\d{1,2}(?: \d{1,2}){2,}(?!\w)")
# Hebrew's one-letter prefixes ("to", "in", "and", ...) join a number with a maqaf or a hyphen: "ל־2205".
_HEBREW_PREFIX = re.compile(f"[{''.join(sorted(HEBREW_PREFIXES))}]{{1,3}}[\u05be-](?=\\d)")


def _closes(char: str) -> bool:
    """Punctuation that ends a sentence or a clause after a value: ASCII's ".:!?", any other script's."""
    return char in ".:!?" or (ord(char) > 127 and unicodedata.category(char).startswith("P"))


# Digits said as words, one at a time, three or more ("cuatro siete siete uno", "drei-null-acht-fünf",
# "dois, seis, um"): the model reads them as the digits they are, read out one by one.
_DIGIT_WORDS = {
    form.casefold(): str(digit)
    for language in LANGUAGES
    for digit, words in enumerate(language.digits)
    for form in words.split("|")
}
_DIGIT_WORD = "|".join(map(re.escape, sorted(_DIGIT_WORDS, key=len, reverse=True)))
_SPELLED = re.compile(
    rf"(?<!\w)(?:{_DIGIT_WORD})(?:(?:\s*[,،]\s*|\s+|[-–])(?:{_DIGIT_WORD})){{2,}}(?!\w)", re.IGNORECASE
)
_DIGIT_WORD_ONE = re.compile(rf"(?<!\w)(?:{_DIGIT_WORD})(?!\w)", re.IGNORECASE)


def spelled(text: str) -> tuple[str, list[tuple[int, int, int, int]]]:
    """The text with each run of digits said as words written as digits ("0 3 0 3"), and where each run
    was and is: (start, end) in the text, (start, end) in what is returned."""
    out, runs, last, shift = [], [], 0, 0
    for match in _SPELLED.finditer(text):
        digits = " ".join(_DIGIT_WORDS[word.casefold()] for word in _DIGIT_WORD_ONE.findall(match.group(0)))
        out += [text[last : match.start()], digits]
        start = match.start() + shift
        runs.append((match.start(), match.end(), start, start + len(digits)))
        shift += len(digits) - (match.end() - match.start())
        last = match.end()
    return "".join(out) + text[last:], runs


def _unspelled(position: int, runs: list[tuple[int, int, int, int]], end: bool) -> int:
    """Where a position of `spelled`'s text is in the text it was made from: inside a run, the run's
    start or end."""
    shift = 0
    for start, stop, new_start, new_stop in runs:
        if position < new_start or (end and position == new_start):
            break
        if position < new_stop or (end and position == new_stop):
            return stop if end else start
        shift = stop - new_stop
    return position + shift


def candidates(text: str) -> list[tuple[int, int, str]]:
    """Every value-shaped token, every run of dictated digits and every phrase given as something:
    (start, end, value), in order, end punctuation (of any script) and a Hebrew prefix left out."""
    found = [(match.start(), match.end(), match.group(0)) for match in DICTATED.finditer(text)]
    found += phrases(text)
    for match in VALUE.finditer(text):
        start, value = match.start(), match.group(0)
        prefix = _HEBREW_PREFIX.match(value)
        if prefix:
            start, value = start + prefix.end(), value[prefix.end() :]
        while value and _closes(value[-1]):
            value = value[:-1]
        if len(value) >= 3:
            found.append((start, start + len(value), value))
    return sorted(found)


# A passphrase of plain words has no shape of its own: it is read where a sentence gives something, after
# a colon (French sets it apart: " : "), an equals sign, a dash or an arrow, inside quotes, or after a
# covered language's "is", to the end of its clause; and before any of these, from the start of its
# clause ("blue gull over Kiel is the passphrase"). Whether the words around it name a passphrase is the
# model's to learn, as for any value.
PHRASE_WORDS = (2, 10)
PHRASE_CHARS = 200  # a clause is looked for this far, so that a page of givers costs what a sentence does
# The "is" of each language whose tables name every kind (those that name PINs), not of those that name
# passwords only, whose "to", "on" and "er" would give a phrase after every other English word.
_COPULAS = sorted(
    {word for language in LANGUAGES if language.pins for word in language.copulas if " " not in word},
    key=len,
    reverse=True,
)
_GIVEN = re.compile(
    r"(?:(?<=\S)\s?[:=]|\s[-–—]+>?|->|→|^[-–—]|(?<!\w)(?:" + "|".join(map(re.escape, _COPULAS)) + r"))\s+",
    re.IGNORECASE | re.MULTILINE,
)
_WORD = re.compile(r"\S+")
# What ends a clause: the sentence punctuation, brackets and quotes of any script, a line, a spaced dash;
# and a comma of any script, which ends one too unless it lists words (`_LISTED`).
CLAUSE_MARKS = '.;!?()[]\n"«»“”„؛؟。！？；'
COMMAS = ",،、，"
_CLAUSE_END = re.compile(rf"[{re.escape(CLAUSE_MARKS + COMMAS)}]|\s[-–—]\s|$")
# Words listed one by one between commas ("pomme, tiroir, nuage, violon"): one phrase, not its first word.
_LISTED = re.compile(r"[^\W\d_][\w'-]*(?:[,،]\s*[^\W\d_][\w'-]*){2,}")
# Words inside a pair of quotes of any kind, the opening one after a space, a colon or nothing.
_QUOTES = (("«", "»"), ("»", "«"), ('"', '"'), ("“", "”"), ("„", "“"), ("„", "”"), ("'", "'"), ("‘", "’"))
_QUOTED = re.compile(
    r"(?:^|(?<=[\s:(]))(?:"
    + "|".join(f"{re.escape(open_)}([^{re.escape(close)}\n]+){re.escape(close)}" for open_, close in _QUOTES)
    + r")(?!\w)"
)


def _words(text: str, start: int, end: int) -> tuple[int, int, str] | None:
    """The span's words, stripped of spaces and closing punctuation, if it has as many as a phrase."""
    value = text[start:end]
    stripped = value.lstrip()
    start += len(value) - len(stripped)
    value = stripped.rstrip()
    while value and _closes(value[-1]):
        value = value[:-1].rstrip()
    words = value.split()
    low, high = PHRASE_WORDS
    if not low <= len(words) <= high or not _LETTER.search(value):
        return None
    return start, start + len(value), value


def phrases(text: str) -> list[tuple[int, int, str]]:
    """Every run of words given as something (see `PHRASE_WORDS`): (start, end, value), in order."""
    found = set()
    for match in _QUOTED.finditer(text):
        group = next(g for g in range(1, len(_QUOTES) + 1) if match.group(g) is not None)
        span = _words(text, match.start(group), match.end(group))
        if span:
            found.add(span)
    given = 0  # where the last giver ended: the words before the next one start there at the earliest
    for match in _GIVEN.finditer(text):
        before = _before(text, max(given, match.start() - PHRASE_CHARS), match.start())
        given = match.end()
        if before:
            found.add(before)
        start = match.end()
        if start < len(text) and text[start] in "«»\"“„'‘":
            continue  # quoted: read above, inside its quotes
        clause = _CLAUSE_END.search(text, start + 1, start + PHRASE_CHARS)
        end = clause.start() if clause else min(len(text), start + PHRASE_CHARS)
        stops = [end]
        if listed := _LISTED.match(text, start, start + PHRASE_CHARS):
            stops.append(listed.end())
        for stop in stops:
            span = _words(text, start, _first_words(text, start, stop))
            if span:
                found.add(span)
    return sorted(found)


def _first_words(text: str, start: int, end: int) -> int:
    """Where the span's first `PHRASE_WORDS` words end."""
    words = list(_WORD.finditer(text, start, end))
    return words[PHRASE_WORDS[1] - 1].end() if len(words) > PHRASE_WORDS[1] else end


def _before(text: str, start: int, end: int) -> tuple[int, int, str] | None:
    """The words of the clause that ends at `end`, from its start (`start` at the earliest): what a giver
    that follows gives."""
    for clause in _CLAUSE_END.finditer(text, start, end):
        if clause.end() < end:
            start = clause.end()
    words = list(_WORD.finditer(text, start, end))
    if len(words) > PHRASE_WORDS[1]:
        start = words[-PHRASE_WORDS[1]].start()
    return _words(text, start, end)


def is_phrase(value: str) -> bool:
    """A candidate of words (`phrases`), rather than a token or dictated digits."""
    return " " in value and bool(_LETTER.search(value))


def shape(value: str) -> str:
    """The value's shape: digits as 9, letters as a or A, runs kept to two ("A999" for "B7391")."""
    marked = re.sub(r"[A-Z]", "A", re.sub(r"[a-z]", "a", re.sub(r"\d", "9", value)))
    return "^" + re.sub(r"(.)\1+", r"\1\1", marked) + "$"


NEAR = 20  # characters just before and just after a value, read again on their own: the words that name it
# Each part of a row hashed into its own range of columns: (offset, bits, n-gram sizes, weight).
_LEFT = (0, 16, (2, 5), 1.0)
_RIGHT = (2**16, 14, (2, 4), 0.5)
_SHAPE = (2**16 + 2**14, 12, (1, 3), 1.0)
_NEAR = (2**16 + 2**14 + 2**12, 14, (2, 4), 1.0)
_NEAR_AFTER = (_NEAR[0] + 2**14, 14, (2, 4), 1.0)
_LENGTH = _NEAR_AFTER[0] + 2**14  # one column per length bucket (`_LENGTHS`)
# Upper bounds of the value's length buckets: a PIN's 4, a code's 3 to 8, a password's 8 and more.
_LENGTHS = (3, 4, 5, 6, 8, 10, 12, 16, 24, 64)
# A phrase's own words, hashed: "in", "de", "written", "palabras" say it is prose about a passphrase,
# not one, in words no table lists.
_WORDS = (_LENGTH + len(_LENGTHS), 14)
WIDTH = _WORDS[0] + 2 ** _WORDS[1]


def _hashed(text: str, part: tuple[int, int, tuple[int, int], float], row: dict[int, float]) -> None:
    """Add the part's character n-grams to `row`, hashed (crc32: the same in every process) and
    scaled to unit length, as the column index -> value of a sparse row."""
    offset, bits, (low, high), weight = part
    padded, mask = f" {text} ", (1 << bits) - 1
    # An ASCII text's characters are its bytes: slicing it once encoded hashes the same n-grams.
    if padded.isascii():
        encoded = padded.encode()
        grams = (encoded[i : i + n] for n in range(low, high + 1) for i in range(len(padded) - n + 1))
    else:
        chars = [char.encode() for char in padded]
        grams = (b"".join(chars[i : i + n]) for n in range(low, high + 1) for i in range(len(padded) - n + 1))
    counts = Counter(zlib.crc32(gram) & mask for gram in grams)
    norm = math.sqrt(sum(v * v for v in counts.values())) or 1.0
    for column, count in counts.items():
        row[offset + column] = row.get(offset + column, 0.0) + weight * count / norm


def features(text: str, start: int, end: int, value: str) -> dict[int, float]:
    """One sparse row: what comes before the value and after it (and, again, just before and just after
    it), and the value's shape and length."""
    row: dict[int, float] = {}
    _hashed(text[max(0, start - LEFT) : start].casefold(), _LEFT, row)
    _hashed(text[end : end + RIGHT].casefold(), _RIGHT, row)
    _hashed(shape(value), _SHAPE, row)
    _hashed(text[max(0, start - NEAR) : start].casefold(), _NEAR, row)
    _hashed(text[end : end + NEAR].casefold(), _NEAR_AFTER, row)
    row[_LENGTH + min(bisect_left(_LENGTHS, len(value)), len(_LENGTHS) - 1)] = 1.0
    if is_phrase(value):
        words = value.casefold().split()
        offset, bits = _WORDS
        for word in words:
            column = offset + (zlib.crc32(word.encode()) & ((1 << bits) - 1))
            row[column] = row.get(column, 0.0) + 1.0 / math.sqrt(len(words))
    return row


def _word_around(text: str, start: int, end: int) -> str:
    """The whitespace-delimited word that holds text[start:end]."""
    left = max(text.rfind(" ", 0, start), text.rfind("\n", 0, start)) + 1
    right = min((i for i in (text.find(" ", end), text.find("\n", end)) if i >= 0), default=len(text))
    return text[left:right]


def readable(text: str) -> list[tuple[int, int, str]]:
    """The values the model reads in text: (start, end, value), at most `MAX_VALUES` tokens and as many
    phrases, so that the many phrases of a long text crowd out none of its tokens."""
    # A secret said in words has words that name it, before it or after it ("Kx9!mq72 is my Netflix password");
    # a bare number has none. What a redaction left of a word is the rest of a secret already replaced.
    found = [
        (start, end, value)
        for start, end, value in candidates(text)
        if (_LETTER.search(text, max(0, start - LEFT), start) or _LETTER.search(text, end, end + RIGHT))
        and REDACTED not in _word_around(text, start, end)
    ]
    tokens = [value for value in found if not is_phrase(value[2])][:MAX_VALUES]
    return sorted(tokens + [value for value in found if is_phrase(value[2])][:MAX_VALUES])


@dataclass(frozen=True)
class Classifier:
    """A multinomial logistic regression over `features`: which kind of secret a value is, or none."""

    coef: np.ndarray  # (kinds, features)
    intercept: np.ndarray
    kinds: tuple[str, ...]  # NONE among them
    threshold: float

    def probabilities(self, items: list[tuple[str, int, int, str]]) -> np.ndarray:
        out = np.zeros((len(items), len(self.kinds)), dtype=np.float32)
        for i, item in enumerate(items):
            row = features(*item)
            columns = np.fromiter(row.keys(), dtype=np.int64, count=len(row))
            values = np.fromiter(row.values(), dtype=np.float32, count=len(row))
            scores = self.coef[:, columns] @ values + self.intercept
            scores = np.exp(scores - scores.max())
            out[i] = scores / scores.sum()
        return out

    def secrets(self, text: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        """(start, end, kind) of each of the values found that it reads as a secret."""
        if not found:
            return []
        rows = self.probabilities([(text, start, end, value) for start, end, value in found])
        none = self.kinds.index(NONE)
        out = []
        for (start, end, _), row in zip(found, rows, strict=True):
            if 1.0 - row[none] >= self.threshold:
                row = row.copy()
                row[none] = -1.0
                out.append((start, end, self.kinds[int(row.argmax())]))
        return out


@dataclass(frozen=True)
class StatedSecretModel:
    """Two classifiers: one for tokens, one for phrases of words, each learned from its own examples, so
    that what phrases teach moves no token's verdict."""

    tokens: Classifier
    phrases: Classifier

    @classmethod
    def load(cls, folder: Path = FOLDER) -> StatedSecretModel:
        config = json.loads((folder / "config.json").read_text())
        with np.load(folder / "weights.npz") as saved:
            return cls(
                Classifier(
                    saved["coef"].astype(np.float32),
                    saved["intercept"].astype(np.float32),
                    tuple(config["kinds"]),
                    THRESHOLD,
                ),
                Classifier(
                    saved["phrase_coef"].astype(np.float32),
                    saved["phrase_intercept"].astype(np.float32),
                    tuple(config["phrase_kinds"]),
                    PHRASE_THRESHOLD,
                ),
            )

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, kind) of each value the model reads as a secret, in order."""
        said, runs = spelled(text)
        found = readable(said)
        tokens = [value for value in found if not is_phrase(value[2])]
        phrases = [value for value in found if is_phrase(value[2])]
        secrets = self.tokens.secrets(said, tokens) + self.phrases.secrets(said, phrases)
        return sorted(
            (_unspelled(start, runs, end=False), _unspelled(end, runs, end=True), kind)
            for start, end, kind in secrets
        )


@cache
def model() -> StatedSecretModel:
    return StatedSecretModel.load()
