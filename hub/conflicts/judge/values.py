"""Typed values in a statement: times, days, dates, numbers, money, contacts, names and closed-class words.

Every value carries a set of canonical keys; two values agree when their keys meet. An hour
written without am/pm ("at 8:30") keys both readings, so it agrees with "8:30 am" and "20:30".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hub.conflicts.judge import lexicon as lx
from hub.conflicts.judge.tokens import Token, canon


@dataclass(frozen=True, slots=True)
class Value:
    kind: str  # time, weekday, date, month, year, ordinal, number, money, ident, email, blood, name, ...
    keys: frozenset[str]
    shown: str
    index: int
    # A name that dates the statement rather than says its value: "before the Eilat trip".
    occasion: bool = False

    def agrees(self, other: Value) -> bool:
        return bool(self.keys & other.keys)


Finder = Callable[[Sequence[Token], set[int], set[int]], list[Value]]

_TIME_PREPS = {"at", "until", "till", "by", "from", "before", "after", "around", "to"}
_MARKERS = {"am": "am", "a.m.": "am", "pm": "pm", "p.m.": "pm"}
_EVENING = {"evening", "afternoon", "night"}
_CLASS_CANON = {
    "remotely": "remote",
    "indoors": "indoor",
    "inside": "indoor",
    "outdoors": "outdoor",
    "outside": "outdoor",
    "eldest": "older",
    "elder": "older",
    "oldest": "older",
    "youngest": "younger",
    "weekdays": "weekday",
    "weekends": "weekend",
}
_DECIMAL_COMMA = re.compile(r"\d+,\d{1,2}")
_NOT_ORDINAL_AFTER = {"week", "weeks", "month", "months", "year", "years", "night", "time", "weekend"}


def _number(token: Token) -> float | None:
    if token.kind in ("num", "ordinal"):
        digits = token.low.rstrip("stndrh")
        # "12,50 €" is twelve fifty; "1,250" is twelve hundred and fifty.
        digits = digits.replace(",", "." if _DECIMAL_COMMA.fullmatch(digits) else "")
        try:
            return float(digits)
        except ValueError:
            return None
    if token.kind == "word" and token.low in lx.NUMBER_WORDS:
        return float(lx.NUMBER_WORDS[token.low])
    return None


def _shown(number: float) -> str:
    return str(int(number)) if number == int(number) else str(number)


def _clock(hour: int, minute: int, marker: str | None, exact: bool) -> frozenset[str]:
    if marker == "pm":
        hour = hour % 12 + 12
    elif marker == "am":
        hour %= 12
    elif not exact and 1 <= hour <= 12:
        return frozenset({f"{hour:02d}:{minute:02d}", f"{(hour + 12) % 24:02d}:{minute:02d}"})
    return frozenset({f"{hour % 24:02d}:{minute:02d}"})


def _marker_after(tokens: Sequence[Token], i: int, used: set[int]) -> str | None:
    """am/pm written after a time: "8:30 pm", "8 in the evening"."""
    if i + 1 < len(tokens) and tokens[i + 1].low in _MARKERS:
        used.add(i + 1)
        return _MARKERS[tokens[i + 1].low]
    words = [t.low for t in tokens[i + 1 : i + 4]]
    if words[:2] == ["in", "the"] and len(words) == 3 and words[2] in _EVENING | {"morning"}:
        return "am" if words[2] == "morning" else "pm"
    if words[:2] == ["at", "night"]:
        return "pm"
    return None


def _times(tokens: Sequence[Token], used: set[int], skip: set[int]) -> list[Value]:
    found = []
    for i, tok in enumerate(tokens):
        if i in used:
            continue
        keys: frozenset[str] | None = None
        if tok.kind == "ampm":
            digits = tok.low.rstrip("apm. ").strip()
            hour, _, minute = digits.partition(":")
            keys = _clock(int(hour), int(minute or 0), "pm" if "p" in tok.low else "am", exact=True)
        elif tok.kind == "time":
            hour, minute = tok.low.split(":")
            keys = _clock(int(hour), int(minute), _marker_after(tokens, i, used), exact=hour.startswith("0"))
        elif tok.low in ("noon", "midday", "midnight"):
            keys = frozenset({"00:00" if tok.low == "midnight" else "12:00"})
        elif tok.low in ("half", "quarter"):
            keys = _spoken_time(tokens, i, used)
        elif (number := _number(tok)) is not None and number == int(number) and 0 <= number <= 24:
            keys = _bare_hour(tokens, i, int(number), used)
        if keys is not None:
            used.add(i)
            found.append(Value("time", keys, tok.text, i))
    return found


def _spoken_time(tokens: Sequence[Token], i: int, used: set[int]) -> frozenset[str] | None:
    """Half past eight, quarter to nine."""
    if i + 2 >= len(tokens) or tokens[i + 1].low not in ("past", "to"):
        return None
    number = _number(tokens[i + 2])
    if number is None or not 1 <= number <= 12:
        return None
    minute = 30 if tokens[i].low == "half" else 15
    hour = int(number)
    if tokens[i + 1].low == "to":
        hour, minute = hour - 1, 60 - minute
    used.update({i + 1, i + 2})
    return _clock(hour, minute, _marker_after(tokens, i + 2, used), exact=False)


def _bare_hour(tokens: Sequence[Token], i: int, hour: int, used: set[int]) -> frozenset[str] | None:
    """A number that reads as an hour from its neighbours: at 7, 8 in the evening, eight o'clock."""
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    if after is not None and after.low == "o'clock":
        used.add(i + 1)
        return _clock(hour, 0, _marker_after(tokens, i + 1, used), exact=False)
    marker = _marker_after(tokens, i, used)
    if marker is not None:
        return _clock(hour, 0, marker, exact=False)
    before = tokens[i - 1].low if i > 0 else ""
    ends_phrase = after is None or after.kind == "comma" or after.low in lx.PREPOSITIONS | {"and", "or"}
    if before in _TIME_PREPS and ends_phrase and tokens[i].kind == "num":
        return _clock(hour, 0, None, exact=hour > 12 or hour == 0)
    return None


