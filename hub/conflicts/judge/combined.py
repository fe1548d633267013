"""The judge settings name: the pair judge or the rules, and a second judge (an LLM, an NLI model) beside it."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from hub.conflicts.judge.rules import Judge, JudgeError, Judgement, RuleJudge, Statement, Verdict
from hub.settings import Settings

if TYPE_CHECKING:
    from hub.conflicts.judge.learned import LearnedJudge
    from hub.conflicts.judge.pairmodel import PairModel, PairScorer

log = logging.getLogger(__name__)


Pair = tuple[Statement, Statement, float | None]


def judge_pairs(judge: Judge, pairs: Sequence[Pair]) -> list[Judgement]:
    """Judge many pairs at once where the judge can (one pass of a model), else one by one."""
    many = getattr(judge, "judge_pairs", None)
    if many is not None:
        found: list[Judgement] = many(pairs)
        return found
    return [judge.judge(a, b, similarity) for a, b, similarity in pairs]


@dataclass
class ConfirmingJudge:
    """A second judge (an LLM, an NLI model) beside the first. `unsure`: it is asked where the first is
    unsure or cannot read the pair, and its verdict stands; `confirm`: a first conflict stands only if
    it agrees (few calls, high precision); `replace`: it decides every pair. Either way, if it fails the
    first verdict stands."""

    second: Judge
    primary: Judge = field(default_factory=RuleJudge)
    mode: Literal["unsure", "confirm", "replace"] = "confirm"

    def judge(self, a: Statement, b: Statement, similarity: float | None = None) -> Judgement:
        return self.judge_pairs([(a, b, similarity)])[0]

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[Judgement]:
        firsts = judge_pairs(self.primary, pairs)
        return [self._second(first, *pair) for first, pair in zip(firsts, pairs, strict=True)]

    def _asks(self, first: Judgement) -> bool:
        if self.mode == "replace":
            return True
        if self.mode == "confirm":
            return first.verdict is Verdict.conflict
        return first.unsure or first.verdict is Verdict.unreadable

    def _second(self, first: Judgement, a: Statement, b: Statement, similarity: float | None) -> Judgement:
        if not self._asks(first):
            return first
        try:
            second = self.second.judge(a, b, similarity)
        except JudgeError as exc:
            # A worker must never crash on an endpoint that is down: the first verdict is a sound answer.
            log.warning("second judge failed, keeping the first verdict (%s): %s", first.verdict, exc)
            return first
        if self.mode == "replace":
            return second
        if self.mode == "unsure":
            if second.verdict is not Verdict.conflict:
                return replace(second, reason=f"{first.reason}; second judge: {second.reason}")
            # Asked because the first was unsure, a conflict is still no certainty to act on alone.
            sure = first.verdict is Verdict.conflict and not first.inferred
            reason = f"{first.reason}; second judge: {second.reason}"
            return replace(
                second, reason=reason, inferred=not sure, severity=second.severity or first.severity
            )
        if second.verdict is Verdict.conflict:
            reason = f"{first.reason}; confirmed: {second.reason}"
            return Judgement(Verdict.conflict, first.severity, reason, inferred=first.inferred)
        return Judgement(Verdict.compatible, None, second.reason)

    def close(self) -> None:
        """Release what the second judge holds (the LLM judge's HTTP connections)."""
        close = getattr(self.second, "close", None)
        if close is not None:
            close()


def load_pair_model(settings: Settings) -> PairModel:
    """The pair judge's model, hash-checked: load it once per process."""
    from hub.conflicts.judge.pairmodel import PairModel

    return PairModel(expected_sha256=settings.judge_model_sha256, threads=settings.torch_threads)


def learned_judge(settings: Settings, pair_model: PairScorer | None = None) -> LearnedJudge:
    """The pair judge shipped with memhub, with the thresholds settings give."""
    from hub.conflicts.judge.learned import LearnedJudge, Thresholds

    model = pair_model or load_pair_model(settings)
    thresholds = Thresholds(
        conflict=settings.judge_conflict_probability,
        sure=max(settings.judge_sure_probability, settings.judge_conflict_probability),
    )
    return LearnedJudge(model=model, rules=rule_judge(settings), thresholds=thresholds)


def rule_judge(settings: Settings) -> RuleJudge:
    from hub.conflicts.judge.pairmodel import vocabulary

    return RuleJudge(
        change_similarity=settings.conflict_change_similarity,
        owner_names=frozenset(name.casefold() for name in settings.owner_names),
        vocabulary=vocabulary(),
    )


def judge_from_settings(settings: Settings, *, pair_model: PairScorer | None = None) -> Judge:
    """The judge settings name: the pair judge (the default) or the rules, with an LLM or NLI judge.
    `pair_model`: the pair judge's model, where the process has loaded it already."""
    if settings.judge == "rules":
        return rule_judge(settings)
    learned = learned_judge(settings, pair_model)
    if settings.judge == "learned":
        return learned
    second: Judge
    if settings.judge == "llm":
        if not settings.llm_judge_url:
            raise ValueError("MEMHUB_JUDGE=llm needs MEMHUB_LLM_JUDGE_URL (an OpenAI-compatible base URL)")
        from hub.conflicts.judge.llm import LLMJudge

        key = settings.llm_judge_api_key
        second = LLMJudge(
            settings.llm_judge_url, settings.llm_judge_model, key.get_secret_value() if key else None
        )
    else:
        if settings.nli_model_path is None:
            raise ValueError("MEMHUB_JUDGE=nli needs MEMHUB_NLI_MODEL_PATH (a local cross-encoder folder)")
        from hub.conflicts.judge.nli import NLIJudge

        second = NLIJudge(settings.nli_model_path)
    return ConfirmingJudge(second=second, primary=learned, mode=settings.judge_mode)
