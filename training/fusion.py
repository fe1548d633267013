"""Fit the weights that rank chat messages among hybrid candidates (`hub.ranking.Fusion`), on REALTALK's dev
conversations.

    python -m training.fusion [--model PATH]

For each question of the dev conversations (1, 3, 5, 7, 9: `benchmarks.realtalk`), the candidates are
what the hub's hybrid search scores again: the first POOL + FUSION_EXTRA messages of the rank
fusion (RRF k 2) of the model's and BM25's rankings, each `prefetch_limit` deep. Each candidate's
`hub.ranking.fusion_features` (cosine, BM25 as a share of the best candidate's, log length) and whether
the question's evidence names it train a logistic regression (scikit-learn). BM25 uses the IDF of all
the dev conversations' messages, as one hub holding them would. The test conversations are never read.
The weights hold for the model they were fitted with (the shipped MiniLM); `--model` fits them for
another (`MEMHUB_MODEL`), whose cosines spread differently.

It prints the weights to put in `hub.ranking.FUSION`, and recall@5/10/25 and MRR of the rank fusion
and of the fitted scores on the dev questions: each conversation scored by a model fitted on the four
others (what a new conversation would see), then in-sample.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.realtalk import Conversation, conversation_files, load, scores
from hub.embedding import Embedder
from hub.ranking import Fusion, fusion_features
from hub.search import FUSION_EXTRA, POOL
from hub.settings import get_settings
from hub.sparse import SparseEncoder
from hub.store.base import RRF_K, SparseVec, prefetch_limit

CANDIDATES = POOL + FUSION_EXTRA
KS = (5, 10, 25)


@dataclass
class Asked:
    """One question's candidates, in rank-fusion order: their features and which are its evidence."""

    conversation: str
    ids: list[str]
    features: np.ndarray
    evidence: frozenset[str]


def _rrf_order(dense: np.ndarray, bm25: np.ndarray) -> list[int]:
    depth = prefetch_limit(CANDIDATES)
    fused: dict[int, float] = defaultdict(float)
    for rank, i in enumerate(np.argsort(-dense, kind="stable")[:depth]):
        fused[int(i)] += 1.0 / (RRF_K + rank + 1)
    ranked = [int(i) for i in np.argsort(-bm25, kind="stable")[:depth] if bm25[i] > 0]
    for rank, i in enumerate(ranked):
        fused[i] += 1.0 / (RRF_K + rank + 1)
    return sorted(fused, key=lambda i: (-round(fused[i], 6), -dense[i]))[:CANDIDATES]


def questions(conversations: Sequence[Conversation], embedder: Embedder) -> list[Asked]:
    sparse = SparseEncoder()
    docs = [
        [dict(zip(*_pairs(sparse.document(m.line, m.context)), strict=True)) for m in c.messages]
        for c in conversations
    ]
    df: dict[int, int] = defaultdict(int)
    for doc in (d for conversation in docs for d in conversation):
        for term in doc:
            df[term] += 1
    n = sum(len(d) for d in docs)
    idf = {t: float(np.log(1 + (n - f + 0.5) / (f + 0.5))) for t, f in df.items()}
    asked: list[Asked] = []
    for conversation, conversation_docs in zip(conversations, docs, strict=True):
        lines = [m.line for m in conversation.messages]
        vectors = embedder.encode(lines, batch_size=get_settings().encode_batch_size)
        postings: dict[int, list[tuple[int, float]]] = defaultdict(list)
        for i, doc in enumerate(conversation_docs):
            for term, weight in doc.items():
                postings[term].append((i, weight))
        for q in conversation.questions:
            dense = vectors @ np.asarray(embedder.encode_one(q.text), dtype=np.float32)
            bm25 = np.zeros(len(lines))
            for term, weight in zip(*_pairs(sparse.query(q.text)), strict=True):
                for i, value in postings.get(term, []):
                    bm25[i] += idf.get(term, 0.0) * weight * value
            order = _rrf_order(dense, bm25)
            features = fusion_features(dense[order], bm25[order], [len(lines[i]) for i in order])
            ids = [conversation.messages[i].dia_id for i in order]
            asked.append(Asked(conversation.name, ids, features, q.evidence))
    return asked


def fit(asked: Sequence[Asked]) -> Fusion:
    from sklearn.linear_model import LogisticRegression

    features = np.vstack([a.features for a in asked])
    labels = np.concatenate([[i in a.evidence for i in a.ids] for a in asked])
    model = LogisticRegression(C=1.0, max_iter=3000).fit(features, labels)
    cosine, words, length = (round(float(w), 3) for w in model.coef_[0])
    return Fusion(cosine=cosine, words=words, length=length, bias=round(float(model.intercept_[0]), 3))


def measure(asked: Sequence[Asked], fusion: Fusion | None) -> dict[str, float]:
    """Mean recall@k and MRR of the candidates in rank-fusion order, or as `fusion` scores them."""
    rows = []
    for a in asked:
        order = (
            np.arange(len(a.ids))
            if fusion is None
            else np.argsort(-fusion.probability(a.features), kind="stable")
        )
        rows.append(scores([a.ids[i] for i in order], a.evidence))
    return {k: 100 * statistics.fmean(r[k] for r in rows) for k in [f"r@{k}" for k in KS] + ["mrr"]}


def _pairs(vector: SparseVec) -> tuple[list[int], list[float]]:
    return vector.indices, vector.values


def _line(label: str, measured: dict[str, float]) -> str:
    return f"{label:<34}" + "".join(f"{v:>8.1f}" for v in measured.values())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", help="the embedding model (MEMHUB_MODEL); default: the shipped one")
    args = parser.parse_args()
    conversations = [c for c in map(load, conversation_files()) if c.split == "dev"]
    embedder = Embedder(args.model) if args.model else Embedder(expected_sha256=get_settings().model_sha256)
    asked = questions(conversations, embedder)
    print(f"{len(asked)} dev questions, {CANDIDATES} candidates each")
    print(f"{'':<34}" + "".join(f"{k:>8}" for k in [f"r@{k}" for k in KS] + ["mrr"]))
    print(_line("rank fusion (RRF k 2)", measure(asked, None)))
    held_out: list[tuple[int, dict[str, float]]] = []
    for c in conversations:
        own = [a for a in asked if a.conversation == c.name]
        held_out.append((len(own), measure(own, fit([a for a in asked if a.conversation != c.name]))))
    total = sum(n for n, _ in held_out)
    pooled = {k: sum(n * m[k] for n, m in held_out) / total for k in held_out[0][1]}
    print(_line("fitted, each conversation held out", pooled))
    fusion = fit(asked)
    print(_line("fitted on all five (in-sample)", measure(asked, fusion)))
    print(f"\nFUSION = {fusion!r}")


if __name__ == "__main__":
    main()
