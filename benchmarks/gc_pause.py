"""What a full garbage collection costs a running hub, before and after start-up is frozen.

    python -m benchmarks.gc_pause [--redis-url redis://127.0.0.1:6379/14]

A hub process holds the embedding model, its tokenizer and the store for its whole life: hundreds of
thousands of objects that a full (generation 2) collection walks every time, inside whichever
request or job triggered it. The `memhub` commands freeze them once started (`gc.freeze()`, in
`hub.cli`); this builds the services as `memhub api` does, then times full collections (best of 5)
with start-up's objects tracked and frozen, in one run.
"""

from __future__ import annotations

import gc
import tempfile
import time
from pathlib import Path

from benchmarks.common import benchmark_parser, benchmark_redis
from hub.api.app import create_app
from hub.services import build_services
from hub.settings import Settings


def full_collection_ms(tries: int = 5) -> float:
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        gc.collect()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    args = benchmark_parser(__doc__).parse_args()
    with benchmark_redis(args.redis_url) as (redis, redis_url), tempfile.TemporaryDirectory() as tmp:
        services = build_services(Settings(data_dir=Path(tmp), redis_url=redis_url), redis)
        create_app(services)
        try:
            tracked = len(gc.get_objects())
            before = full_collection_ms()
            gc.freeze()
            after = full_collection_ms()
            print(
                f"{tracked} objects tracked after start-up; a full collection took {before:.1f} ms, "
                f"{after * 1000:.0f} µs once they were frozen ({gc.get_freeze_count()} frozen)"
            )
        finally:
            gc.unfreeze()
            services.close()


if __name__ == "__main__":
    main()
