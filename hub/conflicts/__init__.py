"""Conflict detection between memories: the judge that labels a pair of close statements."""

from hub.conflicts.judge import Judge, Judgement, RuleJudge, Severity, Statement, Verdict

__all__ = ["Judge", "Judgement", "RuleJudge", "Severity", "Statement", "Verdict"]
