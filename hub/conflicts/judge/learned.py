"""The pair judge (`MEMHUB_JUDGE=learned`, the default): a pair model trained on labelled pairs, with the
rules kept for what a model should not decide, and their conflicts counted beside the model's.

For an older statement `a` and a newer one `b`:
1. structured claims on both sides are compared exactly (`RuleJudge`), and the same words in the same
   order are the same statement;
2. what can conflict: only a state can be contradicted (`hub.nature`). Two events, two chat messages,
   or an event and a message, are records of what happened: compatible, whatever values differ
   ("Sent offer #118" / "Sent offer #119"). An event or a message contradicts a state only where the
   model reads that it reports its change ("I quit futsal");
3. a pair the model cannot read (too few of its words known to it: another language) is
   `unreadable`, said so, never taken for compatible;
4. the model's P(contradiction) decides a conflict, from a lower probability where a typed value of
   one kind changed between the two (a time, a date, an amount, a name: `hub.conflicts.judge.values`); at
   or above `sure` the judge is confident (a conflict it may act on), below it the conflict is
   `inferred` and waits for the owner;
5. the same fact needs the model's entailment both ways round and no typed value that changed,
   since a restatement is folded away; and two memories of one nature (a session's summary does not
   restate the decision it records);
6. where the model finds no conflict and the rule grammar does, the rules' conflict stands (with its
   own reason and severity): the two miss different changes. Its certainty stands only where the
   model reads a conflict too; otherwise it waits for the owner. The rules' conflict yields to a
   model all but sure there is none.

Severity is the rule grade (`hub.conflicts.judge.severity`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from hub.conflicts.judge.pairmodel import PairScorer
from hub.conflicts.judge.rules import (
    RECORDS,
    STATE,
    Judgement,
    RuleJudge,
    Severity,
    Statement,
    Verdict,
    _compare_values,
    can_conflict,
    known_share,
    rule_severity,
    unreadable,
)
from hub.conflicts.judge.tokens import tokenize
from hub.conflicts.judge.values import extract
from hub.nature import content

WORDS = re.compile(r"\w+")

Pair = tuple[Statement, Statement, float | None]


@dataclass(frozen=True)
class Thresholds:
    """Where the model's probabilities turn into verdicts (chosen on tuning pairs: MODEL_CARD.md)."""

    conflict: float = 0.7  # P(contradiction) from which a pair conflicts
    value_changed: float = 0.5  # ... from which it conflicts where a typed value of one kind changed
    sure: float = 0.97  # ... from which the judge is sure enough to act on it
    unsure: float = 0.2  # ... from which a non-conflict is unsure (a second judge is asked)
    # ... under which the model overrules the rules' conflict (a cue and closeness, a word negated, a
    # value compared): the highest floor that cost no change caught on the tuning pairs (MODEL_CARD.md).
    rules_floor: float = 0.05
    same: float = 0.7  # P(entailment) from which a pair says the same thing
    readable: float = 0.6  # share of a text's words the model must know
    # The rule grammar's conflicts count too where the model finds none: the two miss different
    # changes (the rules read cues and typed values, the model reads meaning).
    with_rules: bool = True