def _month_of(tok: Token) -> int | None:
    if tok.low in lx.MONTHS and (len(tok.low) > 3 or tok.cap):
        return lx.MONTHS[tok.low]
    return None


def _day(tokens: Sequence[Token], i: int) -> float | None:
    if 0 <= i < len(tokens) and tokens[i].kind in ("num", "ordinal"):
        number = _number(tokens[i])
        if number is not None and 1 <= number <= 31 and number == int(number):
            return number
    return None


def _dates(tokens: Sequence[Token], used: set[int], skip: set[int]) -> list[Value]:
    found = []
    for i, tok in enumerate(tokens):
        month = _month_of(tok)
        if month is None or i in used:
            continue
        day_at = next((j for j in (i - 1, i + 1) if j not in used and _day(tokens, j) is not None), None)
        if day_at is None and i >= 2 and tokens[i - 1].low == "of" and _day(tokens, i - 2) is not None:
            day_at = i - 2
        if tok.low == "may" and day_at is None:
            continue  # the modal verb
        used.add(i)
        if day_at is not None:
            used.add(day_at)
            day = int(_day(tokens, day_at) or 0)
            found.append(Value("date", frozenset({f"{month:02d}-{day:02d}"}), f"{tok.text} {day}", i))
        else:
            found.append(Value("month", frozenset({str(month)}), tok.text, i))
    return found


def _money(tokens: Sequence[Token], used: set[int], skip: set[int]) -> list[Value]:
    found = []
    for i, tok in enumerate(tokens):
        number = _number(tok)
        if number is None or i in used or tok.kind == "ordinal":
            continue
        after = tokens[i + 1].low if i + 1 < len(tokens) else ""
        before = tokens[i - 1].low if i > 0 else ""
        if after in lx.CURRENCIES or before in lx.CURRENCIES:
            used.update({i, i + 1} if after in lx.CURRENCIES else {i, i - 1})
            found.append(Value("money", frozenset({_shown(number)}), f"{tok.text} {after}".strip(), i))
    return found


