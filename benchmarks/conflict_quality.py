"""How well the conflict judge labels hand-written pairs, in one run.

    python -m benchmarks.conflict_quality              # every set, full, dev and held-out
    python -m benchmarks.conflict_quality --errors dev # also list the misjudged dev pairs

Three sets, each pair an older statement `a` and a newer one `b`:
- benchmarks/data/conflict_pairs.jsonl (259 pairs): conflicts with their severity, restatements,
  compatible facts and different subjects. Every fifth pair (cp-005, cp-010, ...) is held out.
- benchmarks/data/update_pairs.jsonl (240 pairs): 120 facts that changed, said the many ways people
  report a change (80 as clean statements, 40 with a chat message on the newer side), against hard
  negatives: 60 compatible pairs that share names and even change words ("Kuki switched vets" /
  "Kuki eats Royal Canin"), 30 restatements, 30 different subjects. Written blind by two helpers
  who saw no code, before any judge was run on it; `split` holds out half of each label.
- benchmarks/data/update_pairs_fresh.jsonl (100 pairs, all held out): 50 changes (20 as chat
  messages), 25 compatible, 13 restatements, 12 different subjects, for a third household, written
  blind by a helper on 2026-11-30 after the change rule was fitted, to measure it once more: recall
  0.520 / precision 0.897 with the code before that day's changes, 0.620 / 0.912 after, both in one
  session. (The helper's brief listed ways people report a change, three of which that day's rules
  newly read: "since the spring", "after the move, ...", "these days"; one of the five new catches
  uses one of them.) Later that day the held-out errors of update_pairs were read one by one to write
  more general rules (a chat message's speaker, "since" with a past event, "stepped down", ...): its
  held-out figure is spent (0.467 -> 0.667 recall), and this set, never opened, moved 0.620 / 0.912
  -> 0.640 / 0.914 (rules alone 0.180 / 0.900 -> 0.260 / 0.929). Its misses were then read (by
  kind: nicknames, a question mark, "household" against "family"), so it is spent too. On 2026-12-01
  its misses and false alarms, and update_pairs', were read once more to write general rules (names
  read across the two statements: a chat message's lowercase names, pet names, "Grandma Pat"; what
  a change is done to, a named thing included; one-off occasions, rises of no amount, a question's
  own clause; a change far in meaning that names what the older statement is about): 0.640 / 0.914,
  3 false alarms -> 0.860 / 0.977, 1 (rules alone 0.260 / 0.929 -> 0.300 / 1.000), and update_pairs
  0.733 / 0.957 -> 0.775 / 0.979 (held out 0.667 / 0.930 -> 0.733 / 0.978), in one session.
- benchmarks/data/update_pairs_fresh2.jsonl (100 pairs, all held out, the same mix as the last), for
  a fourth household, written blind by a helper on 2026-12-01 who opened no file of the repo and was
  given no list of ways to report a change. Measured once with the judge of `e276865`: recall
  0.520, precision 0.788, 7 false alarms (rules alone 0.040 / 0.667); once more after that day's
  rules (`d2845c9`, written reading update_pairs_fresh, which went 0.640 -> 0.860): recall 0.520,
  precision 0.867, 4 false alarms (rules alone 0.020 / 0.500). Of its 50 changes 26 were caught both
  times; 15 were read as about a different subject (17 before) and 9 as compatible (7). The day's
  rules generalised as fewer false alarms, not as more changes found: a gain measured on a set whose
  errors were read is not one to count on.
  Nobody writing rules reads its pairs or its errors: this is the honest measure now. (One number
  leaked on 2026-12-01: a helper's wildcard count of lines holding "€" in every data file.)
- benchmarks/data/sibling_pairs.jsonl (160 pairs, all held out): 80 "siblings" (one frame, one filler
  naming another item: "pay the water bill" / "pay the electricity bill", both hold) against 80
  values of one thing that changed, half of them said with no cue. Written blind by a helper who
  opened no file of the repo on 2026-12-04, after image-caption NLI was seen to teach the model that
  two things said of one scene contradict; measured on the judge of that day before any change:
  siblings flagged 21/80 (the rules 14, the model alone at 0.5 28), changes caught 68/80, and 8
  superseded automatically, 2 of them siblings. Nobody reads its pairs or its errors.
Rules are written against the dev parts (and, since then, update_pairs' held-out part and
update_pairs_fresh); the held-out numbers say whether they generalise, update_pairs_fresh2's most
honestly.

`MEMHUB_CONFLICT_CHANGE_SIMILARITY` (0.5) was chosen on update_pairs' dev half on 2026-11-30: from
0.45 / 0.50 / 0.55 / 0.60 the rules with a reported change caught 49 / 49 / 47 / 42 of 60 changed facts
(15 without), and flagged 1 / 0 / 0 / 0 of 62 other pairs that the rules alone did not (none of the
121 of conflict_pairs' dev part); 46 / 44 / 41 / 33 with the first version of the change rule.

Each set is judged twice: by the rules alone, and as the write-time review judges the memory
closest to a new one, with the two statements' cosine similarity (MiniLM, the hub's embedder),
which lets a reported change ("quit the thursday futsal") conflict with a close statement.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import judge_eval as je
from hub.conflicts import Judge, Judgement, RuleJudge, Statement, Verdict
from hub.conflicts.judge.combined import judge_from_settings
from hub.conflicts.judge.learned import LearnedJudge
from hub.conflicts.judge.pairmodel import PairModel
from hub.embedding import Embedder, load_embedder
from hub.settings import Settings

DATA = Path(__file__).parent / "data" / "conflict_pairs.jsonl"
UPDATES = Path(__file__).parent / "data" / "update_pairs.jsonl"
FRESH = Path(__file__).parent / "data" / "update_pairs_fresh.jsonl"
FRESH2 = Path(__file__).parent / "data" / "update_pairs_fresh2.jsonl"
SIBLINGS = Path(__file__).parent / "data" / "sibling_pairs.jsonl"
LABELS = [v.value for v in Verdict]
HOLD_OUT_EVERY = 5


def load_pairs(path: Path = DATA) -> list[dict[str, Any]]:
    """The labelled pairs, in file order."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def split(pairs: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Dev and held-out parts: as each pair's `split` says, else every fifth pair is held out."""
    held = [
        p
        for i, p in enumerate(pairs, 1)
        if p.get("split", "held_out" if i % HOLD_OUT_EVERY == 0 else "dev") == "held_out"
    ]
    ids = {p["id"] for p in held}
    return {"dev": [p for p in pairs if p["id"] not in ids], "held_out": held}