@dataclass
class LearnedJudge:
    model: PairScorer
    rules: RuleJudge = field(default_factory=RuleJudge)
    thresholds: Thresholds = field(default_factory=Thresholds)

    def judge(self, a: Statement, b: Statement, similarity: float | None = None) -> Judgement:
        return self.judge_pairs([(a, b, similarity)])[0]

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[Judgement]:
        """Judge many pairs with one pass of the model over those it must read."""
        out: list[Judgement | None] = [self._without_model(a, b, s) for a, b, s in pairs]
        asked = [i for i, found in enumerate(out) if found is None]
        if asked:
            texts = [(content(pairs[i][0].text), content(pairs[i][1].text)) for i in asked]
            for i, row in zip(asked, self.model.probabilities(texts), strict=True):
                verdict = self._verdict(pairs[i][0], pairs[i][1], float(row[0]), float(row[1]))
                out[i] = self._with_rules(verdict, *pairs[i]) if self.thresholds.with_rules else verdict
            # The same thing said again follows either way round: one that only follows from the other
            # ("Hire Ronit Levi" / "Send Ronit Levi the papers") is news, and folding would lose it.
            same = [i for i in asked if (found := out[i]) is not None and found.verdict is Verdict.same]
            if same:
                back = self.model.probabilities(
                    [(content(pairs[i][1].text), content(pairs[i][0].text)) for i in same]
                )
                for i, row in zip(same, back, strict=True):
                    if float(row[1]) < self.thresholds.same:
                        out[i] = Judgement(
                            Verdict.compatible, None, "one follows from the other, not both ways"
                        )
        return [found for found in out if found is not None]

    def readable(self, text: str) -> bool:
        return known_share(content(text), self.model.vocabulary) >= self.thresholds.readable

    def _without_model(self, a: Statement, b: Statement, similarity: float | None) -> Judgement | None:
        if a.subject and a.attribute and b.subject and b.attribute:
            return self.rules.judge(a, b, similarity)
        if not can_conflict(a, b):
            return Judgement(Verdict.compatible, None, RECORDS)
        # A session's summary and the decision it records say the same words, but one is a record of
        # what happened and the other holds until it changes: restatements are of the same nature.
        alike = (a.nature or STATE) == (b.nature or STATE)
        if alike and _words(a.text) == _words(b.text):
            return Judgement(Verdict.same, None, "the same words")
        unread = next((s.text for s in (a, b) if not self.readable(s.text)), None)
        return unreadable(unread) if unread is not None else None

    def _with_rules(
        self, found: Judgement, a: Statement, b: Statement, similarity: float | None
    ) -> Judgement:
        if found.verdict is Verdict.conflict and not found.inferred:
            return found
        ruled = self.rules.judge(a, b, similarity)
        if ruled.verdict is not Verdict.conflict:
            return found
        if found.verdict is Verdict.conflict and ruled.inferred:
            return found
        probability = found.confidence or 0.0
        if probability < self.thresholds.rules_floor:
            return found  # "now" in a chat's small talk, "not" in a long message: all but sure of none
        # The rules compare the words of a first sentence: their certainty (a value changed, a claim
        # negated) is only theirs to act on where the model reads a conflict too. Otherwise it waits
        # for the owner, since superseding hides a memory.
        return replace(
            ruled,
            reason=f"{ruled.reason} (rules; P(conflict) {probability:.2f})",
            inferred=ruled.inferred or probability < self.thresholds.conflict,
        )

    def _verdict(self, a: Statement, b: Statement, contradiction: float, entailment: float) -> Judgement:
        t = self.thresholds
        changed = contradiction >= t.value_changed and _values_changed(a.text, b.text)
        if contradiction >= t.conflict or changed:
            sure = contradiction >= t.sure
            reason = _reason(a, b, contradiction)
            return Judgement(
                Verdict.conflict,
                rule_severity(a, b),
                reason,
                inferred=not sure,
                confidence=contradiction,
                unsure=not sure,
            )
        unsure = contradiction >= t.unsure
        alike = (a.nature or STATE) == (b.nature or STATE)
        if alike and entailment >= t.same and not _values_changed(a.text, b.text):
            return Judgement(Verdict.same, None, "the same thing said again", confidence=contradiction)
        return Judgement(
            Verdict.compatible,
            None,
            f"both can hold (P(conflict) {contradiction:.2f})",
            confidence=contradiction,
            unsure=unsure,
        )


def _words(text: str) -> list[str]:
    return WORDS.findall(content(text).casefold())


def _values_changed(a: str, b: str) -> bool:
    values_a, _ = extract(tokenize(content(a)), set())
    values_b, _ = extract(tokenize(content(b)), set())
    return bool(_compare_values(values_a, values_b).changed)


def _reason(a: Statement, b: Statement, probability: float) -> str:
    """The conflict's reason: the typed value that changed, where one did, and how sure the model is."""
    values_a, _ = extract(tokenize(content(a.text)), set())
    values_b, _ = extract(tokenize(content(b.text)), set())
    changed = _compare_values(values_a, values_b).changed
    said = f"value changed: {changed[0][0].shown} → {changed[0][1].shown}" if changed else "contradicts it"
    if (a.nature or STATE) != STATE or (b.nature or STATE) != STATE:
        said = f"reports a change: {said}" if changed else "reports a change to it"
    return f"{said} (P(conflict) {probability:.2f})"


__all__ = ["LearnedJudge", "Severity", "Thresholds"]
