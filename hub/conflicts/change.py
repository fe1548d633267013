"""A newer memory that reports a change to a close, older one: "swimming is thursdays from now on",
"quit the thursday futsal", "Netflix was downgraded to the Basic plan".

The rule judge compares what two statements say of one subject and attribute, which it reads in plain
sentences and misses in most of the ways people report a change (a chat message's speaker read as its
subject, "the beagle" for "Kuki", a cancelled thing with no value to compare). This rule asks less:
- the newer text carries a change cue ("now", "switched to", "cancelled"), not as a plan ("should be
  sold") and not in the words the older one says it in ("I cancel the ride if it rains" said twice);
- the two memories are close in meaning (their cosine similarity, which the review has from its
  candidate search), and the words around the cue name something the older one says, beyond the
  people they are about ("quit the thursday futsal": futsal); for a cue that dates the whole sentence
  ("these days", "since March"), any word of that sentence; a little less close, two such things;
- they are not about two different, named people.
The review asks it only about the older memory closest to the newer one, as a change replaces one
fact. It is a weaker reading than the rules' value comparison, so the conflicts it finds are proposed
to the owner, never resolved automatically (`Judgement.inferred`).
"""

from __future__ import annotations

import re

from hub.conflicts import lexicon as lx
from hub.conflicts.chat import speech
from hub.conflicts.subject import OWNER, SOMEONE
from hub.conflicts.text import parse
from hub.conflicts.tokens import canon, content_words, sentence_around, words_match

_MONTH = "(?:" + "|".join(lx.MONTHS) + ")"

# "since March", "Since Ruth's hip surgery, ...", "After refinancing, ...": the state of things from a
# time or an event on. Within a sentence, "since" dates it when an event in the past follows ("since the
# bus line was cut", "since the office closed") or a present perfect leads to it ("has been riding her
# bike since"); "since nobody uses it" gives a reason.
_SINCE = (
    rf"\bsince (?:{_MONTH}|last \w+|\d[\d/.-]*)|^(?:since|after)\b(?=[^,]{{3,60}},)"
    r"|\bsince\b(?=[^,.;]{0,40}?\b(?:was|were|\w\w+ed)\b)|\b(?:has|have) been\b[^,.;]{0,50}?\bsince\b"
)

