"""The conflict judge: do two close statements about the owner's life contradict each other?

`RuleJudge` is the default: pure Python, deterministic, no model. Two records of what happened (events,
chat messages: `hub.nature`) are never compared, and a pair in a language it cannot read is
`unreadable`. Structured claims (subject and attribute on both sides) are compared exactly; free
text goes through `hub.conflicts.judge.text`, which
reads a subject, a frame (what is said of it), typed values, polarity and update cues, once each
side spells the names the other gives as it does (`hub.conflicts.judge.names`: "zo's bedtime" / "Zoe's
bedtime"). Then:

1. different subjects ("Netanel" / "Dana") → `different_subject`; a subject and someone named
   through it ("Dana" / "Dana's parents") → `compatible`;
2. frames about different things ("works until 20:00" / "works from home on Fridays") → `compatible`;
3. a value of one kind that changed (a time, a day, a place, a number, a relation) → `conflict`,
   unless one side adds a value ("also") or denies the old one ("no longer on the night shift");
4. the same claim negated on one side only ("allergic" / "no allergies") → `conflict`;
5. otherwise, near-identical frames → `same`, else `compatible`.

When the caller gives the two memories' similarity (the review does, for the closest older memory),
a newer statement that reports a change to a close one ("quit the thursday futsal") is a `conflict`
whatever the rules above found, short of a conflict already (`hub.conflicts.judge.change`). Such a verdict
is `inferred`: it rests on a cue and closeness, not on values compared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from hub.conflicts.judge import lexicon as lx
from hub.conflicts.judge.change import reported_change
from hub.conflicts.judge.names import align
from hub.conflicts.judge.roles import held_role
from hub.conflicts.judge.severity import grade
from hub.conflicts.judge.subject import OWNER, SOMEONE
from hub.conflicts.judge.text import Parsed, parse
from hub.conflicts.judge.tokens import tokenize, words_match
from hub.conflicts.judge.values import Value, extract
from hub.nature import content
from hub.settings import Settings


class Verdict(StrEnum):
    conflict = "conflict"
    same = "same"
    compatible = "compatible"
    different_subject = "different_subject"
    # The judge cannot read the pair (a language its model was not trained on): no verdict, said so.
    unreadable = "unreadable"


class Severity(StrEnum):
    high = "high"
    medium = "medium"
    low = "low"


@dataclass(frozen=True)
class Statement:
    """One side of a comparison: a memory's text and, when the agent gave one, its structured claim."""

    text: str
    subject: str | None = None
    attribute: str | None = None
    value: str | None = None
    kind: str = "fact"
    nature: str | None = None  # hub.models.Nature: state, event or message; None when unknown


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    severity: Severity | None
    reason: str
    # A conflict the judge is not sure of (read from a change cue and closeness, or a model's
    # probability short of sure): proposed to the owner, never resolved automatically.
    inferred: bool = False
    # How likely the pair is to conflict, where the judge can say (a model's probability).
    confidence: float | None = None
    # The judge is unsure of this verdict: a second judge, where one is set, is asked.
    unsure: bool = False


class Judge(Protocol):
    def judge(self, a: Statement, b: Statement, similarity: float | None = None) -> Judgement:
        """Judge `a`, the older statement, against `b`, the newer; `similarity` is their cosine
        similarity when the caller knows it."""
        ...


class JudgeError(RuntimeError):
    """A judge could not give a verdict (an endpoint down, a malformed answer, a model missing)."""


def rule_severity(a: Statement, b: Statement) -> Severity:
    """The documented rule's severity for a conflict between two free-text statements: what a judge
    that finds conflicts but does not grade them (the NLI model, an LLM answering null) reports."""
    return Severity(grade(parse(a.text), parse(b.text), kinds=(a.kind, b.kind)))


STATE = "state"
RECORDS = "two records of what happened: nothing lasting to contradict"
# The share of a text's words a judge must know to read it at all.
READABLE = 0.6
_LETTER_WORDS = re.compile(r"[^\W\d_]+")


