"""The vectors a memory is stored with, computed the same way by the ingest job and `memhub reembed`."""

from __future__ import annotations

from collections.abc import Sequence

from hub.embedding import Encoder
from hub.models import Memory
from hub.sentences import sentences
from hub.sparse import SparseEncoder
from hub.store.base import MemoryPoint


def memory_points(
    memories: Sequence[Memory], embedder: Encoder, sparse: SparseEncoder, *, batch_size: int = 64
) -> list[MemoryPoint]:
    """Each memory with its dense vector (text and context), its sentences' vectors (`hub.sentences`)
    and its BM25 weights, in one model call.

    A memory of one sentence and no context has that sentence's vector already, and is not encoded twice.
    """
    texts = [m.indexed_text for m in memories]
    own: list[list[str] | None] = []
    for memory in memories:
        split = sentences(memory.text)
        own.append(None if split == [memory.text] and not memory.context else split)
    extra = [sentence for split in own if split for sentence in split]
    vectors = embedder.encode(texts + extra, batch_size=batch_size)
    points: list[MemoryPoint] = []
    at = len(texts)
    for i, (memory, parts) in enumerate(zip(memories, own, strict=True)):
        rows = None
        if parts:
            rows = vectors[at : at + len(parts)].tolist()
            at += len(parts)
        points.append(
            MemoryPoint(
                memory=memory,
                dense=vectors[i].tolist(),
                sparse=sparse.document(memory.text, memory.context),
                sentences=rows,
            )
        )
    return points
