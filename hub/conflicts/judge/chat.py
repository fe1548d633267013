"""A chat message's speaker: "Priya: ok so swimming is thursdays from now on" is said by Priya, of
swimming; her "my" and "I" are hers, not the owner's.

A name before a colon may also label what follows, as the People section of a MEMORY.md does:
"Grandma Ruth: Omer's mother, picks Noa up on Tuesdays" is about Ruth, said by no one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hub.conflicts.judge import lexicon as lx
from hub.conflicts.judge.tokens import Token, first_sentence, is_verb, tokenize

_SPEAKER = re.compile(r"^\s*([A-Z][\w'.-]*(?:\s[A-Z][\w'.-]*)?):\s+")
# A leading "Note:" or "Remember:" labels a statement; no one speaks it.
_NOT_SPEAKERS = lx.LEADING_SKIP | lx.STOPWORDS
_SPEAKER_SELF = {"i", "me", "myself"}
_SPEAKER_OWN = {"my", "mine"}
_FIRST_PERSON = _SPEAKER_SELF | _SPEAKER_OWN | lx.OWNER_PRONOUNS | lx.OWNER_POSSESSIVES
_APPOSITION_WORDS = 5  # "Tali's partner", "a nurse at Rambam": a description, not a clause


def _describes(said: str) -> bool:
    """Whether the words after "Name:" describe the name: one or more short phrases with no verb, each
    closed by a comma, then a verb with no subject of its own ("Omer's mother, picks Noa up on
    Tuesdays"). A message ("netflix went up", "swimming, it's thursdays now", "i moved my flight")
    has a subject of its own, or speaks in the first person."""
    tokens = tokenize(said)
    if any(tok.low in _FIRST_PERSON for tok in tokens):
        return False
    phrases = 0
    clause: list[str] = []
    for tok in tokens:
        if tok.kind == "comma":
            if not clause or len(clause) > _APPOSITION_WORDS:
                return False
            phrases, clause = phrases + 1, []
            continue
        if tok.low in lx.AUX or is_verb(tok.low):
            return phrases > 0 and not clause  # a verb opening a clause, after a description
        clause.append(tok.low)
    return False


def _description(said: str) -> str | None:
    """The words after "Name:" as one sentence when they describe the name, or None. A MEMORY.md often
    closes the description with a full stop: "Yael's husband. Works at Intel" is read as "Yael's
    husband, works at Intel"."""
    if _describes(said):
        return said
    first = first_sentence(said)
    rest = said[len(first) :].lstrip(" .").strip()
    joined = f"{first}, {rest[:1].lower()}{rest[1:]}"
    return joined if rest and _describes(joined) else None


def _named(text: str) -> re.Match[str] | None:
    """A leading "Name: " that is not a label such as "Note:"."""
    found = _SPEAKER.match(text)
    if found is None or found.group(1).split()[0].lower() in _NOT_SPEAKERS:
        return None
    return found


def speech(text: str) -> str:
    """A memory's words without a chat message's leading "Speaker:"; a labelled description is read
    as one sentence ("Ruth: Omer's mother, picks ..." as "Ruth, Omer's mother, picks ...")."""
    found = _named(text)
    if found is None:
        return _SPEAKER.sub("", text, count=1)
    said = text[found.end() :]
    described = _description(said)
    return said if described is None else f"{found.group(1)}, {described}"


def speaker(text: str) -> str | None:
    """Who speaks a chat message ("Priya: ..."), or None (no name, or a name labelling a description)."""
    found = _named(text)
    if found is None or _description(text[found.end() :]) is not None:
        return None
    return found.group(1)


def as_speaker(tokens: Sequence[Token], name: str) -> list[Token]:
    """The speaker named for the first person singular: "my flight" is Lakshmi's flight."""
    named = [Token(word, word.lower(), "word", True) for word in name.split()]
    out: list[Token] = []
    for tok in tokens:
        if tok.low in _SPEAKER_SELF:
            out.extend(named)
        elif tok.low in _SPEAKER_OWN:
            out.extend([*named, Token("'s", "'s", "poss", False)])
        else:
            out.append(tok)
    return out