def can_conflict(a: Statement, b: Statement) -> bool:
    """Whether two statements can contradict each other: not two records of what happened (two events,
    two chat messages, or one of each: hub.nature), whatever values differ."""
    return STATE in (a.nature or STATE, b.nature or STATE)


def known_share(text: str, vocabulary: frozenset[str]) -> float:
    """The share of a text's words found whole in `vocabulary` (1.0 with no words, or no vocabulary).
    Capitalised words are left out where others remain: names ("Krümel", "Sparkasse") are in no
    vocabulary, in any language."""
    words = _LETTER_WORDS.findall(text)
    words = [w.casefold() for w in ([w for w in words if not w[0].isupper()] or words)]
    if not words or not vocabulary:
        return 1.0
    return sum(1 for w in words if w in vocabulary) / len(words)


def readable(text: str, vocabulary: frozenset[str]) -> bool:
    return known_share(text, vocabulary) >= READABLE


def unreadable(text: str) -> Judgement:
    return Judgement(
        Verdict.unreadable,
        None,
        f"the judge reads English only and cannot read {text[:60]!r}; "
        "set MEMHUB_JUDGE=llm and MEMHUB_LLM_JUDGE_URL to have a language model judge such pairs",
        unsure=True,
    )


# Share of the smaller frame's words found in the larger one, from which two frames speak of one attribute:
# two of three words, or every word of a frame of one or two.
RELATED = 0.66
# Share of the larger frame's words matched, from which two statements say the same thing. "Same" makes
# the hub fold the newer memory into the older one, so it must be near-certain: at 0.5, memories that
# differ in one thing ("Avi's desk needs a charger" / "Avi's stroller needs a charger") were folded.
SAME = 0.9


def _matched(small: Iterable[str], large: frozenset[str]) -> int:
    return sum(1 for word in small if any(words_match(word, other) for other in large))


def _overlaps(a: frozenset[str], b: frozenset[str]) -> tuple[float, float] | None:
    """(containment, similarity) of two frames; None when either is empty."""
    if not a or not b:
        return None
    small, large = sorted((a, b), key=len)
    hits = _matched(small, large)
    return hits / len(small), hits / len(large)


@dataclass(frozen=True)
class _ValueDiff:
    changed: list[tuple[Value, Value]]  # (a's value, b's value) per kind that disagrees
    agreed: set[str]
    only_a: set[str]
    only_b: set[str]


def _compare_values(a: Iterable[Value], b: Iterable[Value], skip_names: bool = False) -> _ValueDiff:
    by_kind_a: dict[str, list[Value]] = {}
    by_kind_b: dict[str, list[Value]] = {}
    # A name that says when ("before the Eilat trip") is no value of what either side says.
    for value in a:
        if not value.occasion:
            by_kind_a.setdefault(value.kind, []).append(value)
    for value in b:
        if not value.occasion:
            by_kind_b.setdefault(value.kind, []).append(value)
    if skip_names:
        by_kind_a.pop("name", None)
        by_kind_b.pop("name", None)
    diff = _ValueDiff([], set(), set(by_kind_a) - set(by_kind_b), set(by_kind_b) - set(by_kind_a))
    for kind in sorted(set(by_kind_a) & set(by_kind_b)):  # one order, one reason, whatever the hash seed
        new_a = [v for v in by_kind_a[kind] if not any(v.agrees(w) for w in by_kind_b[kind])]
        new_b = [w for w in by_kind_b[kind] if not any(w.agrees(v) for v in by_kind_a[kind])]
        if new_a and new_b:
            diff.changed.append((new_a[0], new_b[0]))
        else:
            diff.agreed.add(kind)
    return diff


