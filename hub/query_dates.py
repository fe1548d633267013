"""The days a search names: "on 5 January 2024", "Dec 29", "el 5 de enero", "5. Januar", "5 בינואר".

Month names are CLDR's for each covered language (through Babel: wide and abbreviated, as a date writes
them and as they stand alone), so a language is added by naming its locale in `LANGUAGES`. A day is read
where a day number stands next to a month name, or in ISO form (2024-01-05); a number of its own, a
month alone or a weekday names no day. A day said without its year is the last one not after `now`.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import cache

from babel.dates import get_month_names

from hub.writing_systems import HEBREW_PREFIXES

LANGUAGES = ("en", "es", "fr", "de", "pt", "it", "ru", "ar", "he")
MAX_DAYS = 3  # a question about a few days at most; a list of dates is not one


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
    prefix = f"[{''.join(sorted(HEBREW_PREFIXES))}]?-?"
    # A day's number may carry its ordinal ("5th", "1er", "5º", "5-го") or German's dot, and one short
    # word may join it to a whole month's name and the month to the year ("5th of January", "5 de
    # enero de 2024").
    day = r"(?<![\d.:/])(?P<day>\d{1,2})(?:st|nd|rd|th|er|e|º|ª|\.|-?го)?"
    joint = r"(?:[^\W\d]{1,3}\s+)"
    year = rf"(?:,?\s+{joint}?(?P<year>\d{{4}}))?"
    return re.compile(
        rf"{day}\s+(?:{joint}{prefix}(?P<joined>{whole})|{prefix}(?P<month>{month}))[.׳']?{year}(?!\w)"
        rf"|(?<!\w){prefix}(?P<first>{month})[.׳']?\s+(?P<then>\d{{1,2}})(?:st|nd|rd|th)?(?![\d:])"
        rf"(?:,?\s+(?P<after>\d{{4}}))?(?!\w)"
        r"|(?<![\d-])(?P<iso>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?![\d-])",
        re.IGNORECASE,
    )


def named_days(text: str, now: datetime) -> list[date]:
    """The days `text` names, in order, at most `MAX_DAYS`; an impossible one (31 February) is none."""
    found: list[date] = []
    names = month_names()
    for match in _pattern().finditer(text):
        g = match.groupdict()
        if g["iso"]:
            parts = (int(g["iso"]), int(g["m"]), int(g["d"]))
        elif g["day"]:
            month = names[(g["joined"] or g["month"]).casefold()][0]
            parts = (int(g["year"] or 0), month, int(g["day"]))
        else:
            parts = (int(g["after"] or 0), names[g["first"].casefold()][0], int(g["then"]))
        day = _day(*parts, now.date())
        if day is not None and day not in found:
            found.append(day)
    return found[:MAX_DAYS]


def _day(year: int, month: int, day: int, today: date) -> date | None:
    try:
        if year:
            return date(year, month, day)
        named = date(today.year, month, day)
        return named if named <= today else date(today.year - 1, month, day)
    except ValueError:
        return None
