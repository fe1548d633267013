"""Names read across two statements: a chat message's lowercase names and a nickname ("Zo" for Zoe,
"Maxi" for Maximilian, "Basti" for Sebastian) written as the other statement writes the name.

People type chat messages in lower case and call each other by short names; the rules find a subject
by its capital letter and compare names by their spelling. A name the other statement gives settles
what such a word means, so each statement is rewritten with the other's spelling before it is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from hub.conflicts.judge import lexicon as lx
from hub.conflicts.judge.chat import speaker, speech
from hub.conflicts.judge.tokens import canon

_WORD = re.compile(r"[^\W\d_]{2,}")
# Endings by which a name is made a pet name: English Jimmy, Billy; German Maxi, Lenchen, Benni. Not
# "-ie" nor "-le", which as often make a name of its own ("Leonie" of Leon, "Nicole").
_PET_ENDINGS = ("chen", "lein", "erl", "y", "i")
# Words that are words before they are names: never read as a nickname of one.
_WORDS = (
    lx.STOPWORDS
    | lx.LEADING_SKIP
    | lx.NEGATORS
    | lx.UPDATE_CUES
    | lx.VERBS
    | lx.PERSON_NOUNS
    | set(lx.SYNONYMS)
    | set(lx.WEEKDAYS)
    | set(lx.MONTHS)
    | set(lx.NUMBER_WORDS)
    | set(lx.CLASS_OF)
)
# Endings that make one name of another: a sister's, not a pet name ("Paula" of Paul).
_MADE_FROM = {"a", "e", "ia", "ina", "ine", "ette"}
_MIN_PET_STEM = 3  # "Maxi" for Max; "Kai" is no pet name of Katrin


@lru_cache(maxsize=16384)
def _is_word(low: str) -> bool:
    return low in _WORDS or canon(low) in _WORDS  # "Thursdays", "Runs"


def _stem(word: str) -> str:
    for ending in _PET_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= _MIN_PET_STEM:
            stem = word[: -len(ending)]
            return stem[:-1] if len(stem) > _MIN_PET_STEM and stem[-1] == stem[-2] else stem  # "Benni"
    return word


@lru_cache(maxsize=65536)
def pet_name_of(short: str, name: str, inside: bool = False) -> bool:
    """Whether `short` is a pet name of `name`: the name begins with it ("Zo", Zoe; "Bis", Biscuit) or
    with its stem ("Maxi", Max or Maximilian; "Lenchen", Lena). With `inside`, a stem of three letters
    or more found inside the name counts too ("Basti", Sebastian; "Leni", Helene): only where people
    speak, as in a chat message, since in plain statements such a name as often names someone else
    ("Tali" / "Avital")."""
    s, n = short.lower(), name.lower()
    if s == n or _is_word(s):
        return False
    stem = _stem(s)
    if stem == s:  # no pet ending: a short form, unless the name is this one with a pet ending
        # or another name made from it ("Paul" / "Paula", "Jan" / "Jana", "Christian" / "Christiane")
        made = len(s) >= 3 and n[len(s) :] in _MADE_FROM
        return len(s) < len(n) and n.startswith(s) and _stem(n) != s and not made
    return n.startswith(stem) or (inside and len(stem) >= 3 and stem in n[1:])


def _spelling(word: str, names: frozenset[str], spoken: bool) -> str | None:
    """How the other statement writes the name `word` stands for, or None."""
    if word in names:
        return None
    low = word.lower()
    same = [name for name in names if name.lower() == low]
    if same:
        return same[0]
    if word.islower() and len(word) > 3 and _stem(low) == low:
        return None  # a longer lowercase word with no pet ending is a word ("run", Runners)
    longer = [name for name in names if pet_name_of(word, name, inside=spoken)]
    return longer[0] if len(longer) == 1 else None  # two names it could shorten: it names neither


@dataclass(frozen=True)
class _Reading:
    names: frozenset[str]  # capitalised words that may be names, with a chat message's speaker
    words: tuple[tuple[int, int, str], ...]  # words that may stand for a name, where they stand
    spoken: bool  # a chat message, or all in lower case: a lowercase word may be a name


@lru_cache(maxsize=4096)
def _read(text: str) -> _Reading:
    """A statement's names, and the words that may stand for another statement's; cached, as one
    memory meets many candidates."""
    by = speaker(text)
    after = len(text) - len(speech(text)) if by else 0  # where the message starts, after "Speaker: "
    spoken = by is not None or text.islower()
    names: set[str] = set(by.split()) if by else set()
    words = []
    for found in _WORD.finditer(text):
        word = found.group(0)
        low = word.lower()
        if _is_word(low):
            continue
        if word[0].isupper() and found.start() >= after:
            names.add(word)
        if word.islower() and not spoken:
            continue
        words.append((found.start(), found.end(), word))
    return _Reading(frozenset(names), tuple(words), spoken)


def _rewrite(text: str, reading: _Reading, names: frozenset[str]) -> str:
    if not names:
        return text
    parts, last = [], 0
    for start, end, word in reading.words:
        spelled = _spelling(word, names, reading.spoken)
        if spelled is not None:
            parts += [text[last:start], spelled]
            last = end
    return "".join(parts) + text[last:] if parts else text


def align(older: str, newer: str) -> tuple[str, str]:
    """Both statements with the names each gives spelled the same way on the other side."""
    old, new = _read(older), _read(newer)
    full_old = frozenset(n for n in old.names if not any(pet_name_of(n, m) for m in new.names))
    full_new = frozenset(n for n in new.names if not any(pet_name_of(n, m) for m in old.names))
    return _rewrite(older, old, full_new), _rewrite(newer, new, full_old)