def _relate_subjects(a: Parsed, b: Parsed) -> str:
    """How the subjects relate: same, related (one named through the other), mention, or different."""
    sa, sb = a.subject, b.subject
    if sa.key and sb.key:
        if sa.key == sb.key or SOMEONE in (sa.key, sb.key):
            if sa.words and sb.words and not _nested(sa.words, sb.words):
                return "different"
            return "same"
        if SOMEONE in (sa.via, sb.via) and sa.key.split(">")[-1] == sb.key.split(">")[-1]:
            return "same"
        if sa.via in (sb.key, SOMEONE) or sb.via in (sa.key, SOMEONE):
            return "related"
        if _names_each_other(a, b):
            return "mention"
        return "different"
    if not sa.key and not sb.key and sa.words and sb.words:
        return "same" if _nested(sa.words, sb.words) else "different"
    # "The Netflix subscription costs ..." / "Netflix is ...": a name and a thing named by it.
    named, thing = (sa, sb) if sa.key else (sb, sa)
    if named.key not in (None, SOMEONE) and not thing.key and set(named.key.split()) <= thing.words:
        return "same"
    # A thing on one side, a person (or nothing we could read) on the other: "The rent is ..." /
    # "We pay ... rent": the same subject when each side's subject shows up in the other.
    return "mention" if _names_each_other(a, b) else "different"


def _nested(a: frozenset[str], b: frozenset[str]) -> bool:
    small, large = sorted((a, b), key=len)
    return _matched(small, large) == len(small)


def _subject_words(p: Parsed) -> set[str]:
    s = p.subject
    words = set(s.words)
    if s.key and s.key != SOMEONE:
        words.update(s.key.replace(">", " ").replace("+", " ").split())
    return words


def _names_each_other(a: Parsed, b: Parsed) -> bool:
    # A title names no one: "Dr. Okafor ... is Lakshmi's regular doctor" / "Lakshmi's GP is Dr. Okafor".
    wa, wb = _subject_words(a) - lx.NAME_FILLERS, _subject_words(b) - lx.NAME_FILLERS
    found_a = not wa or _matched(wa, b.content) == len(wa)
    found_b = not wb or _matched(wb, a.content) == len(wb)
    # A thing nobody is said to own ("the rent") is the owner's household's: "we pay ... rent" names it.
    if wa == {OWNER} and b.subject.key is None:
        found_a = True
    if wb == {OWNER} and a.subject.key is None:
        found_b = True
    return found_a and found_b and bool(wa or wb)


# "Next year he wants the 160 km route" does not contradict "he signed up for the 120 km route": a
# value said of another occasion than the other statement's.
_OTHER_OCCASION = re.compile(
    r"\b(?:next|last|previous|following|coming)\s+(?:year|season|time|edition|summer|winter|spring|autumn)\b"
    r"|\b(?:in|for)\s+20\d\d\b",
    re.IGNORECASE,
)