def _contacts(tokens: Sequence[Token], used: set[int], skip: set[int]) -> list[Value]:
    found = []
    for i, tok in enumerate(tokens):
        digits = "".join(ch for ch in tok.low if ch.isdigit())
        if tok.kind == "email":
            found.append(Value("email", frozenset({tok.low}), tok.text, i))
        elif tok.kind == "ident" or (tok.kind == "num" and len(digits) >= 7):
            found.append(Value("ident", frozenset({digits}), tok.text, i))
        elif tok.kind == "blood":
            found.append(Value("blood", frozenset({tok.text.upper()}), tok.text, i))
        else:
            continue
        used.add(i)
    return found


def _numbers(tokens: Sequence[Token], used: set[int], skip: set[int]) -> list[Value]:
    found = []
    for i, tok in enumerate(tokens):
        if i in used or i in skip:
            continue
        number = _number(tok)
        if tok.kind == "ordinal" and number is not None:
            found.append(Value("ordinal", frozenset({_shown(number)}), tok.text, i))
        elif tok.low in lx.ORDINAL_WORDS:
            after = tokens[i + 1].low if i + 1 < len(tokens) else ""
            if after in _NOT_ORDINAL_AFTER:
                continue  # "last year", "first time": a moment, not a position
            found.append(Value("ordinal", frozenset({str(lx.ORDINAL_WORDS[tok.low])}), tok.text, i))
        elif number is None:
            continue
        elif tok.kind == "num" and "," not in tok.low and 1900 <= number <= 2099:
            found.append(Value("year", frozenset({_shown(number)}), tok.text, i))
        else:
            found.append(Value("number", frozenset({_shown(number)}), tok.text, i))
        used.add(i)
    return found


def _weekdays(tokens: Sequence[Token], used: set[int], skip: set[int]) -> list[Value]:
    found = []
    for i, tok in enumerate(tokens):
        low = tok.low[:-1] if tok.low.endswith("s") and tok.low[:-1] in lx.WEEKDAYS else tok.low
        if i in used or low not in lx.WEEKDAYS or (len(low) <= 4 and not tok.cap):
            continue
        used.add(i)
        found.append(Value("weekday", frozenset({lx.WEEKDAYS[low]}), tok.text, i))
    return found


def _class_word_counts(tokens: Sequence[Token], i: int) -> bool:
    """Whether a closed-class word is used as a value here, judged by its neighbours."""
    low = tokens[i].low
    before = tokens[i - 1].low if i > 0 else ""
    after = tokens[i + 1].low if i + 1 < len(tokens) else ""
    if low == "day":
        return before not in {"a", "per", "every", "each", "the", "that", "this", "all", "one", "next"}
    if low in ("well", "done"):
        return low == "well" and after == "done"
    if low in ("left", "right"):
        return before in lx.DETERMINERS | lx.OWNER_POSSESSIVES | {"on", "to"}
    if low == "home":
        return before in {"from", "at"}
    return True


def _classes(tokens: Sequence[Token], used: set[int], skip: set[int]) -> list[Value]:
    found = []
    for i, tok in enumerate(tokens):
        if i in used or i in skip or tok.kind != "word" or tok.low not in lx.CLASS_OF:
            continue
        if not _class_word_counts(tokens, i):
            continue
        used.add(i)
        word = _CLASS_CANON.get(tok.low) or canon(tok.low)
        found.append(Value("class:" + lx.CLASS_OF[tok.low], frozenset({word}), tok.text, i))
    return found


