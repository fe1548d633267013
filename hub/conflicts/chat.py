"""A chat message's speaker: "Priya: ok so swimming is thursdays from now on" is said by Priya, of
swimming; her "my" and "I" are hers, not the owner's."""

from __future__ import annotations

import re
from collections.abc import Sequence

from hub.conflicts import lexicon as lx
from hub.conflicts.tokens import Token

_SPEAKER = re.compile(r"^\s*([A-Z][\w'.-]*(?:\s[A-Z][\w'.-]*)?):\s+")
# A leading "Note:" or "Remember:" labels a statement; no one speaks it.
_NOT_SPEAKERS = lx.LEADING_SKIP | lx.STOPWORDS
_SPEAKER_SELF = {"i", "me", "myself"}
_SPEAKER_OWN = {"my", "mine"}


def speech(text: str) -> str:
    """A memory's words without a chat message's leading "Speaker:"."""
    return _SPEAKER.sub("", text, count=1)


def speaker(text: str) -> str | None:
    """Who speaks a chat message ("Priya: ..."), or None."""
    found = _SPEAKER.match(text)
    if found is None or found.group(1).split()[0].lower() in _NOT_SPEAKERS:
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