def _decide(
    a: Parsed,
    b: Parsed,
    frame_a: frozenset[str],
    frame_b: frozenset[str],
    diff: _ValueDiff,
    kinds: tuple[str, str],
) -> Judgement:
    """The verdict for two statements about one subject."""
    for old, new in ((a, b), (b, a)):
        gone = _replaced_value(old, new)
        if gone is not None and not old.update:
            return _conflict(a, b, f"says {gone.shown} was replaced", [gone], kinds)
    overlaps = _overlaps(frame_a, frame_b)
    about = a.subject.shown or b.subject.shown or "the subject"
    if overlaps is not None and overlaps[0] < RELATED:
        if not diff.changed and _pinned(a, b, overlaps, diff) and a.negative == b.negative:
            return Judgement(Verdict.same, None, f"the same {'/'.join(sorted(diff.agreed))} for {about}")
        return Judgement(Verdict.compatible, None, f"different attributes of {about}")
    if overlaps is None and not diff.changed and not diff.agreed and a.negative == b.negative:
        return Judgement(Verdict.compatible, None, f"nothing in common to compare about {about}")
    if a.additive or b.additive:
        return Judgement(Verdict.compatible, None, f"adds a value for {about}")
    if (
        overlaps is None
        and bool(frame_a) != bool(frame_b)
        and {va.kind for va, _ in diff.changed} == {"name"}
        and ">" not in (a.subject.key or "")
    ):
        # "Lena goes to the Grundschule am Park" / "Lena's class got a new teacher, Herr Brandt": one
        # side says only names, the other what its name is of; nothing says they name one thing. (Of a
        # relative or a role, "Dana's new boss is Greg", the name is the one value.)
        return Judgement(Verdict.compatible, None, f"names of different things about {about}")
    update = a.update or b.update
    if diff.changed:
        changed_kinds = {va.kind for va, _ in diff.changed}
        if a.negative != b.negative:
            return Judgement(Verdict.compatible, None, "one denies a value the other does not claim")
        if "weekday" in changed_kinds and len(changed_kinds) > 1 and not update:
            return Judgement(Verdict.compatible, None, "different occasions (another day, another value)")
        if "weekday" in changed_kinds and not update and (_one_off(a, b) or _one_off(b, a)):
            return Judgement(Verdict.compatible, None, "one occasion (a date) against a routine")
        if bool(_OTHER_OCCASION.search(a.text)) != bool(_OTHER_OCCASION.search(b.text)) and not update:
            return Judgement(Verdict.compatible, None, "different occasions (next year, last time, ...)")
        va, vb = diff.changed[0]
        reason = f"value changed: {va.shown} → {vb.shown}"
        return _conflict(a, b, reason, [v for pair in diff.changed for v in pair], kinds)
    if a.negative != b.negative and _denies_what_other_says(a, b):
        if overlaps is None and not diff.agreed:
            return Judgement(Verdict.compatible, None, f"nothing in common to compare about {about}")
        return _conflict(a, b, f"polarity flip about {about}: one affirms what the other denies", [], kinds)
    close = overlaps is None or overlaps[1] >= SAME or _pinned(a, b, overlaps, diff)
    if close and not _news(a, b) and not _news(b, a):
        return Judgement(Verdict.same, None, f"the same fact about {about}, restated")
    return Judgement(Verdict.compatible, None, f"compatible facts about {about}")


def _denies_what_other_says(a: Parsed, b: Parsed) -> bool:
    """Whether the negative side denies something the other says: "doesn't eat meat" / "eats meat",
    not "8:30, no arguing" / "8:30pm"."""
    negative, other = (a, b) if a.negative else (b, a)
    if not negative.negated:
        return True  # a negation at the end ("... not any more") is said of the whole statement
    forbids = other.frame & lx.FORBIDS
    if forbids and not _matched(negative.negated, frozenset(forbids)):
        return False  # "can't have penicillin" / "allergic to penicillin"; not "has no allergies"
    if _matched(negative.negated, other.passed_over):
        # "We do not take the car" / "We take the train rather than the car": both turn the car down,
        # and the verb they share is no denial of the train.
        return False
    # "voice notes, not long texts" denies nothing that "voice notes over long texts" affirms.
    return bool(_matched(negative.negated, other.content - other.passed_over))


def _one_off(routine: Parsed, once: Parsed) -> bool:
    """ "Maisie does ballet on Wednesdays" / "Maisie's ballet show is sat 21 june": a dated occasion
    is not a new day for the routine (days in the plural, or "every")."""
    kinds = {v.kind for v in once.values}
    if "date" not in kinds or any(v.kind == "date" for v in routine.values):
        return False
    return any(
        v.kind == "weekday" and (v.shown.lower().endswith("s") or _EVERY.search(routine.text))
        for v in routine.values
    )


_EVERY = re.compile(r"\b(?:every|each)\s+\w+day\b", re.IGNORECASE)


def _replaced_value(old: Parsed, new: Parsed) -> Value | None:
    """A value of `old` that `new` says was replaced ("moved from Harel to Migdal" against "insured
    with Harel"): the newer statement names the older one's value as gone."""
    return next((gone for gone in new.replaced if any(gone.agrees(v) for v in old.values)), None)


