"""Conflicts between memories: found when a memory is written, kept, and decided.

- `judge/`: the judge that reads a pair of close statements (the rules and their grammar, the pair
  model, an LLM or NLI judge beside it), which reads only the statements;
- `ledger.py`: the conflicts found, kept in Redis;
- `resolve.py`: the resolution policy, what deciding a conflict does to its memories;
- `review.py`: the write-time review that asks the judge about each new memory and applies the
  policy; `jobs.py` enqueues it (the job itself is `workers.review`);
- `commands.py`: `memhub conflicts list|resolve`.
"""

from hub.conflicts.judge import Judge, Judgement, RuleJudge, Severity, Statement, Verdict

__all__ = ["Judge", "Judgement", "RuleJudge", "Severity", "Statement", "Verdict"]
