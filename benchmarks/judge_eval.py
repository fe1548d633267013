"""Measuring a conflict judge on labelled pairs: by category, with what the policy would do.

A pair is an older statement `a` and a newer `b`, each with the kind and style an agent published it
with (benchmarks/data/judge_pairs_*.jsonl). The judge sees what the hub would: the texts, the kinds,
and the nature, either as the agent would set it (a daily-log line is an event, a chat message a
message: `published`) or left to the hub to infer from the kind and text alone (`inferred`).
"""

from __future__ import annotations

import csv
import json
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hub.conflicts import Judge, Judgement, Statement, Verdict
from hub.models import Kind, Nature
from hub.nature import infer_nature

DATA = Path(__file__).parent / "data"
BLIND = [DATA / "judge_pairs_a.jsonl", DATA / "judge_pairs_b.jsonl"]
MULTILINGUAL = DATA / "judge_pairs_multilingual.jsonl"
MNLI_MISMATCHED = Path(__file__).resolve().parents[2] / "shared/data/nli/mnli/multinli_1.0_dev_mismatched.csv"
STYLE_NATURE = {"log": Nature.event, "chat": Nature.message}

Pair = dict[str, Any]


def load(paths: Sequence[Path], split: str | None = None) -> list[Pair]:
    rows: list[Pair] = []
    for path in paths:
        with path.open(encoding="utf-8") as f:
            rows += [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if split is None or r.get("split") == split]


def statements(pair: Pair, natures: str) -> tuple[Statement, Statement]:
    """The pair as the hub would judge it; `natures` is `published`, `inferred` or `none`."""
    out = []
    for side in ("a", "b"):
        text, kind = pair[side], pair.get(f"{side}_kind", "fact")
        nature: Nature | None = None
        if natures == "published":
            nature = STYLE_NATURE.get(pair.get(f"{side}_style", "statement"))
        if natures != "none" and nature is None:
            nature = infer_nature(Kind(kind), text)
        out.append(Statement(text, kind=kind, nature=nature.value if nature else None))
    return out[0], out[1]


def judge_all(judge: Judge, pairs: Sequence[tuple[Statement, Statement, float | None]]) -> list[Judgement]:
    many: Callable[..., list[Judgement]] | None = getattr(judge, "judge_pairs", None)
    if many is not None:
        return many(pairs)
    return [judge.judge(a, b, s) for a, b, s in pairs]


def supersedes(pair: Pair, judgement: Judgement, auto_resolve: frozenset[str] = frozenset({"low"})) -> bool:
    """Whether the review's policy would supersede the older memory without asking anyone."""
    if judgement.verdict is not Verdict.conflict or judgement.inferred:
        return False
    return pair.get("b_kind") == "correction" or (judgement.severity or "medium") in auto_resolve


def asks_owner(judgement: Judgement, ask: frozenset[str] = frozenset({"high"})) -> bool:
    return judgement.verdict is Verdict.conflict and judgement.severity in ask


@dataclass
class Result:
    pairs: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    by_category: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    superseded: int = 0
    superseded_right: int = 0
    questions: int = 0
    questions_wrong: int = 0
    unreadable: int = 0
    seconds: float = 0.0
    errors: list[tuple[Pair, Judgement]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    def flagged_share(self, category: str) -> tuple[int, int]:
        row = self.by_category.get(category, Counter())
        return row["flagged"], row["total"]


def evaluate(
    judge: Judge,
    pairs: Sequence[Pair],
    natures: str = "published",
    similarity: dict[str, float] | None = None,
) -> Result:
    built = [(*statements(p, natures), (similarity or {}).get(p["id"])) for p in pairs]
    started = time.perf_counter()
    judgements = judge_all(judge, built)
    result = Result(pairs=len(pairs), seconds=time.perf_counter() - started)
    for pair, judgement in zip(pairs, judgements, strict=True):
        gold = pair["label"] == "conflict"
        flagged = judgement.verdict is Verdict.conflict
        result.tp += gold and flagged
        result.fp += flagged and not gold
        result.fn += gold and not flagged
        result.unreadable += judgement.verdict is Verdict.unreadable
        row = result.by_category[pair.get("category", pair["label"])]
        row["total"] += 1
        row["flagged"] += flagged
        if supersedes(pair, judgement):
            result.superseded += 1
            result.superseded_right += gold
        if asks_owner(judgement):
            result.questions += 1
            result.questions_wrong += not gold
        if gold != flagged:
            result.errors.append((pair, judgement))
    return result


def report(name: str, result: Result) -> str:
    lines = [
        f"{name}: {result.pairs} pairs  precision {result.precision:.3f}  recall {result.recall:.3f}  "
        f"(tp {result.tp}, fp {result.fp}, fn {result.fn})  unreadable {result.unreadable}  "
        f"{1e3 * result.seconds / max(result.pairs, 1):.2f} ms/pair",
        f"    superseded automatically {result.superseded} (right {result.superseded_right}); "
        f"questions to the owner {result.questions} (not conflicts {result.questions_wrong})",
    ]
    cells = []
    for category in sorted(result.by_category):
        flagged, total = result.flagged_share(category)
        cells.append(f"{category} {flagged}/{total}")
    lines.append("    flagged by category: " + ", ".join(cells))
    return "\n".join(lines)


def mnli_pairs(path: Path = MNLI_MISMATCHED, limit: int | None = None) -> list[Pair]:
    """MultiNLI dev mismatched as labelled pairs: contradiction is a conflict, the rest is not."""
    rows: list[Pair] = []
    with path.open(encoding="utf-8") as f:
        for i, row in enumerate(csv.DictReader(f)):
            if row["label"] not in ("contradiction", "entailment", "neutral"):
                continue
            label = "conflict" if row["label"] == "contradiction" else "compatible"
            rows.append(
                {
                    "id": f"mnli-{i}",
                    "a": row["sentence1"],
                    "b": row["sentence2"],
                    "label": label,
                    "category": row["label"],
                }
            )
            if limit and len(rows) >= limit:
                break
    return rows


def f1(result: Result) -> float:
    p, r = result.precision, result.recall
    return 2 * p * r / (p + r) if p + r else 0.0