def _pinned(a: Parsed, b: Parsed, overlaps: tuple[float, float] | None, diff: _ValueDiff) -> bool:
    """Both sides agree on a value specific enough to identify the fact: a phone number, an amount, or a
    day and time for frames that share a word. A statement of change never merely restates one."""
    if a.update != b.update:
        return False
    if diff.agreed & _IDENTIFYING:
        return True
    moment = "time" in diff.agreed and bool(diff.agreed & {"weekday", "date"})
    return moment and overlaps is not None and overlaps[0] > 0


def _news(a: Parsed, b: Parsed) -> bool:
    """Whether a carries a value b neither states nor mentions (an aisle seat, a town)."""
    kinds_b = {v.kind for v in b.values}
    return any(v.kind not in kinds_b and v.kind != "frequency" and not (v.keys & b.content) for v in a.values)


def _conflict(a: Parsed, b: Parsed, reason: str, changed: list[Value], kinds: tuple[str, str]) -> Judgement:
    return Judgement(Verdict.conflict, Severity(grade(a, b, changed, kinds)), reason)


# Values specific enough that agreeing on one means the two statements say the same thing.
_IDENTIFYING = {"ident", "email", "money"}

_SPACES = re.compile(r"[\s_\-]+")


def _norm(text: str) -> str:
    return _SPACES.sub(" ", text.strip().strip(".").casefold())


# Cosine similarity from which a newer statement with a change cue replaces the older one.
CHANGE_SIMILARITY: float = Settings.model_fields["conflict_change_similarity"].default


@dataclass(frozen=True)
class RuleJudge:
    """The default judge: rules over structured claims and over free text, no model; two records of
    what happened never conflict, and a text in a language the rules cannot read is said so.

    `owner_names` are the names the owner goes by: "Yael's dentist" is the owner's, as "my dentist" is.
    """

    change_similarity: float = CHANGE_SIMILARITY
    owner_names: frozenset[str] = frozenset()
    # The words the rules can read (the embedding model's vocabulary); empty: read every text.
    vocabulary: frozenset[str] = frozenset()

    def judge(self, a: Statement, b: Statement, similarity: float | None = None) -> Judgement:
        if a.subject and a.attribute and b.subject and b.attribute:
            return self._structured(a, b)
        if not can_conflict(a, b):
            return Judgement(Verdict.compatible, None, RECORDS)
        unread = next((s.text for s in (a, b) if not readable(s.text, self.vocabulary)), None)
        if unread is not None:
            return unreadable(unread)
        older, newer = align(content(a.text), content(b.text))
        found = self._free_text(older, newer, (a.kind, b.kind))
        if found.verdict is Verdict.conflict or similarity is None:
            return found
        cue = reported_change(older, newer, similarity, self.change_similarity)
        if cue is None:
            return found
        reason = f"the newer statement reports a change ({cue!r}) to a close one"
        return Judgement(Verdict.conflict, rule_severity(a, b), reason, inferred=True)

    def _free_text(self, a: str, b: str, kinds: tuple[str, str]) -> Judgement:
        pa, pb = as_owner(parse(a), self.owner_names), as_owner(parse(b), self.owner_names)
        relation = _relate_subjects(pa, pb)
        if relation == "different":
            held = _role_holders(pa, pb, kinds, self.owner_names)
            if held is not None:
                return held
            shown = f"{pa.subject.shown or '?'} vs {pb.subject.shown or '?'}"
            return Judgement(Verdict.different_subject, None, f"different subjects: {shown}")
        if relation == "related":
            return Judgement(
                Verdict.compatible, None, f"{pa.subject.shown} and {pb.subject.shown} are different people"
            )
        if relation == "mention":  # subjects phrased differently: compare everything said
            diff = _compare_values(pa.values, pb.values, skip_names=True)
            return _decide(pa, pb, pa.content, pb.content, diff, kinds)
        return _decide(pa, pb, pa.frame, pb.frame, _compare_values(pa.values, pb.values), kinds)

    def _structured(self, a: Statement, b: Statement) -> Judgement:
        subject_a = _norm_subject(a.subject or "", self.owner_names)
        subject_b = _norm_subject(b.subject or "", self.owner_names)
        if subject_a != subject_b:
            return Judgement(
                Verdict.different_subject, None, f"different subjects: {a.subject} vs {b.subject}"
            )
        if _norm(a.attribute or "") != _norm(b.attribute or ""):
            return Judgement(
                Verdict.compatible, None, f"different attributes: {a.attribute} vs {b.attribute}"
            )
        if _same_value(a.value, b.value):
            return Judgement(Verdict.same, None, f"same {a.attribute} for {a.subject}")
        claims = parse(_claim_text(a)), parse(_claim_text(b))
        texts = parse(a.text), parse(b.text)
        severity = max(
            grade(*claims, kinds=(a.kind, b.kind)), grade(*texts, kinds=(a.kind, b.kind)), key=_rank
        )
        return Judgement(Verdict.conflict, Severity(severity), f"value changed: {a.value} → {b.value}")


