"""How far a secret found reaches: its whole value, where a rule or the model read part of it.

Backup codes come as a list, and a passphrase is words: a finding of either that covers some of them
is widened over the rest, so that a refusal names the whole value and redacting replaces all of it.
What is refused does not change here: findings only widen.
"""

from __future__ import annotations

import re

from hub import stated_secrets

# The kinds whose value is a list: a finding of one covers every code of its form listed beside it.
LISTS = frozenset({"recovery_codes"})
# The kinds whose value may be words, and the most words one is said in (a wallet's 24).
PHRASES = frozenset({"passphrase", "recovery_codes"})
MOST_WORDS = 24

# A code of a list (letters and digits; a hyphen or a dot inside) and what may stand between two codes
# of one list: spaces, a comma, a slash, any script's semicolon, a dash between spaces.
_PIECE = re.compile(r"[^\W_](?:[\w.-]*[^\W_])?")
_LIST_MARKS, _DASHES = ",;/|·،؛、，；", "-–—"
_BETWEEN_CODES = re.compile(rf"[ \t]*(?:[{_LIST_MARKS}]|[{_DASHES}](?=[ \t]))?[ \t]*")
_SEPARATORS = " \t" + _LIST_MARKS + _DASHES
# Where a phrase's clause ends: where the model's phrase reader ends one, or at a colon (what follows it
# is given as something else); a comma ends it unless the phrase is a list between commas.
_PHRASE_STOPS = re.compile(rf"[{re.escape(stated_secrets.CLAUSE_MARKS)}:]|\s[-–—]\s")
_COMMA = re.compile(f"[{stated_secrets.COMMAS}]")
_WORD = re.compile(rf"[^\s{stated_secrets.COMMAS}]+")


def whole(text: str, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The findings (start, end, kind), in order, each widened over the rest of its value: a list's
    codes of the same form before and after it (findings so joined made one), a phrase's words to the
    end of its clause where it was read cut short."""
    out: list[tuple[int, int, str]] = []
    for index, (start, end, kind) in enumerate(found):
        high = found[index + 1][0] if index + 1 < len(found) else len(text)
        if kind in LISTS:
            low = out[-1][1] if out else 0
            start, end = _listed(text, start, end, low, high)
            if out and out[-1][2] == kind and not text[out[-1][1] : start].strip(_SEPARATORS):
                start = out.pop()[0]
        if kind in PHRASES:
            end = _rest_of_phrase(text, start, end, high)
        out.append((start, end, kind))
    return out


def _form(piece: str) -> str | None:
    """What a code of a list looks like, so that its neighbours can be told to be of the same list:
    its digits as 9 where it is digits alone, each letter or digit as x where it mixes them (backup codes
    are random), its hyphens and dots kept. None for a piece with no digit: a word, not a code."""
    if not any(char.isdigit() for char in piece):
        return None
    if any(char.isalpha() for char in piece):
        return re.sub(r"[^\W_]", "x", piece)
    return re.sub(r"\d", "9", piece)


def _listed(text: str, start: int, end: int, low: int, high: int) -> tuple[int, int]:
    """The span widened over codes of the same form as its last (after it) and its first (before it),
    between `low` and `high`."""
    pieces = [(m.start(), m.end()) for m in _PIECE.finditer(text, low, high)]
    inside = [(a, b) for a, b in pieces if start <= a and b <= end]
    if not inside:
        return start, end
    first, last = pieces.index(inside[0]), pieces.index(inside[-1])
    for step, at in ((1, last), (-1, first)):
        form = _form(text[pieces[at][0] : pieces[at][1]])
        while form is not None and 0 <= at + step < len(pieces):
            beside = pieces[at + step]
            gap_start, gap_end = (pieces[at][1], beside[0]) if step == 1 else (beside[1], pieces[at][0])
            gap = _BETWEEN_CODES.fullmatch(text, gap_start, gap_end)
            if gap is None or gap_end == gap_start or _form(text[beside[0] : beside[1]]) != form:
                break
            at += step
        if step == 1:
            end = max(end, pieces[at][1])
        else:
            start = min(start, pieces[at][0])
    return start, end


def _rest_of_phrase(text: str, start: int, end: int, high: int) -> int:
    """Where a phrase of words read cut short ends: a rule that read its first word alone, or the model
    that read the first `stated_secrets.PHRASE_WORDS` of a longer one, left the rest of its clause (of a
    list between commas, past its commas) to be stored. A phrase not cut short ends where it was found."""
    words = text[start:end].split()
    if len(words) not in (1, stated_secrets.PHRASE_WORDS[1]) or any(c.isdigit() for c in text[start:end]):
        return end
    stop = _PHRASE_STOPS.search(text, end, high)
    clause = text[end : stop.start() if stop else high]
    if not _COMMA.search(text, start, end):
        clause = _COMMA.split(clause, maxsplit=1)[0]
    rest = list(_WORD.finditer(clause))[: MOST_WORDS - len(words)]
    if not rest or any(c.isdigit() for match in rest for c in match.group()):
        return end
    return end + rest[-1].end()
