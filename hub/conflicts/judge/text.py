"""A free-text statement read into parts: subject, frame (what is said of it), values, polarity, cues."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from hub.conflicts.judge import lexicon as lx
from hub.conflicts.judge.chat import as_speaker, speaker, speech
from hub.conflicts.judge.subject import OWNER, Subject, find_subject
from hub.conflicts.judge.tokens import Token, canon, tokenize
from hub.conflicts.judge.values import Value, extract

# Verbs after which "from X to Y" gives the old value X.
_CHANGE_VERBS = {"switched", "moved", "changed", "replaced", "transferred", "went", "swapped", "upgraded"}
_COPULAS = {"is", "am", "are", "was", "were", "be", "been", "became", "become", "a", "an", "not", "stays"}
_OWNER_WORDS = lx.OWNER_PRONOUNS | lx.OWNER_POSSESSIVES
_CUES = lx.NEGATORS | lx.UPDATE_CUES
_DROP = lx.STOPWORDS | lx.ADDITIVE_CUES | lx.GENERIC_NOUNS | lx.HEDGES


@dataclass(frozen=True)
class Parsed:
    text: str
    subject: Subject
    frame: frozenset[str]  # folded content words of the predicate, class words as "<class>"
    values: tuple[Value, ...]
    negative: bool
    update: bool  # the statement reports a change ("moved to", "no longer", "now")
    replaced: tuple[Value, ...]  # values it says were replaced ("moved from Harel to Migdal": Harel)
    additive: bool  # "also", "too": a further value, not a replacement
    content: frozenset[str]  # every folded content word, subject included
    about: frozenset[str] = frozenset()  # what it is about: "Eli's swimming lessons": eli, swimming, lesson
    negated: frozenset[str] = frozenset()  # the words a negation is said of ("no arguing": argu)
    # The alternative it does not take: "prefers voice notes over long texts" says nothing for long texts.
    passed_over: frozenset[str] = frozenset()


def _old_span(tokens: Sequence[Token]) -> set[int]:
    """Token indices holding a value that the statement says was replaced."""
    lows = [t.low for t in tokens]
    for i, low in enumerate(lows):
        if low in _CHANGE_VERBS and "from" in lows[i + 1 : i + 3]:
            start = lows.index("from", i + 1)
            stop = next((j for j in range(start + 1, len(lows)) if lows[j] in ("to", "for")), len(lows))
            return set(range(start + 1, stop))
        if low == "instead" and i + 1 < len(lows) and lows[i + 1] == "of":
            return set(range(i + 2, len(lows)))
    return set()


def _expands(tokens: Sequence[Token], i: int) -> bool:
    """Whether an expanding word is the predicate ("is vegetarian"), not a modifier ("vegetarian meals")."""
    return tokens[i].low in lx.EXPANSIONS and any(t.low in _COPULAS for t in tokens[max(0, i - 2) : i])


def _negated(tokens: Sequence[Token], skip: set[int]) -> frozenset[str]:
    """The first content words after each negating word in its clause, and what an expanding word
    denies ("vegetarian": eat, meat)."""
    words: set[str] = set()
    for i, tok in enumerate(tokens):
        if i in skip:
            continue
        if _expands(tokens, i):
            words.update(lx.EXPANSIONS[tok.low])
        elif tok.low in lx.NEGATORS or tok.low == "used":
            words.update(_words_after(tokens, i))
    return frozenset(words)


_NEGATED_WORDS = 3


def _words_after(tokens: Sequence[Token], i: int) -> list[str]:
    """The first content words after token `i`, in its clause: what a "not" or an "over" is said of."""
    said: list[str] = []
    for after in tokens[i + 1 :]:
        if after.kind == "comma" or len(said) >= _NEGATED_WORDS:
            break
        said.extend(_frame_words(after) if after.kind == "word" else ())
    return said


def _passed_over(tokens: Sequence[Token]) -> frozenset[str]:
    """The first content words after "over", "rather than" or "instead of", in their clause."""
    lows = [t.low for t in tokens]
    return frozenset(
        word
        for i, low in enumerate(lows)
        if low == "over" or (i and (lows[i - 1], low) in (("rather", "than"), ("instead", "of")))
        for word in _words_after(tokens, i)
    )


def _polarity_count(tokens: Sequence[Token], skip: set[int]) -> int:
    count = 0
    for i, tok in enumerate(tokens):
        if i in skip:
            continue
        if tok.low in lx.NEGATORS or _expands(tokens, i):
            count += 1
        elif tok.low == "used" and i + 1 < len(tokens) and tokens[i + 1].low == "to":
            count += 1  # "used to work at Intel": not any more
    return count


def _additive(tokens: Sequence[Token]) -> bool:
    """Whether a statement adds a value ("also", "too"); "too" before a word is "overly" ("too hectic")."""
    for i, tok in enumerate(tokens):
        overly = tok.low == "too" and i + 1 < len(tokens) and tokens[i + 1].kind == "word"
        if tok.low in lx.ADDITIVE_CUES and not (overly and tokens[i + 1].low not in ("and", "but")):
            return True
    return False


def _frame_words(tok: Token) -> list[str]:
    words = []
    for part in tok.low.split("-"):
        if part not in lx.SYNONYMS and (part in _DROP or part in _CUES):
            continue
        word = canon(part)
        if word and word not in _DROP and not word.isdigit():
            words.append(word)
    return words


@lru_cache(maxsize=4096)
def parse(text: str) -> Parsed:
    """Read a statement; cached, as one memory meets many candidates."""
    # A chat message is about what its speaker says, not about the speaker: "Marcus: netflix went up".
    said, by = speech(text), speaker(text)
    tokens = tokenize(said) if by is None else as_speaker(tokenize(said), by)
    found = find_subject(tokens)
    values, used = extract(tokens, found.span)
    old = _old_span(tokens)
    replaced = tuple(v for v in values if v.index in old)
    values = [v for v in values if v.index not in old]
    class_at = {v.index: v.kind for v in values if v.kind.startswith("class:")}
    frame: set[str] = set()
    for i, tok in enumerate(tokens):
        if i in class_at:
            frame.add("<" + class_at[i][6:] + ">")
        elif tok.kind in ("word", "pair") and i not in used and i not in found.span:
            frame.update(_frame_words(tok))
            if tok.low in lx.NEGATED_VERBS:  # "hates phone calls": what it negates is liking them
                frame.add(lx.NEGATED_VERBS[tok.low])
            if _expands(tokens, i):
                frame.update(lx.EXPANSIONS[tok.low])
    about = set(found.subject.words)
    for i in (*found.span, *found.attribute):
        about.update(_frame_words(tokens[i]))
    content = set(frame) | about
    if found.subject.key:
        about.update(found.subject.key.replace(">", " ").replace("+", " ").split())
        content.update(about)
    for value in values:
        content.update(value.keys if value.kind == "name" or value.kind.startswith("class:") else ())
    if any(t.low in _OWNER_WORDS or t.low in lx.HOUSEHOLD for t in tokens):
        content.add(OWNER)
    if by is not None and (found.subject.key or found.subject.words):
        # The thing a speaker names is theirs: "Lakshmi: the library yoga is on tuesdays" (Lakshmi's
        # yoga). A message naming nothing ("so skip it once") is tied to no one by its speaker alone.
        content.update(by.lower().split())
    lows = {t.low for i, t in enumerate(tokens) if i not in found.span}
    return Parsed(
        text=text,
        subject=found.subject,
        frame=frozenset(frame),
        values=tuple(values),
        negative=_polarity_count(tokens, found.span) % 2 == 1,
        update=bool(lows & lx.UPDATE_CUES) or "used" in lows,
        replaced=replaced,
        additive=_additive(tokens),
        content=frozenset(content),
        negated=_negated(tokens, found.span),
        about=frozenset(about),
        passed_over=_passed_over(tokens),
    )
