"""A memory's sentences, each embedded on its own so that a question about one of them finds the memory.

The model reads a memory as one mean of its tokens: a long chat message that says five things matches a
question about any one of them weakly, and the context indexed with a message pulls its vector further
from what the message itself says. Search also ranks memories by their closest sentence (a multivector
scored by its best row, `hub.store.base.SENTENCES`).

Sentences end at ".", "!", "?", "…" and their forms in other scripts ("。", "؟", "।", ...) followed by a
space, at "。！？" even without one, and at a line break. A piece of fewer than MIN_WORDS words ("Dr.",
"Haha!", "Yes.") is joined to the next, so an abbreviation does not cut a sentence in two and a reply
of one word is not a sentence of its own.
"""

from __future__ import annotations

import re

_END = re.compile(r"(?<=[.!?…։।॥؟۔።])\s+|(?<=[。！？])\s*|\s*\n\s*")
MIN_WORDS = 3
# Chinese and Japanese are written without spaces: two of their characters count as a word here.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
# The most sentences a memory is read as: the rest are read with the last.
MAX_SENTENCES = 16


def sentences(text: str) -> list[str]:
    """`text`'s sentences, in order; the text itself if it is one sentence (or no words at all)."""
    pieces = [piece for piece in _END.split(text.strip()) if piece]
    joined: list[str] = []
    carried = ""
    for piece in pieces:
        carried = f"{carried} {piece}" if carried else piece
        if _words(carried) >= MIN_WORDS:
            joined.append(carried)
            carried = ""
    if carried:
        if joined:
            joined[-1] = f"{joined[-1]} {carried}"
        else:
            joined.append(carried)
    if len(joined) > MAX_SENTENCES:
        joined[MAX_SENTENCES - 1 :] = [" ".join(joined[MAX_SENTENCES - 1 :])]
    return joined or [text]


def _words(text: str) -> int:
    return len(text.split()) + len(_CJK.findall(text)) // 2
