"""Hebrew and Spanish retrieval through a started `memhub up`: recall@5, recall@10 and MRR by language.

    python -m benchmarks.retrieval_i18n

The set (benchmarks/data/retrieval_i18n/, its README says how it was written): 100 memories, 100
questions. Every memory is published over HTTP as one agent's global memory; every question is asked
through `POST /v1/search` in each mode (hybrid, dense, BM25), limit 10. The `test` half is frozen:
report it, never tune on it.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from benchmarks.common import benchmark_parser, start_hub
from memhub_client import Memhub

DATA = Path(__file__).parent / "data" / "retrieval_i18n"
MODES = ("hybrid", "dense", "sparse")
LIMIT = 10


def main() -> None:
    benchmark_parser(__doc__).parse_args()
    memories = [json.loads(line) for line in (DATA / "memories.jsonl").open(encoding="utf-8")]
    questions = [json.loads(line) for line in (DATA / "questions.jsonl").open(encoding="utf-8")]
    rows: dict[tuple[str, str, str], list[tuple[float, float, float]]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="memhub-i18n-") as tmp:
        process, url = start_hub(Path(tmp) / "data")
        try:
            with Memhub(url, agent="assistant", timeout=120.0) as hub:
                events = [{"text": m["text"], "agent": "assistant", "source": m["id"]} for m in memories]
                ids = hub.publish_many(events)
                for event_id in ids:
                    status = hub.wait(event_id, timeout=300)
                    if status.status.value != "stored":
                        print(f"not stored: {status}")
                time.sleep(0.5)
                for q in questions:
                    evidence = set(q["evidence"])
                    for mode in MODES:
                        found = [h.source for h in hub.search(q["query"], limit=LIMIT, mode=mode)]
                        at5 = len(evidence & set(found[:5])) / len(evidence)
                        at10 = len(evidence & set(found[:10])) / len(evidence)
                        first = next((i for i, s in enumerate(found) if s in evidence), None)
                        rr = 0.0 if first is None else 1 / (first + 1)
                        for split in (q["split"], "all"):
                            rows[(q["lang"], split, mode)].append((at5, at10, rr))
        finally:
            process.terminate()
            process.wait(60)
    print(f"{len(memories)} memories, {len(questions)} questions; recall@5 / recall@10 / MRR (at {LIMIT})")
    print(f"{'':<14}" + "".join(f"{m:>22}" for m in MODES))
    for lang in ("he", "es"):
        for split in ("dev", "test", "all"):
            cells = []
            for mode in MODES:
                got = rows[(lang, split, mode)]
                means = [statistics.fmean(r[i] for r in got) for i in range(3)]
                cells.append(" / ".join(f"{m:.2f}" for m in means))
            print(
                f"{lang} {split:<5} n={len(rows[(lang, split, 'hybrid')]):<3}"
                + "".join(f"{c:>22}" for c in cells)
            )


if __name__ == "__main__":
    main()
