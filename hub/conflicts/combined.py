"""A second judge (an LLM or an NLI model) that confirms or replaces the rule judge, and the one from settings."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Literal

from hub.conflicts.judge import Judge, JudgeError, Judgement, RuleJudge, Statement, Verdict
from hub.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class ConfirmingJudge:
    """`confirm`: a rule conflict stands only if the second judge agrees (few calls, high precision).
    `replace`: the second judge decides every pair. Either way, if it fails the rule verdict stands."""

    second: Judge
    primary: Judge = field(default_factory=RuleJudge)
    mode: Literal["confirm", "replace"] = "confirm"

    def judge(self, a: Statement, b: Statement, similarity: float | None = None) -> Judgement:
        first = self.primary.judge(a, b, similarity)
        if self.mode == "confirm" and first.verdict is not Verdict.conflict:
            return first
        try:
            second = self.second.judge(a, b, similarity)
        except JudgeError as exc:
            # A worker must never crash on an endpoint that is down: the rule verdict is a sound answer.
            log.warning("second judge failed, keeping the rule verdict (%s): %s", first.verdict, exc)
            return first
        if self.mode == "replace":
            return second
        if second.verdict is Verdict.conflict:
            reason = f"{first.reason}; confirmed: {second.reason}"
            return Judgement(Verdict.conflict, first.severity, reason, inferred=first.inferred)
        return Judgement(Verdict.compatible, None, second.reason)

    def close(self) -> None:
        """Release what the second judge holds (the LLM judge's HTTP connections)."""
        close = getattr(self.second, "close", None)
        if close is not None:
            close()


def judge_from_settings(settings: Settings) -> Judge:
    """The rule judge, alone or with the LLM or NLI judge that settings name."""
    rules = RuleJudge(
        change_similarity=settings.conflict_change_similarity,
        owner_names=frozenset(name.casefold() for name in settings.owner_names),
    )
    if settings.judge == "rules":
        return rules
    second: Judge
    if settings.judge == "llm":
        if not settings.llm_judge_url:
            raise ValueError("MEMHUB_JUDGE=llm needs MEMHUB_LLM_JUDGE_URL (an OpenAI-compatible base URL)")
        from hub.conflicts.llm import LLMJudge

        key = settings.llm_judge_api_key
        second = LLMJudge(
            settings.llm_judge_url, settings.llm_judge_model, key.get_secret_value() if key else None
        )
    else:
        if settings.nli_model_path is None:
            raise ValueError("MEMHUB_JUDGE=nli needs MEMHUB_NLI_MODEL_PATH (a local cross-encoder folder)")
        from hub.conflicts.nli import NLIJudge

        second = NLIJudge(settings.nli_model_path)
    return ConfirmingJudge(second=second, primary=rules, mode=settings.judge_mode)
