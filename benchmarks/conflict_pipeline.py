"""The labelled conflict pairs through the real pipeline: publish, embed, store, review, ledger.

    python -m benchmarks.conflict_pipeline [--redis-url redis://127.0.0.1:6379/14] [--data PATH]

Each pair is published by two agents on two channels (first `a` by one, then `b` by the other),
scoped to a project of its own so that pairs cannot see each other. A pair counts as flagged when
the ledger holds a conflict between its two memories; a paraphrase counts as merged when `b`
reinforced `a` instead of adding a second memory. Unlike `conflict_quality`, this includes the
candidate search: a pair the vector search does not bring together is never judged. `--data
benchmarks/data/update_pairs.jsonl` runs the changed facts and their hard negatives the same way.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from benchmarks.common import benchmark_parser, benchmark_redis
from benchmarks.conflict_quality import DATA, load_pairs
from hub.conflicts import ledger
from hub.embedding import Embedder
from hub.redis_publisher import RedisPublisher, build_event
from hub.secrets import find_secrets
from hub.services import build_services
from hub.settings import Settings
from hub.status import read_status
from workers.worker import run_worker


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--data", type=Path, default=DATA, help="labelled pairs (default: conflict_pairs)")
    args = parser.parse_args()
    labelled = load_pairs(args.data)
    # A door or alarm code is a secret the hub refuses to store (`hub.secrets`): such pairs never reach it.
    pairs = [p for p in labelled if not (find_secrets(p["a"]) or find_secrets(p["b"]))]
    print(
        f"{len(labelled) - len(pairs)} of {len(labelled)} pairs left out: they hold a secret the hub refuses"
    )
    with benchmark_redis(args.redis_url) as (redis, redis_url), tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), redis_url=redis_url)
        services = build_services(settings, redis, embedder=Embedder(expected_sha256=settings.model_sha256))
        wa = RedisPublisher(redis, agent="wa-assistant", channel="whatsapp")
        tg = RedisPublisher(redis, agent="tg-assistant", channel="telegram")
        firsts = wa.publish_many(
            [
                build_event(
                    p["a"], agent="wa-assistant", channel="whatsapp", scope="project", project=p["id"]
                )
                for p in pairs
            ]
        )
        run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")  # store, then review
        seconds = [
            tg.publish_many(
                [
                    build_event(
                        p["b"], agent="tg-assistant", channel="telegram", scope="project", project=p["id"]
                    )
                ]
            )[0]
            for p in pairs
        ]
        run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")  # store, then review

        flagged: dict[frozenset[str], str] = {
            frozenset(c.memory_ids): c.severity.value for c in ledger.all_conflicts(redis, services.keys)
        }
        tp = fp = fn = merged_same = flagged_same = same_total = severity_ok = graded = 0
        for pair, a, b in zip(pairs, firsts, seconds, strict=True):
            ma, mb = (read_status(redis, services.keys, x) for x in (a, b))
            assert ma and mb and ma.memory_id and mb.memory_id, f"{pair['id']} not stored"
            severity = flagged.get(frozenset({ma.memory_id, mb.memory_id}))
            is_conflict = pair["label"] == "conflict"
            tp += bool(severity) and is_conflict
            fp += bool(severity) and not is_conflict
            fn += not severity and is_conflict
            if severity and is_conflict and pair["severity"] is not None:
                graded += 1
                severity_ok += severity == pair["severity"]
            if pair["label"] == "same":
                same_total += 1
                merged_same += ma.memory_id == mb.memory_id
                flagged_same += bool(severity)
        services.close()
    precision, recall = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    f1 = 2 * precision * recall / max(precision + recall, 1e-9)
    print(
        f"pairs {len(pairs)}: conflict precision {precision:.3f}  recall {recall:.3f}  F1 {f1:.3f}  "
        f"(tp {tp}, fp {fp}, fn {fn}); severity right on {severity_ok}/{graded} labelled with one"
    )
    print(
        f"paraphrases: {flagged_same}/{same_total} wrongly flagged as conflicts, "
        f"{merged_same}/{same_total} merged into one memory"
    )


if __name__ == "__main__":
    main()
