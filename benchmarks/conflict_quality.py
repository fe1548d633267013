"""How well a conflict judge labels the hand-written pairs in benchmarks/data/conflict_pairs.jsonl.

    python -m benchmarks.conflict_quality              # full set, dev and held-out
    python -m benchmarks.conflict_quality --errors dev # also list the misjudged dev pairs

Every fifth pair (ids cp-005, cp-010, ...) is held out: rules are written against the dev part
only, and the held-out number says whether they generalise.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hub.conflicts import Judge, RuleJudge, Statement, Verdict

DATA = Path(__file__).parent / "data" / "conflict_pairs.jsonl"
LABELS = [v.value for v in Verdict]
HOLD_OUT_EVERY = 5


def load_pairs(path: Path = DATA) -> list[dict[str, Any]]:
    """The labelled pairs, in file order."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def split(pairs: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Dev and held-out parts: every fifth pair is held out."""
    held = [p for i, p in enumerate(pairs, 1) if i % HOLD_OUT_EVERY == 0]
    dev = [p for i, p in enumerate(pairs, 1) if i % HOLD_OUT_EVERY != 0]
    return {"dev": dev, "held_out": held}


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


def evaluate(judge: Judge, pairs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Run the judge on every pair; confusion matrix, conflict precision/recall/F1, severity accuracy."""
    confusion: Counter[tuple[str, str]] = Counter()
    severity_hits = severity_total = 0
    errors = []
    started = time.perf_counter()
    for pair in pairs:
        judgement = judge.judge(Statement(pair["a"]), Statement(pair["b"]))
        gold, predicted = pair["label"], judgement.verdict.value
        confusion[(gold, predicted)] += 1
        if gold == predicted == "conflict":
            severity_total += 1
            severity_hits += judgement.severity == pair["severity"]
        if gold != predicted or (gold == "conflict" and judgement.severity != pair["severity"]):
            errors.append({**pair, "predicted": predicted, "predicted_severity": judgement.severity,
                           "reason": judgement.reason})  # fmt: skip
    elapsed = time.perf_counter() - started
    tp = confusion[("conflict", "conflict")]
    flagged = sum(n for (_, p), n in confusion.items() if p == "conflict")
    actual = sum(n for (g, _), n in confusion.items() if g == "conflict")
    precision, recall = _ratio(tp, flagged), _ratio(tp, actual)
    return {
        "pairs": len(pairs),
        "confusion": {g: {p: confusion[(g, p)] for p in LABELS} for g in LABELS},
        "accuracy": _ratio(sum(confusion[(label, label)] for label in LABELS), len(pairs)),
        "conflict_precision": precision,
        "conflict_recall": recall,
        "conflict_f1": _ratio(int(2 * precision * recall * 1e6), int((precision + recall) * 1e6)),
        "false_alarms": flagged - tp,
        "same_flagged_as_conflict": confusion[("same", "conflict")],
        "severity_accuracy": _ratio(severity_hits, severity_total),
        "severity_checked": severity_total,
        "microseconds_per_pair": 1e6 * elapsed / max(len(pairs), 1),
        "errors": errors,
    }


def _report(name: str, result: dict[str, Any]) -> str:
    width = max(len(label) for label in LABELS) + 2
    lines = [f"== {name}: {result['pairs']} pairs, accuracy {result['accuracy']:.3f}"]
    lines.append("gold \\ predicted".ljust(width + 2) + "".join(label[:12].rjust(14) for label in LABELS))
    for gold in LABELS:
        row = result["confusion"][gold]
        lines.append(f"  {gold.ljust(width)}" + "".join(str(row[p]).rjust(14) for p in LABELS))
    lines.append(
        f"conflict: precision {result['conflict_precision']:.3f}  recall {result['conflict_recall']:.3f}  "
        f"F1 {result['conflict_f1']:.3f}  false alarms {result['false_alarms']}  "
        f"same flagged as conflict {result['same_flagged_as_conflict']}"
    )
    lines.append(
        f"severity accuracy on caught conflicts: {result['severity_accuracy']:.3f} "
        f"({result['severity_checked']} checked); {result['microseconds_per_pair']:.0f} µs per pair"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument(
        "--errors", choices=["full", "dev", "held_out"], help="list misjudged pairs of a part"
    )
    args = parser.parse_args(argv)
    pairs = load_pairs(args.data)
    judge = RuleJudge()
    parts = {"full": pairs, **split(pairs)}
    results = {name: evaluate(judge, part) for name, part in parts.items()}
    print("\n\n".join(_report(name, result) for name, result in results.items()))
    if args.errors:
        print(f"\n== misjudged ({args.errors})")
        for e in results[args.errors]["errors"]:
            gold = e["label"] + (f"/{e['severity']}" if e["severity"] else "")
            got = e["predicted"] + (f"/{e['predicted_severity']}" if e["predicted_severity"] else "")
            print(f"{e['id']} {gold} → {got}: {e['a']} | {e['b']}\n      ({e['reason']})")


if __name__ == "__main__":
    main()