def similarities(embedder: Embedder, pairs: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Each pair's cosine similarity, by pair id."""
    a = embedder.encode([p["a"] for p in pairs])
    b = embedder.encode([p["b"] for p in pairs])
    return {p["id"]: float(score) for p, score in zip(pairs, (a * b).sum(axis=1), strict=True)}


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


def evaluate(
    judge: Judge, pairs: Sequence[dict[str, Any]], similarity: dict[str, float] | None = None
) -> dict[str, Any]:
    """Run the judge on every pair (with its similarity, when given); confusion matrix, conflict
    precision/recall/F1, severity accuracy where the set labels severity."""
    confusion: Counter[tuple[str, str]] = Counter()
    severity_hits = severity_total = 0
    errors = []
    started = time.perf_counter()
    for pair in pairs:
        score = similarity[pair["id"]] if similarity is not None else None
        judgement = judge.judge(Statement(pair["a"]), Statement(pair["b"]), score)
        gold, predicted = pair["label"], judgement.verdict.value
        confusion[(gold, predicted)] += 1
        if gold == predicted == "conflict" and pair["severity"] is not None:
            severity_total += 1
            severity_hits += judgement.severity == pair["severity"]
        wrong_severity = pair["severity"] is not None and judgement.severity != pair["severity"]
        if gold != predicted or (gold == "conflict" and wrong_severity):
            errors.append(
                {
                    **pair,
                    "predicted": predicted,
                    "predicted_severity": judgement.severity,
                    "reason": judgement.reason,
                }
            )
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


def legacy(argv: Sequence[str] | None = None) -> None:
    """The rule judge on the sets it was written against, as before the pair judge."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, nargs="+", default=[DATA, UPDATES, FRESH, FRESH2])
    parser.add_argument(
        "--errors", choices=["full", "dev", "held_out"], help="list misjudged pairs of a part"
    )
    args = parser.parse_args(argv)
    settings = Settings()  # the model and the change threshold the hub would use
    judge = RuleJudge(change_similarity=settings.conflict_change_similarity)
    embedder = load_embedder(settings)
    summary = []
    for path in args.data:
        pairs = load_pairs(path)
        close = similarities(embedder, pairs)
        parts = {"full": pairs, **split(pairs)}
        for with_similarity in (False, True):
            how = "with similarity (the review)" if with_similarity else "rules alone"
            results = {
                name: evaluate(judge, part, close if with_similarity else None)
                for name, part in parts.items()
            }
            print(f"\n##### {path.name}, {how}\n")
            print("\n\n".join(_report(name, result) for name, result in results.items()))
            for name, result in results.items():
                summary.append(
                    f"{path.name:<26} {how:<30} {name:<9} recall {result['conflict_recall']:.3f}  "
                    f"precision {result['conflict_precision']:.3f}  false alarms {result['false_alarms']}"
                )
            if args.errors and with_similarity:
                print(f"\n== misjudged ({args.errors})")
                for e in results[args.errors]["errors"]:
                    gold = e["label"] + (f"/{e['severity']}" if e["severity"] else "")
                    got = e["predicted"] + (f"/{e['predicted_severity']}" if e["predicted_severity"] else "")
                    print(
                        f"{e['id']} {gold} → {got} ({close[e['id']]:.2f}): {e['a']} | {e['b']}\n"
                        f"      ({e['reason']})"
                    )
    print("\n##### conflicts found, in one run\n" + "\n".join(summary))


@dataclass(frozen=True)
class ModelAlone:
    """The pair model with nothing around it: a conflict wherever P(contradiction) >= 0.5."""

    judge_: LearnedJudge

    def judge(self, a: Statement, b: Statement, similarity: float | None = None) -> Judgement:
        return self.judge_pairs([(a, b, similarity)])[0]

    def judge_pairs(self, pairs: Sequence[tuple[Statement, Statement, float | None]]) -> list[Judgement]:
        rows = self.judge_.model.probabilities([(a.text, b.text) for a, b, _ in pairs])
        return [
            Judgement(Verdict.conflict, None, "model")
            if row[0] >= 0.5
            else Judgement(Verdict.compatible, None, "model")
            for row in rows
        ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mnli", type=int, default=0, help="MultiNLI mismatched pairs to judge (0: all)")
    parser.add_argument("--errors", action="store_true", help="list the misjudged pairs of the dev halves")
    parser.add_argument("--legacy", action="store_true", help="also the rule judge on the older sets")
    args = parser.parse_args(argv)
    settings = Settings()
    embedder = load_embedder(settings)
    rules = RuleJudge(change_similarity=settings.conflict_change_similarity)
    default = judge_from_settings(settings)
    learned = default if isinstance(default, LearnedJudge) else LearnedJudge(PairModel())
    judges: dict[str, Judge] = {"rules": rules, "model alone": ModelAlone(learned), "default": default}
    sets = {
        "blind test halves (frozen)": je.load(je.BLIND, "test"),
        "blind dev halves (trained on)": je.load(je.BLIND, "dev"),
        "update_pairs_fresh2 (thresholds chosen here)": [
            {**p, "category": p["label"]} for p in load_pairs(FRESH2)
        ],
        "sibling probe (blind)": je.load([SIBLINGS]),
        "Hebrew and Spanish": je.load([je.MULTILINGUAL]),
    }
    summary = {}
    for name, pairs in sets.items():
        close = similarities(embedder, pairs)
        print(f"\n##### {name}")
        for judge_name, judge in judges.items():
            for natures in ("published", "inferred"):
                if natures == "inferred" and judge_name != "default":
                    continue
                result = je.evaluate(judge, pairs, natures, close)
                label = f"{judge_name}, natures {natures}"
                print(je.report(label, result))
                summary[(name, label)] = result
                if args.errors and judge_name == "default" and natures == "published" and "dev" in name:
                    for pair, judgement in result.errors:
                        print(
                            f"      {pair['id']} {pair['label']} -> {judgement.verdict}: {pair['a']} | {pair['b']}"
                        )
    mnli = je.mnli_pairs(limit=args.mnli or None)
    print(
        f"\n##### MultiNLI dev mismatched (never trained on): {len(mnli)} pairs, contradiction against the rest"
    )
    for judge_name, judge in judges.items():
        result = je.evaluate(judge, mnli, "none")
        print(
            f"{judge_name}: F1 {je.f1(result):.3f}  precision {result.precision:.3f}  recall {result.recall:.3f}"
            f"  {1e3 * result.seconds / max(result.pairs, 1):.2f} ms/pair"
        )
        summary[("mnli", judge_name)] = result
    test = summary[("blind test halves (frozen)", "default, natures published")]
    paraphrases = test.flagged_share("paraphrase")
    events = test.flagged_share("event_sequence")
    print(
        "\n##### must show (issue 27), default judge on the frozen test halves\n"
        f"precision {test.precision:.3f} (>= 0.95)  recall {test.recall:.3f} (>= 0.85)  "
        f"paraphrases flagged {paraphrases[0]}/{paraphrases[1]} (0)  "
        f"event sequences flagged {events[0]}/{events[1]} (<= 2%)  "
        f"auto-superseded right {test.superseded_right}/{test.superseded} (>= 0.99)  "
        f"MNLI mismatched F1 {je.f1(summary[('mnli', 'default')]):.3f} (>= 0.70)"
    )
    if args.legacy:
        legacy([])


if __name__ == "__main__":
    main()
