"""A newer memory that reports a change to a close, older one: "swimming is thursdays from now on",
"quit the thursday futsal", "Netflix was downgraded to the Basic plan".

The rule judge compares what two statements say of one subject and attribute, which it reads in plain
sentences and misses in most of the ways people report a change (a chat message's speaker read as its
subject, "the beagle" for "Kuki", a cancelled thing with no value to compare). This rule asks less:
- the newer text carries a change cue ("now", "switched to", "cancelled"), not as a plan ("should be
  sold"), a question, or for one occasion ("cancelled this Monday only"), and not in the words the
  older one says it in ("I cancel the ride if it rains" said twice);
- the two memories are close in meaning (their cosine similarity, which the review has from its
  candidate search), and the words around the cue name something the older one says, beyond the
  people they are about unless the change is done to them ("quit the thursday futsal": futsal;
  "switched prime to annual": prime); for a cue that dates the whole sentence
  ("these days", "since March"), any word of that sentence; a little less close, two such things;
  further still, down to a floor, what the older one is about ("the cleaning lady" / "ended the
  cleaning service"), in the cue's own clause;
- they are not about two different, named people; a rise or a cut changes an amount the older one
  gives, and a thing changed is one it names ("switched his podcast app" is not "Spotify Duo").
The review asks it only about the older memory closest to the newer one, as a change replaces one
fact. It is a weaker reading than the rules' value comparison, so the conflicts it finds are proposed
to the owner, never resolved automatically (`Judgement.inferred`).
"""

from __future__ import annotations

import re

from hub.conflicts.judge import lexicon as lx
from hub.conflicts.judge.chat import speech
from hub.conflicts.judge.subject import OWNER, SOMEONE
from hub.conflicts.judge.text import parse
from hub.conflicts.judge.tokens import canon, content_words, letter_words, sentence_around, words_match

_MONTH = "(?:" + "|".join(lx.MONTHS) + ")"

# "since March", "Since Ruth's hip surgery, ...", "After refinancing, ...": the state of things from a
# time or an event on. Within a sentence, "since" dates it when an event in the past follows ("since the
# bus line was cut", "since the office closed") or a present perfect leads to it ("has been riding her
# bike since"); "since nobody uses it" gives a reason.
_SINCE = (
    rf"\bsince (?:{_MONTH}|last \w+|\d[\d/.-]*)|^(?:since|after)\b(?! all\b)(?=[^,]{{3,60}},)"
    r"|\bsince\b(?=[^,.;]{0,40}?\b(?:was|were|\w\w+ed)\b)|\b(?:has|have) been\b[^,.;]{0,50}?\bsince\b"
)

