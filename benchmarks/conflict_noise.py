"""What the review makes of chat logs and daily logs, through the pipeline, and what it costs.

    python -m benchmarks.conflict_noise [--redis-url redis://127.0.0.1:6379/14] [--conversations 10]

Each part runs a fresh hub (embedded store, the real model, real RQ workers in burst mode) and counts
what an owner would see in the ledger: open conflicts, and questions put to them.

1. REALTALK (../shared/data/realtalk): each conversation's messages published by one agent as its chat
   log, in one project of its own, as "Speaker: text" with the time it was said: once as the agent
   knows them (`nature="message"`), once left to the hub to infer.
2. A week of a daily log (benchmarks/data/daily_week), read as `memhub import` reads it: how many of
   its events conflict with each other.
3. The README's two-agent example: exactly one conflict.
4. Review throughput at a backlog: the same statements reviewed with the pair judge and with the
   rules, events reviewed per second, in one run.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rq.job import Job

from benchmarks import judge_eval
from benchmarks.common import benchmark_parser, benchmark_redis
from benchmarks.realtalk import conversation_files, load
from hub.conflicts import ledger
from hub.conflicts.jobs import REVIEW_JOB
from hub.conflicts.judge.combined import load_pair_model
from hub.conflicts.judge.pairmodel import PairModel
from hub.embedding import Embedder
from hub.markdown.layout import Layout
from hub.markdown.reader import read_workspace
from hub.models import EventCreate
from hub.redis_publisher import RedisPublisher, build_event
from hub.secrets import find_secrets
from hub.services import Services, build_services
from hub.settings import Settings
from workers.worker import run_worker

DAILY_WEEK = Path(__file__).parent / "data" / "daily_week"


@contextmanager
def fresh_hub(
    redis_url: str | None, embedder: Embedder, pair_model: PairModel, **settings: Any
) -> Iterator[Services]:
    with benchmark_redis(redis_url) as (redis, url), tempfile.TemporaryDirectory() as tmp:
        built = Settings(data_dir=Path(tmp), redis_url=url, **settings)
        services = build_services(built, redis, embedder=embedder, pair_model=pair_model)
        try:
            yield services
        finally:
            services.close()


def publish(services: Services, events: Sequence[EventCreate], agent: str) -> float:
    """Publish and drain: store, then review. Seconds it took."""
    publisher = RedisPublisher(services.redis, agent=agent, channel=None)
    started = time.perf_counter()
    for start in range(0, len(events), 500):
        publisher.publish_many(list(events[start : start + 500]))
    run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")
    return time.perf_counter() - started


def ledger_counts(services: Services, project: str | None = None) -> tuple[int, int, int]:
    """(conflicts recorded, open, questions to the owner) in the ledger, of one project or all."""
    ask = set(services.settings.conflict_ask_owner)
    found = [
        c
        for c in ledger.all_conflicts(services.redis, services.keys)
        if project is None or c.project == project
    ]
    open_ = [c for c in found if c.open]
    questions = [c for c in open_ if c.severity.value in ask]
    return len(found), len(open_), len(questions)


def realtalk(args: Any, embedder: Embedder, pair_model: PairModel) -> None:
    files = conversation_files(args.conversations)
    for natures in ("message", None):
        with fresh_hub(args.redis_url, embedder, pair_model) as services:
            events = []
            for path in files:
                project = path.stem.lower()
                for i, message in enumerate(load(path).messages):
                    line, when = message.line, message.when
                    if find_secrets(line):
                        continue
                    events.append(
                        build_event(
                            line,
                            agent="chat-logger",
                            channel="whatsapp",
                            scope="project",
                            project=project,
                            occurred_at=when,
                            nature=natures,
                            source=f"{path.name}#{i}",
                        )
                    )
            seconds = publish(services, events, "chat-logger")
            how = "nature=message, as the agent says" if natures else "nature left to the hub"
            print(f"\nREALTALK, {how}: {len(events)} messages in {seconds:.0f} s")
            worst = 0
            for path in files:
                total, open_, questions = ledger_counts(services, path.stem.lower())
                worst = max(worst, open_)
                print(f"  {path.stem:<26} conflicts {total:>4}  open {open_:>4}  questions {questions}")
            print(f"  most open conflicts in one conversation: {worst} (at most 5)")


def daily_week(args: Any, embedder: Embedder, pair_model: PairModel) -> None:
    reading = read_workspace(DAILY_WEEK, layout=Layout(), agent="log-agent", channel="telegram")
    with fresh_hub(args.redis_url, embedder, pair_model) as services:
        seconds = publish(services, reading.events, "log-agent")
        total, open_, questions = ledger_counts(services)
        print(
            f"\nA week of a daily log: {len(reading.events)} lines in {seconds:.0f} s: "
            f"conflicts {total}, open {open_}, questions {questions} (none among events)"
        )


def readme_example(args: Any, embedder: Embedder, pair_model: PairModel) -> None:
    with fresh_hub(args.redis_url, embedder, pair_model) as services:
        wa = [
            build_event(
                "Netanel works until 20:00", agent="wa-assistant", channel="whatsapp", source="wa:msg:1841"
            )
        ]
        tg = [
            build_event(
                "Dana's son starts school on 1 September",
                agent="tg-assistant",
                channel="telegram",
                scope="person",
                person="Dana",
            ),
        ]
        publish(services, wa, "wa-assistant")
        publish(services, tg, "tg-assistant")
        publish(
            services,
            [build_event("Netanel finishes work at 18:00", agent="tg-assistant", channel="telegram")],
            "tg-assistant",
        )
        total, open_, questions = ledger_counts(services)
        print(f"\nThe README's two-agent example: conflicts {total} (exactly 1), open {open_}")


def throughput(args: Any, embedder: Embedder, pair_model: PairModel) -> None:
    pairs = judge_eval.load(judge_eval.BLIND)
    texts = list(dict.fromkeys(t for p in pairs for t in (p["a"], p["b"]) if not find_secrets(t)))[
        : args.statements
    ]
    rates = {}
    for judge in ("rules", "learned"):
        with fresh_hub(args.redis_url, embedder, pair_model, judge=judge) as services:
            events = [
                build_event(t, agent="wa-assistant", channel="whatsapp", scope="project", project="household")
                for t in texts
            ]
            publisher = RedisPublisher(services.redis, agent="wa-assistant", channel=None)
            publisher.publish_many(events)
            started = time.perf_counter()
            run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")
            total = time.perf_counter() - started
            reviewing = review_seconds(services)
            conflicts = ledger_counts(services)[0]
            rates[judge] = (len(events) / reviewing, len(events) / total, conflicts)
    for judge, (review_rate, rate, conflicts) in rates.items():
        print(
            f"\nthroughput, judge {judge}: {review_rate:.1f} events/s reviewed, {rate:.1f} events/s stored "
            f"and reviewed; {conflicts} conflicts among {len(texts)} statements"
        )
    print(f"review throughput, learned / rules: {rates['learned'][0] / rates['rules'][0]:.2f}")


def review_seconds(services: Services) -> float:
    """Time the review jobs ran, from their own records (kept a minute after they finish)."""
    queue = services.background_queue
    jobs = [
        Job.fetch(i, connection=services.redis, serializer=queue.serializer)
        for i in queue.finished_job_registry.get_job_ids()
    ]
    return sum(
        (job.ended_at - job.started_at).total_seconds()
        for job in jobs
        if job.func_name == REVIEW_JOB and job.ended_at and job.started_at
    )


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--conversations", type=int, default=10, help="REALTALK conversations (of 10)")
    parser.add_argument("--statements", type=int, default=400, help="statements for the throughput part")
    parser.add_argument("--parts", nargs="+", default=["readme", "daily", "throughput", "realtalk"])
    args = parser.parse_args()
    settings = Settings()
    embedder = Embedder(expected_sha256=settings.model_sha256)
    pair_model = load_pair_model(settings)
    parts = {"readme": readme_example, "daily": daily_week, "throughput": throughput, "realtalk": realtalk}
    for name in args.parts:
        parts[name](args, embedder, pair_model)


if __name__ == "__main__":
    main()