def _role_holders(
    a: Parsed, b: Parsed, kinds: tuple[str, str], owner_names: frozenset[str]
) -> Judgement | None:
    """A role of one holder named on both sides, either way round ("Dr. Levi is our dentist" / "Our
    dentist is Dr. Katz", or twice as a holder): the same holder, or a changed one. None: no such role."""
    held_a, held_b = held_role(a, owner_names), held_role(b, owner_names)

    def names(p: Parsed, held: tuple[str, str, str] | None) -> list[Value]:
        if held is not None:
            return [Value("name", frozenset(held[1].split()) - lx.NAME_FILLERS, held[2], 0)]
        return [v for v in p.values if v.kind == "name" and not v.occasion]

    if held_a is None and held_b is None:
        return None
    role = held_a[0] if held_a else a.subject.key
    if role != (held_b[0] if held_b else b.subject.key):
        return None  # the roles of two people, or two roles
    old, new = names(a, held_a), names(b, held_b)
    if not old or not new:
        return None
    about = (role or "").replace(">", "'s ")
    if any(v.agrees(w) for v in old for w in new):
        return Judgement(Verdict.same, None, f"the same {about}")
    return _conflict(a, b, f"value changed: {old[0].shown} → {new[0].shown}", [old[0], new[0]], kinds)


def _norm_subject(subject: str, owner_names: frozenset[str] = frozenset()) -> str:
    norm = _norm(subject)
    return OWNER if norm in _OWNER_ALIASES or norm in owner_names else norm


def as_owner(parsed: Parsed, owner_names: frozenset[str]) -> Parsed:
    """`parsed` with the owner's names read as the owner: "Yael's dentist" as "my dentist" is read.
    `owner_names` are lowercase."""
    if not owner_names:
        return parsed
    subject = parsed.subject

    def owned(key: str | None) -> str | None:
        if key is None:
            return None
        return re.sub(r"[^>+]+", lambda m: OWNER if m.group(0) in owner_names else m.group(0), key)

    key, via = owned(subject.key), owned(subject.via)
    named = any(set(name.split()) <= parsed.content for name in owner_names)
    if (key, via) == (subject.key, subject.via) and not named:
        return parsed
    shown = subject.shown if key == subject.key else (key or "")
    content = parsed.content | {OWNER} if named else parsed.content
    return replace(parsed, subject=replace(subject, key=key, via=via, shown=shown), content=content)


_OWNER_ALIASES = {"i", "me", "my", "we", "us", "owner", "the owner", "myself"}


def _claim_text(s: Statement) -> str:
    return f"{s.subject}'s {s.attribute} is {s.value or 'unknown'}"


def _rank(severity: str) -> int:
    return ("low", "medium", "high").index(severity)


def _same_value(a: str | None, b: str | None) -> bool:
    """Values equal once normalised; "8pm" and "20:00" are one time."""
    if a is None or b is None:
        return a is None and b is None
    if _norm(a) == _norm(b):
        return True
    values_a, _ = extract(tokenize(a), set())
    values_b, _ = extract(tokenize(b), set())
    if not values_a or not values_b:
        return False
    diff = _compare_values(values_a, values_b)
    return not diff.changed and not diff.only_a and not diff.only_b