# Words and phrases by which a statement reports that something changed, ended or was replaced.
# Left out, as they as often say something else: "new" ("a new credit limit"), "left" before anything
# but a name or a determiner ("my left knee"), "switch" and "change" as nouns ("the kill switch", "a
# change of clothes"), "cut" but "cut down/back", "transferred" (money), "starting", "effective",
# "extended" and "shortened" ("the extended warranty", "sleeves shortened").
# One `\b` before all of them: the engine tries the alternatives at word starts only (4x faster than a
# `\b` in each; search asks this of every newer hit).
_CUES = re.compile(
    r"\b(?:(?<!right )(?<!just )(?<!by )(?<!ing )now\b(?! and then)|nowadays\b|these days\b"
    r"|from (?:now|here) on\b|going forward\b|as of\b"
    rf"|from (?:next|this) (?:week|month|term|year|season)\b|from (?:term \d|{_MONTH})\b"
    r"|no longer\b|no more\b|any ?more\b|instead\b|rather than\b|not going back\b|gave up\b"
    r"|stepped down\b|fell through\b|lapsed\b|renewed\b|handed\b[^.?!]{0,50}\bover\b"
    r"|(?:went|gone) (?:up|down)\b(?=\s*(?:$|[,.;!?]|again\b|by\b|from\b|to [^.?!\s]*\d))"
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
_WORD = re.compile(r"[A-Za-z]+")
# Verbs that report one change: "Netanel quit smoking in 2019" restates "Netanel stopped smoking in 2019".
_ONE_CHANGE = {"quit": "stop", "stopped": "stop", "ended": "stop", "relocated": "moved", "swapped": "switched",
               "increased": "raised", "reduced": "lowered", "canceled": "cancelled", "cancel": "cancelled"}  # fmt: skip
_POSSESSOR = re.compile(r"\w+(?:'s|s')", re.IGNORECASE)
# A day or a month alone is no topic: "works until 17:00 on Thursdays since March" is not about the
# dentist appointment on Thursday.
_TIMES = frozenset(lx.WEEKDAYS) | frozenset(lx.MONTHS)
_NEAR = 5  # words each side of a change cue that say what changed
_MARGIN = 0.05  # below the threshold by up to this, a change must name two things the older one says
# Cues that say the statement is the new state of things, whatever else it says.
_STATE_CUES = rf"\bnow\b|\bnowadays\b|\bthese days\b|\bfrom (?:now|here) on\b|{_SINCE}"
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
    if said.endswith("?") or _adds(said):
        return None
    if _HABIT.search(said) and not _NOW.search(said):
        return None
    before = {_ONE_CHANGE.get(word, word) for word in (canon(w) for w in _WORD.findall(speech(older)))}
    for found in _CUES.finditer(said):
        cue = found.group(0)
        if _PLAN.search(said[: found.start()]):
            continue  # "should be sold": a plan, not a change
        if " " in cue or _NOW.fullmatch(cue):
            if not _said_before(said, found, older) and not _same_start(cue, older):
                return found
        elif not any(words_match(_ONE_CHANGE.get(canon(cue), canon(cue)), word) for word in before):
            return found  # a verb the older statement says too speaks of the same event
    return None


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
    return not (names_a & _words(newer) or names_b & _words(older))


def _subject_names(text: str) -> set[str]:
    """The capitalised names in a statement's subject ("Grandma Ruth": grandma, ruth)."""
    return _person_words(text) & {w.casefold() for w in _WORD.findall(speech(text)) if w[0].isupper()}


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def shared_topic(older: str, newer: str) -> set[str]:
    """What the change is about, when the older memory says it too: the content words around the newer
    one's change cue (five each side) that the older one says, other than whom they are about.
    "Marcus plays futsal on Thursdays" / "Marcus quit the thursday futsal": futsal, thursday;
    "Netanel replaced the siphon under the sink" / "booked a plumber for the sink": nothing."""
    change = _change(older, newer)
    return change[1] if change else set()


def _change(older: str, newer: str) -> tuple[str, set[str]] | None:
    """The newer statement's change cue and its shared topic with the older one, or None: no cue."""
    said = speech(newer).strip()
    found = _find_cue(said, older)
    return None if found is None else (found.group(0).lower(), _near(said, found, older, newer))


def _near(said: str, found: re.Match[str], older: str, newer: str) -> set[str]:
    start, end = found.span()
    state = _STATE.match(said, start)
    if state is not None and state.end() == end:
        # "They buy their Friday challah at Bread and Butter these days": a cue of the state of things
        # says its whole clause is the new state, whatever it names first. ("instead", "no more"
        # speak of the words next to them: "bought an eSIM for Crete instead of roaming".)
        first = said.rfind(";", 0, start) + 1
        last = len(said) if (semicolon := said.find(";", end)) < 0 else semicolon
        near = sentence_around(said[first:last], start - first, end - first)
    else:
        words = said[:start].split()[-_NEAR:] + [said[start:end]] + said[end:].split()[:_NEAR]
        # "replaced the Corolla's tires": the tires changed, not the Corolla.
        near = " ".join(word for word in words if not _POSSESSOR.fullmatch(word))
    left_out = _person_words(older) | _person_words(newer)
    theirs = content_words(near) - left_out
    return {w for w in content_words(speech(older)) - left_out if any(words_match(w, v) for v in theirs)}


def _person_words(text: str) -> set[str]:
    """The words of the person a statement is about ("Gil's parents": gil, parent); none for a thing."""
    key = parse(speech(text)).subject.key
    return set() if key in (None, OWNER, SOMEONE) else set(re.split(r"[\s>+]+", key))


def reported_change(older: str, newer: str, similarity: float, threshold: float) -> str | None:
    """The change cue by which `newer` replaces `older`, or None. At `similarity` below `threshold`,
    by up to _MARGIN, the change must name two things the older one says ("quit the thursday futsal":
    futsal, thursday). Cheapest tests first: most memories carry no cue."""
    if similarity < threshold - _MARGIN or (change := _change(older, newer)) is None:
        return None
    cue, topic = change
    if (
        len(topic) < (1 if similarity >= threshold else 2)
        or topic <= _TIMES
        or about_other_people(older, newer)
    ):
        return None
    return cue


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
