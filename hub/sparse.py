"""BM25 sparse vectors: the keyword half of hybrid search, computed in-process with no model download."""

from __future__ import annotations

import qdrant_edge

from hub.store.base import SparseVec

# Memories are a sentence or a short paragraph, not the 256-token pages BM25's default assumes;
# a realistic average keeps length normalisation from favouring every memory alike. Changing any
# of these settings changes the stored document vectors: re-embed everything if you do.
AVERAGE_MEMORY_TOKENS = 32.0


class SparseEncoder:
    """Turns text into BM25 sparse vectors: English stemming and stopwords, accents folded.

    Documents carry term-frequency weights; queries weigh each distinct term 1.0. The store's
    sparse vector uses the IDF modifier, so rare terms (names, ids) score high at query time.
    """

    def __init__(self) -> None:
        self._bm25 = qdrant_edge.Bm25(
            qdrant_edge.Bm25Config(language="english", ascii_folding=True, avg_len=AVERAGE_MEMORY_TOKENS)
        )

    def document(self, text: str) -> SparseVec:
        return _to_sparse(self._bm25.embed_document(text))

    def query(self, text: str) -> SparseVec:
        return _to_sparse(self._bm25.embed_query(text))


def _to_sparse(vector: qdrant_edge.SparseVector) -> SparseVec:
    return SparseVec(indices=list(vector.indices), values=list(vector.values))
