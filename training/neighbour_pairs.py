"""Mine the pairs the review actually asks the judge about, from the project's training pairs.

    python -m training.neighbour_pairs > /tmp/neighbours.jsonl

At write time the judge reads a new memory against its close neighbours in the same household, and
most of those are compatible facts about the same people. The labelled sets pair each statement with
the one it was written against, so a judge trained on them alone rarely sees a neighbour it should
leave alone. This pairs each statement of a training file with its closest statements of *other*
pairs in the same file (cosine from the review's floor, 0.45, up to near-identical), three each,
de-duplicated and shuffled, unlabelled. Readers label them with `training/labelling_brief.md`,
without seeing the judge or any test pair; the result is `benchmarks/data/train_pairs_neighbours.jsonl`.
The frozen test halves and `update_pairs_fresh2.jsonl` are never read.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from training.pair_judge import DATA, _jsonl

SOURCES = (
    "train_pairs_c.jsonl",
    "train_pairs_d.jsonl",
    "train_pairs_e.jsonl",
    "conflict_pairs.jsonl",
    "update_pairs.jsonl",
    "update_pairs_fresh.jsonl",
    "judge_pairs_a.jsonl",
    "judge_pairs_b.jsonl",
)
FLOOR = 0.45  # MEMHUB_CONFLICT_MIN_SIMILARITY: closer than this, the review asks the judge
IDENTICAL = 0.97  # a statement reused word for word by another pair teaches nothing new
PER_STATEMENT = 3


def mine(limit: int, seed: int = 27) -> list[dict[str, object]]:
    from hub.embedding import load_embedder
    from hub.settings import Settings

    embedder = load_embedder(Settings())
    seen: set[frozenset[str]] = set()
    out: list[dict[str, object]] = []
    for name in SOURCES:
        rows = [r for r in _jsonl(DATA / name) if r.get("split") != "test"]
        statements = [(r["id"], str(r[side])) for side in ("a", "b") for r in rows]
        cosine = cosines(embedder, [t for _, t in statements])
        for i, (pair_id, text) in enumerate(statements):
            taken = 0
            for j in np.argsort(-cosine[i]):
                if statements[j][0] == pair_id:
                    continue
                similarity = float(cosine[i, j])
                if similarity < FLOOR or taken >= PER_STATEMENT:
                    break
                key = frozenset((text, statements[j][1]))
                if similarity >= IDENTICAL or key in seen:
                    continue
                seen.add(key)
                out.append(
                    {"a": text, "b": statements[j][1], "source": name, "similarity": round(similarity, 3)}
                )
                taken += 1
    return numbered(out, limit, seed, "nb")


def cosines(embedder: Any, texts: Sequence[str]) -> np.ndarray:
    """Every text's cosine similarity to every other, as the review measures closeness."""
    vectors = np.asarray(embedder.encode(list(texts)))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors @ vectors.T)


def numbered(pairs: list[dict[str, object]], limit: int, seed: int, prefix: str) -> list[dict[str, object]]:
    """The first `limit` pairs after a seeded shuffle, each given an id ("nb-0001")."""
    random.Random(seed).shuffle(pairs)
    kept = pairs[:limit]
    for n, row in enumerate(kept, start=1):
        row["id"] = f"{prefix}-{n:04d}"
    return kept


def write(
    mine: Callable[[int], list[dict[str, object]]], doc: str | None, limit: int, argv: Sequence[str] | None
) -> None:
    """The command line of a miner: its pairs as JSON lines on stdout, unlabelled."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=limit, help="pairs to keep, after shuffling")
    args = parser.parse_args(argv)
    for row in mine(args.limit):
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(argv: Sequence[str] | None = None) -> None:
    write(mine, __doc__, 1200, argv)


if __name__ == "__main__":
    main()
