"""BM25 sparse vectors: the keyword half of hybrid search, computed in-process with no model download."""

from __future__ import annotations

import qdrant_edge

from hub.store.base import SparseVec
from hub.writing_systems import for_bm25

# Memories are a sentence or a short paragraph, not the 256-token pages BM25's default assumes;
# a realistic average keeps length normalisation from favouring every memory alike.
# Changing this, CONTEXT_WEIGHT or `for_bm25` changes the stored document vectors: `memhub reembed`.
AVERAGE_MEMORY_TOKENS = 32.0
# A context's words count this much of what the same words count in the memory's own text, so the
# message that says something outranks the replies that only have it as context (the numbers:
# benchmarks/retrieval.py).
CONTEXT_WEIGHT = 0.3


class SparseEncoder:
    """Turns text into BM25 sparse vectors: English stemming and stopwords, accents folded, and Hebrew,
    Arabic and CJK words read in the forms people write them (`hub.writing_systems`).

    Documents carry term-frequency weights; queries weigh each distinct term 1.0. The store's
    sparse vector uses the IDF modifier, so rare terms (names, ids) score high at query time.
    """

    def __init__(self) -> None:
        self._bm25 = qdrant_edge.Bm25(
            qdrant_edge.Bm25Config(language="english", ascii_folding=True, avg_len=AVERAGE_MEMORY_TOKENS)
        )

    def document(self, text: str, context: str | None = None) -> SparseVec:
        """The text's BM25 weights, plus its context's at CONTEXT_WEIGHT: each is length-normalised on
        its own, so a long context neither dilutes the text's words nor outweighs them."""
        weights = _weights(self._bm25.embed_document(for_bm25(text)))
        if context:
            for index, value in _weights(self._bm25.embed_document(for_bm25(context))).items():
                weights[index] = weights.get(index, 0.0) + CONTEXT_WEIGHT * value
        return SparseVec(indices=list(weights), values=list(weights.values()))

    def query(self, text: str) -> SparseVec:
        return _to_sparse(self._bm25.embed_query(for_bm25(text)))


def _weights(vector: qdrant_edge.SparseVector) -> dict[int, float]:
    return dict(zip(vector.indices, vector.values, strict=True))


def _to_sparse(vector: qdrant_edge.SparseVector) -> SparseVec:
    return SparseVec(indices=list(vector.indices), values=list(vector.values))
