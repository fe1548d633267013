"""An optional conflict judge: a local NLI cross-encoder (contradiction / entailment / neutral)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hub.conflicts.judge.rules import JudgeError, Judgement, Statement, Verdict, rule_severity

_LABELS = ("contradiction", "entailment", "neutral")


class NLIJudge:
    """Contradiction either way is a conflict, entailment both ways the same fact, else compatible."""

    def __init__(self, model_path: Path | str) -> None:
        path = Path(model_path)
        if not path.is_dir():
            raise JudgeError(f"NLI model folder {path} does not exist; set MEMHUB_NLI_MODEL_PATH to one")
        # The model comes from disk only: nothing is fetched from a model hub at run time.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import CrossEncoder

        self.model: Any = CrossEncoder(str(path), local_files_only=True)
        self.labels = _label_order(self.model.config.id2label)

    def judge(self, a: Statement, b: Statement, similarity: float | None = None) -> Judgement:
        """Reads the two texts; `similarity` is not used."""
        scores = self.model.predict([(a.text, b.text), (b.text, a.text)], convert_to_numpy=True)
        forward, backward = (self.labels[int(row.argmax())] for row in scores)
        if "contradiction" in (forward, backward):
            return Judgement(Verdict.conflict, rule_severity(a, b), "the NLI model reads a contradiction")
        if forward == backward == "entailment":
            return Judgement(Verdict.same, None, "the NLI model reads entailment both ways")
        return Judgement(Verdict.compatible, None, f"the NLI model reads {forward} / {backward}")


def _label_order(id2label: dict[Any, str]) -> list[str]:
    """The model's labels by output index, folded to contradiction / entailment / neutral."""
    labels = [str(id2label[i]).casefold() for i in sorted(id2label, key=int)]
    unknown = [label for label in labels if label not in _LABELS]
    if unknown or len(labels) != len(_LABELS):
        raise JudgeError(f"not an NLI model: labels {labels}, expected {list(_LABELS)} in some order")
    return labels
