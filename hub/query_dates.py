"""The days a search names: "on 5 January 2024", "Dec 29", "el 5 de enero", "5. Januar", "5 בינואר";
and the days it names by their distance from today: "yesterday", "la semana pasada", "в прошлом месяце",
"last Friday".

Month names and the words for days, weeks, months and weekdays relative to today are CLDR's for each
covered language (through Babel: month names wide and abbreviated, as a date writes them and as they
stand alone), so a language is added by naming its locale in `LANGUAGES`. A day is read where a day
number stands next to a month name, or in numbers with its year: year first (2024-01-05, 2024/01/05),
or day and month first (19.01.2024, 19/01/24). Every covered language writes the day before the month but American
English, so day first is read first; with dots, as only day-first writers use them, it is the one
reading where it is a date. A number of its own, a month alone or a weekday alone names no day. A day
said without its year is the last one not after `now`.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, timedelta
from functools import cache

from babel import localedata
from babel.dates import get_month_names

from hub.writing_systems import HEBREW_PREFIXES

LANGUAGES = ("en", "es", "fr", "de", "pt", "it", "ru", "ar", "he")
MAX_DAYS = 3  # a question about a few days at most; a list of dates is not one
Period = tuple[date, date]  # its first day and its last
# Hebrew writes "on", "in" and "since" onto the word that follows, with or without a hyphen: "ב-5 בינואר".
_PREFIX_LETTERS = "".join(sorted(HEBREW_PREFIXES))
_PREFIX = f"[{_PREFIX_LETTERS}]?-?"
# A date in numbers is not part of a longer run of them (a phone number, an address, a version), but
# may follow a Hebrew prefix and its hyphen ("ב-19.01.2024").
_NUMBER_START = rf"(?:(?<![\d./-])|(?<=[{_PREFIX_LETTERS}]-))"
_NUMBER_END = r"(?![\d-]|[./]\d)"


@cache
def month_names() -> dict[str, tuple[int, bool]]:
    """Every covered language's names and abbreviations of the months, casefolded and without their dots:
    the month, and whether the name is a whole one (an abbreviation such as Spanish "ago" is read only
    right after its day's number: "2 hrs ago" names no day)."""
    names: dict[str, tuple[int, bool]] = {}
    for width in ("wide", "abbreviated"):
        for locale in LANGUAGES:
            for context in ("format", "stand-alone"):
                for month, name in get_month_names(width, context, locale=locale).items():
                    names.setdefault(name.casefold().rstrip(".׳'"), (month, width == "wide"))
    return names


def _alternation(names: list[str]) -> str:
    return "|".join(map(re.escape, sorted(names, key=len, reverse=True)))


@cache
def _pattern() -> re.Pattern[str]:
    whole = _alternation([name for name, (_, wide) in month_names().items() if wide])
    month = _alternation(list(month_names()))
    # A day's number may carry its ordinal ("5th", "1er", "5º", "5-го") or German's dot, and one short
    # word may join it to a whole month's name and the month to the year ("5th of January", "5 de
    # enero de 2024").
    day = r"(?<![\d.:/])(?P<day>\d{1,2})(?:st|nd|rd|th|er|e|º|ª|\.|-?го)?"
    joint = r"(?:[^\W\d]{1,3}\s+)"
    year = rf"(?:,?\s+{joint}?(?P<year>\d{{4}}))?"
    return re.compile(
        rf"{day}\s+(?:{joint}{_PREFIX}(?P<joined>{whole})|{_PREFIX}(?P<month>{month}))[.׳']?{year}(?!\w)"
        rf"|(?<!\w){_PREFIX}(?P<first>{month})[.׳']?\s+(?P<then>\d{{1,2}})(?:st|nd|rd|th)?(?![\d:])"
        rf"(?:,?\s+(?P<after>\d{{4}}))?(?!\w)"
        rf"|{_NUMBER_START}(?P<iso>\d{{4}})(?P<isep>[-/.])(?P<m>\d{{1,2}})(?P=isep)(?P<d>\d{{1,2}}){_NUMBER_END}"
        rf"|{_NUMBER_START}(?P<n1>\d{{1,2}})(?P<nsep>[-/.])(?P<n2>\d{{1,2}})(?P=nsep)(?P<ny>\d{{4}}|\d{{2}}){_NUMBER_END}",
        re.IGNORECASE,
    )


def named_days(text: str, now: datetime) -> list[date]:
    """The days `text` names, in order, at most `MAX_DAYS`; an impossible one (31 February) is none."""
    found: list[date] = []
    names = month_names()
    for match in _pattern().finditer(text):
        g = match.groupdict()
        if g["iso"]:
            readings = [(int(g["iso"]), int(g["m"]), int(g["d"]))]
        elif g["n1"]:
            readings = _numeric(int(g["n1"]), int(g["n2"]), g["ny"])
        elif g["day"]:
            month = names[(g["joined"] or g["month"]).casefold()][0]
            readings = [(int(g["year"] or 0), month, int(g["day"]))]
        else:
            readings = [(int(g["after"] or 0), names[g["first"].casefold()][0], int(g["then"]))]
        days = [day for day in (_day(*parts, now.date()) for parts in readings) if day is not None]
        # Dots are day-first writers': the other reading only where the first is no date.
        for day in days[:1] if g["nsep"] == "." else days:
            if day not in found:
                found.append(day)
    return found[:MAX_DAYS]


def _numeric(first: int, second: int, year: str) -> list[tuple[int, int, int]]:
    """The (year, month, day) readings of a date in numbers, day first ("19/01/2024") before month first
    ("01/19/2024"); a two-digit year as `strptime`'s %y reads it (69 to 99 last century)."""
    full = int(year) if len(year) == 4 else int(year) + (1900 if int(year) >= 69 else 2000)
    return [(full, second, first), (full, first, second)] if first != second else [(full, first, first)]


def _day(year: int, month: int, day: int, today: date) -> date | None:
    try:
        if year:
            return date(year, month, day)
        named = date(today.year, month, day)
        return named if named <= today else date(today.year - 1, month, day)
    except ValueError:
        return None


def named_periods(text: str, now: datetime) -> list[Period]:
    """The days `text` names (each a period of one day) and the periods it names relative to `now`'s day
    ("yesterday": that day; "last week": Monday to Sunday; "this month": its first day to its last), in
    that order, each once, at most `MAX_DAYS`."""
    today = now.date()
    found: list[Period] = [(day, day) for day in named_days(text, now)]
    for match in _relative_pattern().finditer(_folded(text)):
        period = _relative(relative_names()[match.group(1)], today)
        if period not in found:
            found.append(period)
    return found[:MAX_DAYS]


def _folded(text: str) -> str:
    """Casefolded, without combining marks (niqqud, Arabic's vowel signs), apostrophes of one kind: as
    people type the words, whichever way CLDR spells them."""
    decomposed = unicodedata.normalize("NFD", text.casefold().replace("’", "'"))
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if unicodedata.category(c) != "Mn"))


