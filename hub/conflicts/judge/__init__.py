"""The judge: reads two statements and says whether they conflict. It reads only the statements (with
a model or an LLM where one is configured), never Redis or the store: what the hub does with a
verdict is the package above (`hub.conflicts`).

- `rules.py`: the default rule judge, and what every judge shares (`Statement`, `Judgement`,
  `Verdict`, `Severity`, the `Judge` protocol);
- the rule grammar it reads with: `tokens.py`, `lexicon.py` (word lists), `subject.py`, `chat.py`
  (a message's speaker), `names.py`, `values.py` (typed values), `text.py` (a statement read into
  parts), `roles.py`, `change.py` (a reported change), `severity.py`;
- `fold.py`: whether one memory's words add nothing to another's, so it may be folded into it;
- the other judges: `learned.py` with its model in `pairmodel/`, `llm.py`, `nli.py`, and
  `combined.py`, which builds the one the settings name.
"""

from hub.conflicts.judge.rules import (
    Judge,
    JudgeError,
    Judgement,
    RuleJudge,
    Severity,
    Statement,
    Verdict,
    rule_severity,
)

__all__ = [
    "Judge",
    "JudgeError",
    "Judgement",
    "RuleJudge",
    "Severity",
    "Statement",
    "Verdict",
    "rule_severity",
]
