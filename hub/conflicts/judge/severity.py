"""How much a conflict matters to the owner.

The rule, first match wins:

- **high**: a wrong answer could hurt, cost money or break a rule.
  Health (allergies and the foods that cause the severe ones, intolerances, medications and doses,
  conditions, vaccinations, blood type, pregnancy, a pet's health too); money (any amount of money,
  rent, salary, bills, debts, bank accounts, cards, insurance, budgets); safety (alarm codes, keys,
  emergency contacts, car seats, a child allowed out alone); legal documents (passport, visa, driving
  licence, contracts, custody); family relations (who is whose wife, brother or mother, marriage, how
  many children). A money or safety word that is only a name ("Bill", "Key") does not count.
- **low**: tastes and cosmetics: favourites, likes and preferences, a colour, a nickname, coffee
  and food tastes, hobbies, how the owner wants to be reminded. Also any conflict between two
  memories of kind `preference` that hits no high rule.
- **medium**: everything else that a person relies on day to day: schedules and appointments
  (a doctor's appointment is a schedule, not a health fact), addresses and places, work, contact
  details, school, cars, pets' routines, diets chosen for other than medical reasons, subscriptions
  without an amount.
"""

from __future__ import annotations

from collections.abc import Iterable

from hub.conflicts.judge.text import Parsed
from hub.conflicts.judge.values import Value

# Word stems: five letters or more match the start of a folded content word, shorter ones the whole word
# (so "tea" does not catch "team").
# The foods that cause most severe allergic reactions count on their own: "Noa can't have peanuts"
# names no allergy, and whether she now can is the owner's to say.
_HEALTH = (
    "allerg",
    "medic",
    "mg",
    "insulin",
    "asthma",
    "inhaler",
    "blood",
    "diagnos",
    "pregnan",
    "celiac",
    "coeliac",
    "intoleran",
    "vaccin",
    "shot",
    "epipen",
    "diabet",
    "surgery",
    "prescription",
    "hearing",
    "seizure",
    "epilep",
    "pill",
    "antibiotic",
    "penicillin",
    "gluten",
    "lactose",
    "disease",
    "symptom",
    "therapy",
    "chemo",
    "cholesterol",
    "anaphyla",
    "peanut",
    "nut",
    "nuts",
    "sesame",
    "shellfish",
)
_MONEY = (
    "rent",
    "salary",
    "salaries",
    "mortgage",
    "bill",
    "debt",
    "owe",
    "loan",
    "account",
    "budget",
    "allowance",
    "credit",
    "insur",
    "pay",
    "tax",
    "invoice",
    "pension",
    "saving",
    "invest",
    "refund",
    "deposit",
    "shekel",
    "dollar",
    "euro",
)
_SAFETY = (
    "alarm",
    "key",
    "emergency",
    "booster",
    "carseat",
    "alone",
    "gas",
    "smoke",
    "lock",
    "seatbelt",
    "helmet",
    "weapon",
    "poison",
)
_LEGAL = ("passport", "visa", "contract", "custody", "court", "lawsuit", "citizenship", "lawyer", "permit")
_FAMILY_FRAME = ("<kinship>", "<marital>", "kid")
# "remind", not "want" or "wish": a wish carries schedules too ("Dana wants to be picked up at 16:00"),
# which graded low would be settled automatically.
_LOW = (
    "like",
    "remind",
    "painted",
    "taste",
    "flavour",
    "coffee",
    "tea",
    "steak",
    "music",
    "song",
    "movie",
    "cartoon",
    "novel",
    "hobby",
    "style",
    "outfit",
    "hair",
)


def _hits(words: Iterable[str], stems: tuple[str, ...]) -> bool:
    exact = frozenset(stems)
    prefixes = tuple(stem for stem in stems if len(stem) >= 5)
    return any(word in exact or word.startswith(prefixes) for word in words)


def grade(
    a: Parsed, b: Parsed, changed: Iterable[Value] = (), kinds: tuple[str, str] = ("fact", "fact")
) -> str:
    """The severity ("high", "medium" or "low") of a conflict between two statements."""
    words = a.content | b.content
    changed = list(changed)
    money = any(v.kind == "money" for v in (*a.values, *b.values))
    licence = any(w.startswith("licence") for w in words) and "plate" not in words
    # A money or safety word that is only someone's name ("a man named Bill", "Key Amsalem") says
    # nothing about money or safety. Health and legal words count even as names: drugs and documents
    # are written capitalised ("Penicillin", "EpiPen", "Visa").
    names = {key for v in (*a.values, *b.values) if v.kind == "name" for key in v.keys}
    if (
        money
        or licence
        or _hits(words, _HEALTH + _LEGAL)
        or _hits(words - names, _MONEY + _SAFETY)
        or _hits(a.frame | b.frame, _FAMILY_FRAME)
        or any(v.kind in ("class:kinship", "class:marital", "blood") for v in changed)
    ):
        return "high"
    if _hits(a.frame | b.frame, _LOW) or any(v.kind == "class:colour" for v in changed):
        return "low"
    if kinds == ("preference", "preference"):
        return "low"
    return "medium"
