"""The days a search names, in the covered languages' words for the months and for days, weeks and
months relative to today."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from hub.query_dates import MAX_DAYS, named_days, named_periods

NOW = datetime(2026, 12, 7, 12, 0)  # a Monday
YESTERDAY = (date(2026, 12, 6), date(2026, 12, 6))
LAST_WEEK = (date(2026, 11, 30), date(2026, 12, 6))
LAST_FRIDAY = (date(2026, 12, 4), date(2026, 12, 4))


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("What kind of pasta did Kate make on 29 Dec 2023?", date(2023, 12, 29)),
        ("How many naps did Nicolas take on January 6 2024?", date(2024, 1, 6)),
        ("Where was Elise on the 5th of January, 2024?", date(2024, 1, 5)),
        ("May 5, 2024", date(2024, 5, 5)),
        ("¿Qué hizo Lucía el 5 de enero de 2024?", date(2024, 1, 5)),
        ("Qu'a fait Léa le 1er mars 2025 ?", date(2025, 3, 1)),
        ("Was hat Jonas am 5. Januar 2024 gemacht?", date(2024, 1, 5)),
        ("O que aconteceu em 3 de fevereiro de 2025?", date(2025, 2, 3)),
        ("Cosa ho pagato il 12 dic 2024?", date(2024, 12, 12)),
        ("Что было 5 января 2024 года?", date(2024, 1, 5)),
        ("ماذا حدث في 5 يناير 2024؟", date(2024, 1, 5)),
        ("מה עשיתי ב-5 בינואר 2024?", date(2024, 1, 5)),
        ("What did we decide on 2024-01-05?", date(2024, 1, 5)),
        ("What did we decide on 2024/1/5?", date(2024, 1, 5)),
        ("Was hat Jonas am 19.01.2024 gemacht?", date(2024, 1, 19)),
        ("Что было 5.1.24?", date(2024, 1, 5)),
        ("¿Qué pasó el 19/01/2024?", date(2024, 1, 19)),
        ("What happened on 01/19/2024?", date(2024, 1, 19)),
        ("מה עשיתי ב-19.01.2024?", date(2024, 1, 19)),
    ],
)
def test_a_day_is_read_in_each_covered_language(text: str, day: date) -> None:
    assert named_days(text, NOW) == [day]


def test_a_date_in_numbers_is_read_day_first_and_both_ways_where_it_could_be_either() -> None:
    # Slashes and dashes are written month first in American English and day first everywhere else.
    assert named_days("What did we do on 05/06/2024?", NOW) == [date(2024, 6, 5), date(2024, 5, 6)]
    assert named_days("And on 12-05-2024?", NOW) == [date(2024, 5, 12), date(2024, 12, 5)]
    # Dots are day-first writers': the other reading only where the first is no date.
    assert named_days("Am 05.06.2024 war ich dort", NOW) == [date(2024, 6, 5)]
    assert named_days("on 1.19.2024", NOW) == [date(2024, 1, 19)]
    assert named_days("on 07/07/99", NOW) == [date(1999, 7, 7)]


def test_a_day_without_its_year_is_the_last_one_so_far() -> None:
    assert named_days("What did I do on 5 January?", NOW) == [date(2026, 1, 5)]
    assert named_days("What did we do on 24 December?", NOW) == [date(2025, 12, 24)]
    assert named_days("What happened on 7 December?", NOW) == [date(2026, 12, 7)]


@pytest.mark.parametrize(
    "text",
    [
        "What did I do 2 hrs ago?",  # Spanish abbreviates August "ago", but only right after a day
        "Which place did Elise visit in the first week of 2024?",
        "you may 5x it",
        "Is the meeting at 10:30 Jan?",
        "What happened on 31 February 2024?",
        "Flight 12 leaves from gate 5",
        "What did Netanel say about the dentist?",
        "Is the printer still at 192.168.1.10?",
        "Call 054-123-4567 after 10.30",
        "We won 3/1 on 12/5",  # a date in numbers is read with its year only
        "Did I pay on 31.02.2024?",
    ],
)
def test_no_day_where_none_is_named(text: str) -> None:
    assert named_days(text, NOW) == []
    assert named_periods(text, NOW) == []


def test_a_few_days_at_most_each_once() -> None:
    text = "1 March 2024, 2 March 2024, 1 March 2024, 3 March 2024, 4 March 2024"
    assert named_days(text, NOW) == [date(2024, 3, d) for d in (1, 2, 3)][:MAX_DAYS]


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("What did I tell you yesterday?", YESTERDAY),
        ("¿Qué comí ayer?", YESTERDAY),
        ("Qu'est-ce que j'ai payé la semaine dernière ?", LAST_WEEK),
        ("Was habe ich letzte Woche gekauft?", LAST_WEEK),
        ("O que eu fiz na semana passada?", LAST_WEEK),
        ("Cosa ho fatto l'altro ieri?", (date(2026, 12, 5), date(2026, 12, 5))),
        ("Что я делал в прошлом месяце?", (date(2026, 11, 1), date(2026, 11, 30))),
        ("ماذا فعلت أمس؟", YESTERDAY),
        ("מה עשיתי אֶתְמוֹל?", YESTERDAY),  # with niqqud, which CLDR's word has not
        ("What's on this week?", (date(2026, 12, 7), date(2026, 12, 13))),
        ("What did I buy last Friday?", LAST_FRIDAY),
        ("¿Qué compré el viernes pasado?", LAST_FRIDAY),
        ("Was war letzten Freitag?", LAST_FRIDAY),
        ("Что я делал в прошлую пятницу?", LAST_FRIDAY),
        ("מה עשיתי בשישי שעבר?", LAST_FRIDAY),  # without CLDR's "יום"
    ],
)
def test_a_period_relative_to_today_is_read_in_each_covered_language(
    text: str, period: tuple[date, date]
) -> None:
    assert named_periods(text, NOW) == [period]


def test_named_days_come_first_and_each_period_once() -> None:
    text = "What happened yesterday, on 5 January and again yesterday?"
    assert named_periods(text, NOW) == [(date(2026, 1, 5), date(2026, 1, 5)), YESTERDAY]
    assert named_periods("last month", datetime(2026, 1, 15)) == [(date(2025, 12, 1), date(2025, 12, 31))]


def test_the_last_of_a_weekday_is_before_today_and_no_other_is_named() -> None:
    assert named_periods("What did I do last Monday?", NOW) == [(date(2026, 11, 30), date(2026, 11, 30))]
    assert named_periods("last Friday", datetime(2026, 12, 4, 9)) == [
        (date(2026, 11, 27), date(2026, 11, 27))
    ]
    # A weekday this week or next names what has not happened; Hebrew's "this Friday" is its bare name.
    for text in ("this Friday", "next Friday", "see you on Friday", "יום שישי"):
        assert named_periods(text, NOW) == []