def _frequencies(tokens: Sequence[Token], used: set[int], skip: set[int]) -> list[Value]:
    found = []
    for i, tok in enumerate(tokens[:-1]):
        after = tokens[i + 1].low
        if tok.low in ("every", "each") and after in ("other", "second", "alternate"):
            used.update({i, i + 1})
            found.append(Value("frequency", frozenset({"alternate"}), f"{tok.text} {after}", i))
        elif tok.low in ("every", "each") and after.rstrip("s") in lx.WEEKDAYS:
            found.append(Value("frequency", frozenset({"every"}), tok.text, i))
    return found


def _preferences(tokens: Sequence[Token], used: set[int], skip: set[int]) -> list[Value]:
    """A preference of one thing over another: an ordered pair, so the reverse preference disagrees."""
    lows = [t.low for t in tokens]
    for i, low in enumerate(lows):
        if not low.startswith("prefer"):
            continue
        pivot = next((j for j in range(i + 2, min(i + 8, len(lows))) if lows[j] in ("over", "than")), None)
        if pivot is None:
            continue
        picked = [w for w in lows[i + 1 : pivot] if w not in lx.STOPWORDS and w != "rather"]
        passed = [w for w in lows[pivot + 1 :] if w not in lx.STOPWORDS]
        if picked and passed:
            first, second = picked[0], passed[0]
            return [Value("preference", frozenset({f"{first}>{second}"}), f"{first} over {second}", i)]
    return []


def _starts_sentence(tokens: Sequence[Token], i: int) -> bool:
    """Whether token `i` opens the statement, or what follows a leading label ("Emi: That is amazing"),
    where a capital letter says where the sentence starts, not that the word is a name."""
    return i == 0 or (tokens[i - 1].text == ":" and all(t.kind == "word" for t in tokens[: i - 1]))


def _names(tokens: Sequence[Token], used: set[int], skip: set[int]) -> list[Value]:
    """Capitalised words not opening a sentence: places, employers, people, brands ("Ibn Gabirol
    Street")."""
    found: list[Value] = []
    group: list[int] = []

    def close() -> None:
        if group:
            words = [tokens[j].low for j in group]
            keys = {w for w in words if w not in lx.NAME_FILLERS} or set(words)
            shown = " ".join(tokens[j].text for j in group)
            found.append(Value("name", frozenset(keys), shown, group[0], _occasion(tokens, group[0])))
            used.update(group)
            group.clear()

    for i, tok in enumerate(tokens):
        is_name = (
            not _starts_sentence(tokens, i)
            and tok.cap
            and tok.kind == "word"
            and i not in used
            and i not in skip
            and tok.low != "i"
            and tok.low not in lx.WEEKDAYS
            and tok.low not in lx.MONTHS
        )
        if is_name:
            group.append(i)
        else:
            close()
    close()
    return found


# Prepositions by which a name says when rather than what: "needs renewal before the Eilat trip".
_WHEN = {"before", "after", "until", "till", "since", "during"}


def _occasion(tokens: Sequence[Token], start: int) -> bool:
    """Whether the name starting at `start` follows a preposition of time ("before the Eilat trip")."""
    j = start - 1
    while (
        j >= 0
        and start - j <= 3
        and (tokens[j].low in lx.DETERMINERS | lx.OWNER_POSSESSIVES or tokens[j].kind == "poss")
    ):
        j -= 1
    return j >= 0 and tokens[j].low in _WHEN


# Order matters: money before bare numbers, times and dates before ordinals, names last.
FINDERS: tuple[Finder, ...] = (
    _contacts,
    _money,
    _dates,
    _times,
    _frequencies,
    _numbers,
    _weekdays,
    _classes,
    _preferences,
    _names,
)


def extract(tokens: Sequence[Token], skip: set[int]) -> tuple[list[Value], set[int]]:
    """The values in tokens outside `skip` (the subject), and the indices they use."""
    used: set[int] = set()
    values: list[Value] = []
    for finder in FINDERS:
        values.extend(v for v in finder(tokens, used, skip) if v.index not in skip)
    return values, used