# Words and phrases by which a statement reports that something changed, ended or was replaced.
# Left out, as they as often say something else: "new" ("a new credit limit"), "left" before anything
# but a name or a determiner ("my left knee"), "switch" and "change" as nouns ("the kill switch", "a
# change of clothes"), "cut" but "cut down/back", "transferred" (money), "starting", "effective",
# "extended" and "shortened" ("the extended warranty", "sleeves shortened"). "After all" reverses a
# choice only after a word ("grey after all"); opening a sentence it gives a reason.
# One `\b` before all of them: the engine tries the alternatives at word starts only (4x faster than a
# `\b` in each; search asks this of every newer hit).
_CUES = re.compile(
    r"\b(?:(?<!right )(?<!just )(?<!by )(?<!ing )(?<!for )now\b(?! and then)|nowadays\b|these days\b"
    r"|from (?:now|here) on\b|going forward\b|as of\b|turns out\b"
    rf"|from (?:next|this) (?:week|month|term|year|season)\b|from (?:term \d|{_MONTH})\b"
    r"|no longer\b|no more\b|any ?more\b|instead\b|rather than\b|not going back\b|g[ai]ven? up\b|giving up\b"
    r"|(?<=\w )after all\b"
    r"|stepped down\b|fell through\b|lapsed\b|renewed\b|handed\b[^.?!]{0,50}\bover\b"
    r"|(?:went|gone|going|goes) (?:up|down)\b(?=\s*(?:$|[,.;!?]|again\b|by\b|from\b|to [^.?!\s]*\d))"
    r"|switch(?:ed|es|ing)\b|changed\b|change of plans?\b|replaced\b|swapped\b"
    r"|took over\b|taking over\b|traded\b|sold\b|moved\b|relocated\b"
    r"|reassigned\b|renamed\b|resched\w*|rebook\w*|postpon\w*"
    r"|pushed\b|delayed\b|slipped\b|brought\b[^.?!]{0,40}\bforward\b|bumped\b"
    r"|cancel+(?:ed|s)?\b|called off\b|ended\b|quit\b|stopped\b|dropped\b"
    r"|left\b(?= (?:the|a|an|his|her|my|our|their|(?-i:[A-Z])))|retired\b|raised\b|increased\b"
    r"|lowered\b|reduced\b|cut (?:down|back)\b|put\b[^.?!]{0,30}\bup\b|upgraded\b"
    r"|downgraded\b|rebuilt\b|decommissioned\b|discontinued\b|(?:closed|shut) down\b"
    rf"|{_SINCE})",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+")  # letters, "Jürgen" whole
# Verbs that report one change: "Netanel quit smoking in 2019" restates "Netanel stopped smoking in 2019".
_ONE_CHANGE = {
    "quit": "stop",
    "stopped": "stop",
    "ended": "stop",
    "relocated": "moved",
    "swapped": "switched",
    "increased": "raised",
    "reduced": "lowered",
    "canceled": "cancelled",
    "cancel": "cancelled",
}
_POSSESSOR = re.compile(r"\w+(?:'s|s')", re.IGNORECASE)
# A day or a month alone is no topic: "works until 17:00 on Thursdays since March" is not about the
# dentist appointment on Thursday.
_TIMES = frozenset(lx.WEEKDAYS) | frozenset(lx.MONTHS)
# A cue after these is said of the subject before them: "Netflix was cancelled".
_PASSIVE = {"is", "are", "was", "were", "been", "be", "being", "got", "gets", "get"}
# Cues said of what changed, not of who changed it: "the DD is going up", "the policy lapsed".
_BEFALLS = re.compile(
    r"(?:went|gone|going|goes) (?:up|down)|lapsed|fell through|(?:closed|shut) down",
    re.IGNORECASE,
)
# A clause whose subject is acted on: "Disney+ is billed to ...", "the dog has been registered at ...".
_PASSIVE_CLAUSE = re.compile(
    r"\W*(?:[\w+'-]+\s+){1,3}?(?:is|are|was|were|has been|have been|gets|got)\s+(?:now\s+)?\w+(?:ed|en)\b",
    re.IGNORECASE,
)
# Cues that change an amount ("cut down on espresso" changes a habit, which names none).
_AMOUNT_CUES = re.compile(
    r"raised|increased|lowered|reduced|(?:went|gone|going|goes) (?:up|down)|put\b.*\bup",
    re.IGNORECASE,
)
# A change verb and the thing it is done to, up to a preposition: "switched his podcast app from ...".
_OBJECT = re.compile(
    r"\b(?:switched|changed|swapped|replaced|upgraded|downgraded|traded|sold|renewed)"
    r"\s+(?:(?:his|her|their|our|my|its|the)\s+)((?:(?!from\b|to\b|for\b|with\b|by\b|at\b|in\b|on\b)[\w'-]+\s*){1,3})",
    re.IGNORECASE,
)
_NEAR = 5  # words each side of a change cue that say what changed
# Below the margin, down to this, a change must name what the older statement is about. Such pairs are
# far in meaning ("Household electricity is with AGL" / "The household switched electricity to
# Powershop as of 1 October": 0.44), as a short statement and a long one often are.
_FLOOR = 0.35
_MARGIN = 0.05  # below the threshold by up to this, a change must name two things the older one says
# Cues that say the statement is the new state of things, whatever else it says.
# "Turns out ..." corrects what was believed: the whole sentence is the truth now.
_STATE_CUES = rf"(?<!for )\bnow\b|\bnowadays\b|\bthese days\b|\bfrom (?:now|here) on\b|\bturns out\b|{_SINCE}"
_NOW = re.compile(
    rf"{_STATE_CUES}|\bno longer\b|\bno more\b|\bany ?more\b|\binstead\b|\bas of\b", re.IGNORECASE
)
# Of those, the cues that date the whole sentence ("these days", "since March"), not the words next to them.
_STATE = re.compile(_STATE_CUES, re.IGNORECASE)
# "The batteries are replaced monthly": a habit, not a change, unless a `_NOW` cue says otherwise.
_HABIT = re.compile(r"\b(?:every|each|daily|weekly|fortnightly|monthly|yearly|annually)\b", re.IGNORECASE)
# "should be sold", "wants to switch": a plan or a wish just before the cue, not a change.
_PLAN = re.compile(
    r"\b(?:should|could|might|may|would|must|needs? to|ha(?:s|ve) to|wants? to|plans? to|planning to"
    r"|thinking (?:of|about)|considering"
    r"|if|whether)(?:\s+\S+){0,2}\s*$",
    re.IGNORECASE,
)
# "cancelled this Monday only", "no training next Saturday": one occasion, not the routine changed.
_ONE_OFF = re.compile(
    rf"(?<!from )(?<!starting )(?<!as of )(?<!until )\b(?:this|next) (?:{'|'.join(lx.WEEKDAYS)}|weekend)\b(?!s)"
    r"|\b(?:just|only) (?:this|for) (?:once|today|tonight|time)\b|\bthis (?:time|once)\b|\bfor (?:today|tonight)\b"
    r"|\b(?:today|tonight) only\b",
    re.IGNORECASE,
)
# "also", "too": a further value, not a replacement; unless negated ("hasn't signed up for another").
_NEGATED = re.compile(r"(?:\bnot|n't|\bno|\bnever)\b(?:\s+\S+){0,3}\s*$", re.IGNORECASE)
# "too" before a word is "overly" ("thursday evenings too hectic"), no addition.
_ADDITIONS = re.compile(
    r"\b(?:also|too\b(?!\s+(?!and\b|but\b)\w)|as well|another|added|additionally)\b", re.IGNORECASE
)


def change_cue(text: str, older: str = "") -> str | None:
    """The cue by which a statement reports a change, or None: none found, a question, an addition, a
    habit ("replaced monthly"), a plan, or only cues the older statement says too ("I cancel the ride
    if it rains" / "Yael cancels the ride if it rains": one rule, said twice)."""
    found = _find_cue(speech(text).strip(), older)
    return found.group(0).lower() if found else None


def _find_cue(said: str, older: str) -> re.Match[str] | None:
    if _habit(said) and not _NOW.search(said):
        return None
    before = {_ONE_CHANGE.get(word, word) for word in (canon(w) for w in _WORD.findall(speech(older)))}
    for found in _CUES.finditer(said):
        cue = found.group(0)
        if _PLAN.search(said[: found.start()]) or _asked(said, found) or _once(said):
            continue  # "should be sold": a plan; "is it moved to thursday?"; "cancelled this monday only"
        if _adds(_clause(said, found)):
            continue  # "also moved to thursdays"; not "start moved to 10 March; Avi had another job"
        if " " in cue or _NOW.fullmatch(cue):
            if not _said_before(said, found, older) and not _same_start(cue, older):
                return found
        elif not any(words_match(_ONE_CHANGE.get(canon(cue), canon(cue)), word) for word in before):
            return found  # a verb the older statement says too speaks of the same event
    return None


def _habit(said: str) -> bool:
    """ "The batteries are replaced monthly": the cue is done as a habit. A habit that is the new value
    ("switched us to every other friday", "moved to weekly") is none."""
    return any(not _TO_VALUE.search(said, 0, found.start()) for found in _HABIT.finditer(said))


_TO_VALUE = re.compile(r"\b(?:to|from|into)\s+$", re.IGNORECASE)


def _once(said: str) -> bool:
    """A change for one occasion ("cancelled this Monday only"), unless it is the new state of things
    ("thursdays from now on, starting next thursday")."""
    return bool(_ONE_OFF.search(said)) and not _STATE.search(said)


def _asked(said: str, found: re.Match[str]) -> bool:
    """Whether the cue's clause is a question: "moved to thursday?", but not "i dont want a switch
    anymore, can i get a kindle instead??" (a statement, then a question)."""
    end = _CLAUSE_END.search(said, found.end())
    return end is not None and end.group(0) == "?"


_CLAUSE_END = re.compile(r"[,;.!?]")


def _clause(said: str, found: re.Match[str]) -> str:
    """The clause around a cue: up to the semicolons or sentence ends either side."""
    start = max(said.rfind(c, 0, found.start()) for c in ";.!?") + 1
    ends = [i for c in ";.!?" if (i := said.find(c, found.end())) >= 0]
    return said[start : min(ends, default=len(said))]


def _adds(said: str) -> bool:
    """An addition ("also", "another"), unless negated: "hasn't signed up for another" adds nothing."""
    return any(not _NEGATED.search(said[: found.start()]) for found in _ADDITIONS.finditer(said))


def _same_start(cue: str, older: str) -> bool:
    """ "Since 2021 the family has lived in Ramat Gan" / "moved to Ramat Gan in 2021": a state from a
    time the older statement gives too is the same news."""
    return cue.lower().startswith("since ") and cue.split()[-1].casefold() in older.casefold()


def _said_before(said: str, found: re.Match[str], older: str) -> bool:
    """The cue with the words either side of it stands in the older statement too ("nobody uses it
    anymore" twice): the same sentence, not news. "she now does" / "Netanel now does" differ."""
    words = said[: found.start()].split()[-1:] + [found.group(0)] + said[found.end() :].split()[:1]
    phrase = " ".join(_WORD.findall(" ".join(words))).casefold()
    return phrase in " ".join(_WORD.findall(older)).casefold()


def about_other_people(older: str, newer: str) -> bool:
    """Two statements about two different, named people: "Lakshmi's cardiologist" / "Yosef switched
    cardiologists". Whoever speaks a chat message is not its subject; a person named on both sides
    ("Ruth's caregiver" / "Jocelyn took over as Ruth's caregiver") is one subject."""
    names_a, names_b = _subject_names(older), _subject_names(newer)
    if not names_a or not names_b:
        return False
    return not (names_a & letter_words(newer) or names_b & letter_words(older))


def _subject_names(text: str) -> set[str]:
    """The capitalised names in a statement's subject ("Grandma Ruth": grandma, ruth)."""
    return _person_words(text) & {w.casefold() for w in _WORD.findall(speech(text)) if w[0].isupper()}


def shared_topic(older: str, newer: str) -> set[str]:
    """What the change is about, when the older memory says it too: the content words around the newer
    one's change cue (five each side) that the older one says, other than whom they are about.
    "Marcus plays futsal on Thursdays" / "Marcus quit the thursday futsal": futsal, thursday;
    "Netanel replaced the siphon under the sink" / "booked a plumber for the sink": nothing."""
    change = _change(older, newer)
    return change[1] if change else set()


def _change(older: str, newer: str, tight: bool = False) -> tuple[str, set[str]] | None:
    """The newer statement's change cue and its shared topic with the older one, or None: no cue."""
    said = speech(newer).strip()
    found = _find_cue(said, older)
    return None if found is None else (found.group(0).lower(), _near(said, found, older, newer, tight))


def _near(said: str, found: re.Match[str], older: str, newer: str, tight: bool) -> set[str]:
    start, end = found.span()
    state = _STATE.match(said, start)
    # Whom the statements are about, or who acts in them, is not what changed: "Marcus plays futsal" /
    # "Marcus quit smoking"; "The broadband is Virgin Media" / "Virgin Media replaced the router".
    left_out = _person_words(older) | _person_words(newer)
    if state is not None and state.end() == end:
        # "They buy their Friday challah at Bread and Butter these days": a cue of the state of things
        # says its whole clause is the new state, whatever it names first. ("instead", "no more"
        # speak of the words next to them: "bought an eSIM for Crete instead of roaming".)
        # Far in meaning, only the cue's own clause is read: a chat message runs its clauses together
        # with commas ("eli needs new boots, he's a US 3 now, got him the puma ones"). A leading
        # "Since March," speaks of the rest.
        stop = ";," if tight and start > 0 else ";"
        first = max(said.rfind(c, 0, start) for c in stop) + 1
        last = min((i for c in stop if (i := said.find(c, end)) >= 0), default=len(said))
        clause = sentence_around(said[first:last], start - first, end - first)
        # "Disney+ is billed to Rachel's card now": what is acted on is the topic, whoever it is.
        theirs = content_words(clause) - (set() if _PASSIVE_CLAUSE.match(clause) else left_out)
    else:
        before = said[:start].split()[-_NEAR:]
        after = [said[start:end], *said[end:].split()[:_NEAR]]
        # What the change acts on is the topic, whoever is named: "cancelled Camp Australia", "Netflix
        # was cancelled"; who acts is not ("Marcus quit smoking" is no news of Marcus's futsal).
        acted_on = (bool(before) and before[-1].casefold() in _PASSIVE) or bool(
            _BEFALLS.fullmatch(found.group(0))
        )
        theirs = content_words(_unpossessed(after)) | (
            content_words(_unpossessed(before)) - (set() if acted_on else left_out)
        )
    return {w for w in content_words(speech(older)) if any(words_match(w, v) for v in theirs)}


def _unpossessed(words: list[str]) -> str:
    """ "replaced the Corolla's tires": the tires changed, not the Corolla."""
    return " ".join(word for word in words if not _POSSESSOR.fullmatch(word))


def _person_words(text: str) -> set[str]:
    """The words of the person a statement is about ("Gil's parents": gil, parent); none for a thing."""
    key = parse(speech(text)).subject.key
    if key in (None, OWNER, SOMEONE):
        return set()
    words = re.split(r"[\s>+]+", key)
    return {*words, *(canon(w) for w in words)}  # as content words spell them: "siemens", siemen


def reported_change(older: str, newer: str, similarity: float, threshold: float) -> str | None:
    """The change cue by which `newer` replaces `older`, or None. At `similarity` below `threshold`,
    by up to _MARGIN, the change must name two things the older one says ("quit the thursday futsal":
    futsal, thursday); further below, down to _FLOOR, the very thing the older one is about ("The
    cleaning lady comes every Thursday" / "The family ended the cleaning service"). Cheapest tests
    first: most memories carry no cue."""
    far = similarity < threshold - _MARGIN
    if similarity < _FLOOR or (change := _change(older, newer, tight=far)) is None:
        return None
    cue, topic = change
    if not far:
        enough = len(topic) >= (1 if similarity >= threshold else 2)
    else:
        enough = bool(topic & parse(speech(older)).about)
    if (
        not enough
        or topic <= _TIMES
        or about_other_people(older, newer)
        or _no_amount(cue, older)
        or _other_object(newer, older)
        or _turned_down_twice(older, newer)
    ):
        return None
    return cue


def _turned_down_twice(older: str, newer: str) -> bool:
    """The newer statement passes over what the older one denies: "We do not take the car" / "We take
    the train rather than the car" agree on the car, and "rather than" changes nothing."""
    denied, passed_over = parse(speech(older)).negated, parse(speech(newer)).passed_over
    return any(words_match(w, v) for w in denied for v in passed_over)


def _other_object(newer: str, older: str) -> bool:
    """The change is done to a thing the older statement does not name: "Gil switched his podcast app
    from Spotify to Pocket Casts" against "Avital's Spotify is the Duo plan"."""
    found = _OBJECT.search(speech(newer))
    if found is None:
        return False
    said = content_words(found.group(1))
    return bool(said) and not any(words_match(w, v) for w in said for v in content_words(speech(older)))


def _no_amount(cue: str, older: str) -> bool:
    """A rise or a cut of what the older statement gives no amount for: "Maccabi raised the premium"
    against "the health fund is Maccabi" changes nothing it says."""
    if not _AMOUNT_CUES.fullmatch(cue) or _HABIT.search(older):  # "weekly" is an amount of sessions
        return False
    return not any(v.kind in ("money", "number", "frequency") for v in parse(speech(older)).values)


def named_change(older: str, newer: str) -> str | None:
    """The change cue by which `newer` reports a change to the very thing `older` names, or None: both
    about one named subject, and a name the older one gives said near the newer one's cue.
    "Netanel's Holmes Place Azrieli membership costs 289 shekels" / "Netanel cancelled the Holmes Place
    membership": cancelled. Far in meaning as such pairs can be, the name and the subject tie them."""
    if (change := _change(older, newer)) is None:
        return None
    cue, topic = change
    before, after = parse(speech(older)), parse(speech(newer).strip())
    if before.subject.key in (None, SOMEONE) or before.subject.key != after.subject.key:
        return None
    names = {key for value in before.values if value.kind == "name" for key in value.keys}
    return cue if topic & names else None