# CLDR's fields for the weekdays relative to today, Monday first (as `date.weekday()` counts them).
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@cache
def relative_names() -> dict[str, tuple[str, int]]:
    """Every covered language's words for a day, a week or a month relative to today, and for the last
    of a weekday ("last Friday", "el viernes pasado"), folded: the unit and how many of it from today
    ("ayer": day, -1). A weekday this week or next is left out: a memory is of what happened, and CLDR's
    Hebrew "this Friday" is the weekday's bare name. Where a week's, a month's or a weekday's words open
    with a short word ("la semana pasada", "на прошлой неделе"), they count without it too; a day's short
    first word says which day ("أول أمس", the day before yesterday)."""
    names: dict[str, tuple[str, int]] = {}
    for locale in LANGUAGES:
        fields = localedata.load(locale)["date_fields"]
        for unit in ("day", "week", "month", *WEEKDAYS):
            for offset, words in fields[unit]["relative"].items():
                if unit in WEEKDAYS and int(offset) != -1:
                    continue
                folded = _folded(words)
                names.setdefault(folded, (unit, int(offset)))
                first, _, rest = folded.partition(" ")
                if unit != "day" and rest and len(first) <= 3:
                    names.setdefault(rest, (unit, int(offset)))
    return names


@cache
def _relative_pattern() -> re.Pattern[str]:
    words = "|".join(
        re.escape(name).replace("\\ ", r"\s+") for name in sorted(relative_names(), key=len, reverse=True)
    )
    return re.compile(rf"(?<!\w){_PREFIX}({words})(?!\w)")


def _relative(named: tuple[str, int], today: date) -> Period:
    """The period of `relative_names`' (unit, offset) from today."""
    unit, offset = named
    if unit == "day":
        day = today + timedelta(days=offset)
        return day, day
    if unit in WEEKDAYS:
        # The last one before today: on a Friday, "last Friday" is a week ago.
        day = today - timedelta(days=(today.weekday() - WEEKDAYS.index(unit)) % 7 or 7)
        return day, day
    if unit == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=offset)
        return monday, monday + timedelta(days=6)
    month = today.year * 12 + today.month - 1 + offset
    first = date(month // 12, month % 12 + 1, 1)
    after = date((month + 1) // 12, (month + 1) % 12 + 1, 1)
    return first, after - timedelta(days=1)
