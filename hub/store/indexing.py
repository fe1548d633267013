"""Keeping the embedded store indexed.

qdrant-edge searches new memories by brute force until `optimize()` puts them in its HNSW graph: at
100k memories never indexed, a hybrid search's store query takes ~19 ms (p50), 4 to 7 ms indexed.
Indexing takes the cores for a while (on two cores, 22 to 28 s to add 10k memories to 90k indexed;
a few thousand new ones the engine leaves unindexed, at no cost) and runs on a copy of the store in a
process of its own (`hub.store.index_copy`), so a worker does it, as one job, once
`store_index_threshold` memories wait.
Searches at 100k indexed memories, p95 against the time to encode the query, with 0 / 5k / 10k /
20k more waiting (one run): 1.65 / 2.02 / 2.09 / 2.05 with a scope filter, and 1.78 / 1.95 / 2.07 /
3.09 narrowed to two agents, a kind and a month. Hence 10k: the most that kept both within the
end-to-end bound of 2.5, with the fewest stops to index.
The bound is a ratio to the model's time, and the store query does not shrink with it. On 2026-12-01
the model encoded a query in 7-8 ms (11-25 ms in the runs of earlier notes), and
`benchmarks.ingest_search` measured at 100k with 9,999 waiting p95 / encode-one 3.15 and 2.96 in a
row, 2.76 and 2.65 beside (two runs), and 2.41 / 2.42 in a row once indexed; the store query alone
took ~3 ms (p50), ~4 ms right after an encode. That day the slowest state was past the bound.
A Qdrant server indexes by itself, and its store reports none waiting.
"""

from __future__ import annotations

from redis import Redis
from rq import Queue
from rq.job import Job

from hub.keys import Keys
from hub.store.base import MemoryStore

INDEX_JOB = "workers.indexing.index_store"
JOB_TIMEOUT = 3600
RESULT_TTL = 7 * 24 * 3600


def request_indexing(
    redis: Redis, queue: Queue, keys: Keys, store: MemoryStore, *, threshold: int
) -> Job | None:
    """Enqueue an indexing of the store when `threshold` memories or more wait for it, unless one
    already waits or runs; the job if this call enqueued it."""
    waiting = store.unindexed_count()
    if waiting < threshold or not redis.set(keys.index_scheduled, b"1", nx=True, ex=JOB_TIMEOUT):
        return None
    return queue.enqueue(
        INDEX_JOB,
        job_timeout=JOB_TIMEOUT,
        result_ttl=RESULT_TTL,
        failure_ttl=RESULT_TTL,
        description=f"index the store ({waiting} memories searched by brute force)",
    )
