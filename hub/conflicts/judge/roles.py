"""Who holds a role, said either way round: "Dr. Levi is our dentist" and "Our dentist is Dr. Katz".

The first is read as about Dr. Levi, the second as about the owner's dentist: two subjects, so the rules
found nothing to compare. For a role one person holds at a time (a dentist, a boss, a landlord; not a
friend, a cousin or a teacher, of whom there are several), a name said to hold it is the value of the
role, as the name after "Our dentist is" is.
"""

from __future__ import annotations

import re

from hub.conflicts.judge.chat import speech
from hub.conflicts.judge.subject import OWNER
from hub.conflicts.judge.text import Parsed
from hub.conflicts.judge.tokens import canon

# Roles one person holds at a time, for one possessor.
ONE_HOLDER = frozenset(
    {
        "dentist",
        "doctor",
        "gp",
        "pediatrician",
        "paediatrician",
        "boss",
        "manager",
        "landlord",
        "landlady",
        "nanny",
        "babysitter",
        "cleaner",
        "accountant",
        "lawyer",
        "therapist",
        "vet",
        "husband",
        "wife",
        "mother",
        "father",
    }
)
# After the holder's name: "is <whose> [family|regular|new|usual] <role>", the role ending its clause.
_HOLDS = (
    r"\W+(?:is|was)\s+(?P<whose>the\s+family|our|my|(?P<poss>[A-Z][\w-]*(?:\s[A-Z][\w-]*)?)'s)"
    r"\s+(?:(?:family|regular|usual|new|own)\s+)?(?P<role>[A-Za-z]+)\s*(?=$|[,.;:(]|\s(?:at|in|on|from|with|since)\b)"
)


def held_role(parsed: Parsed, owner_names: frozenset[str] = frozenset()) -> tuple[str, str, str] | None:
    """(the role's subject key, the holder's name, as written) when `parsed` opens with a named person
    holding a role of one holder: "Dr. Levi is our dentist" gives ("owner>dentist", "dr levi", "Dr.
    Levi"). `owner_names` are lowercase."""
    key = parsed.subject.key
    if not key or any(c in key for c in ">+") or key == OWNER:
        return None
    name = r"\W*".join(re.escape(word) for word in key.split())
    found = re.match(rf"\W*(?P<name>{name}){_HOLDS}", speech(parsed.text), re.IGNORECASE)
    if found is None or canon(found["role"].lower()) not in ONE_HOLDER:
        return None
    whose = found["poss"].lower() if found["poss"] else OWNER
    if whose in owner_names:
        whose = OWNER
    if whose == key:
        return None  # "Avi is Avi's boss": nothing read
    return f"{whose}>{canon(found['role'].lower())}", key, found["name"]
