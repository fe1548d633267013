"""The schedules on RQ's cron scheduler: owner's time zone, JSON jobs, and the nightly review."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from redis import Redis
from rq.cron import CronScheduler

from hub.compaction.core_block import read_core
from hub.compaction.jobs import CompactionRequest, enqueue_compaction, request_compaction
from hub.compaction.schedule import CronThread, build_scheduler
from hub.embedded import EmbeddedHub
from hub.models import utcnow
from hub.redis_publisher import build_event
from hub.services import Services
from hub.settings import Settings
from memhub_client import Memhub
from tests.compaction.helpers import days_ago, stored
from workers.worker import make_worker

SettingsFactory = Callable[..., Settings]
PLANTS = ["ficus", "basil", "lemon tree", "orchid", "cactus", "mint", "fern", "rosemary"]


def test_schedules_run_at_the_owners_local_times(make_settings: SettingsFactory, redis: Redis) -> None:
    zone = ZoneInfo("Asia/Jerusalem")
    scheduler = build_scheduler(make_settings(timezone="Asia/Jerusalem"), redis)
    jobs = {job.name.split(":")[-1]: job for job in scheduler.get_jobs()}
    assert set(jobs) == {"midday-review", "nightly-review", "weekly-compaction"}
    now = utcnow()
    for name, (weekday, hour, minute) in {
        "midday-review": (None, 12, 0),
        "nightly-review": (None, 2, 30),
        "weekly-compaction": (6, 4, 0),
    }.items():
        upcoming = jobs[name].next_enqueue_time
        assert upcoming is not None and now < upcoming <= now + timedelta(days=7)
        local = upcoming.astimezone(zone)
        assert (local.hour, local.minute) == (hour, minute), name
        assert weekday is None or local.weekday() == weekday  # cron's 0 is Sunday


def test_the_nightly_review_runs_once_on_the_night_the_clocks_go_back(
    make_settings: SettingsFactory, redis: Redis
) -> None:
    # In Berlin 02:30 comes twice on 25 October 2026 (03:00 CEST becomes 02:00 CET): the review ran
    # at 02:30 CEST and again an hour later, at 02:30 CET.
    zone = ZoneInfo("Europe/Berlin")
    scheduler = build_scheduler(make_settings(timezone="Europe/Berlin"), redis)
    [nightly] = [job for job in scheduler.get_jobs() if job.name.endswith("nightly-review")]
    runs = [datetime(2026, 10, 24, 12, 0, tzinfo=UTC)]
    for _ in range(3):
        nightly.set_enqueue_time(runs[-1])
        assert nightly.next_enqueue_time is not None
        runs.append(nightly.next_enqueue_time)
    assert [f"{run.astimezone(zone):%d %H:%M %Z}" for run in runs[1:]] == [
        "25 02:30 CEST",
        "26 02:30 CET",
        "27 02:30 CET",
    ]
    # On the night the clocks go forward 02:30 never comes: the review runs once, an hour on.
    nightly.set_enqueue_time(datetime(2026, 3, 28, 12, 0, tzinfo=UTC))
    assert nightly.next_enqueue_time is not None
    assert f"{nightly.next_enqueue_time.astimezone(zone):%d %H:%M %Z}" == "29 03:30 CEST"


def test_an_unknown_time_zone_is_refused_at_start_up(make_settings: SettingsFactory) -> None:
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        make_settings(timezone="Mars/Olympus")


@pytest.fixture
def hub_settings() -> dict[str, object]:
    return {"core_budget_words": 60, "core_budget_lines": 10}


def test_the_nightly_review_sweeps_the_day_and_compacts_a_core_over_budget(
    hub: EmbeddedHub, make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    wa.publish_many(
        build_event(
            f"Reminder {n}: water the {plant} on the balcony", agent=wa.agent, channel="whatsapp", tier="core"
        )
        for n, plant in enumerate(PLANTS)
    )
    # A restatement backfilled before the memory it restates: the write-time review cannot fold it.
    tea = stored(wa, "Dana likes green tea")
    backfilled = stored(tg, "Dana really enjoys green tea", occurred_at=days_ago(2))
    settle()
    assert tea != backfilled
    services = hub.services
    budget = services.settings.core_budget("wa-assistant")
    assert read_core(
        services.store, services.redis, services.keys, budget, agent="wa-assistant", now=utcnow()
    ).left_out

    scheduler = build_scheduler(services.settings, services.redis)
    [nightly] = [job for job in scheduler.get_jobs() if job.name.endswith("nightly-review")]
    nightly.next_enqueue_time = utcnow() - timedelta(seconds=1)  # as if 02:30 had come
    assert scheduler.enqueue_jobs() == [nightly]
    [job_id] = nightly.get_job_ids(services.redis)
    settle()

    review = services.queue.fetch_job(job_id)
    assert review is not None
    result = review.return_value(refresh=True)
    assert result["conflict_sweep"]["reinforced"] == 1  # the backfilled restatement, folded in
    assert [s.agent for s in wa.memory(backfilled).sightings] == ["tg-assistant", "wa-assistant"]
    assert result["promotion"]["scored"] >= 1
    assert result["over_budget"] == result["compactions_enqueued"] == ["wa-assistant"]
    after = read_core(
        services.store, services.redis, services.keys, budget, agent="wa-assistant", now=utcnow()
    )
    assert after.left_out == [] and after.archived > 0 and after.words <= 60 and after.lines <= 10


def test_the_cron_thread_registers_and_stops_promptly(make_settings: SettingsFactory, redis: Redis) -> None:
    cron = CronThread(make_settings(), redis).start()
    deadline = time.monotonic() + 5
    while cron.scheduler.name not in {s.name for s in CronScheduler.all(redis)}:
        assert time.monotonic() < deadline, "the scheduler never registered"
        time.sleep(0.02)
    started = time.monotonic()
    cron.stop()
    assert not cron.thread.is_alive() and time.monotonic() - started < 2
    assert cron.scheduler.name not in {s.name for s in CronScheduler.all(redis)}


def test_a_dry_run_leaves_a_waiting_triggered_compaction_the_only_one(
    make_services: Callable[..., Services],
) -> None:
    services = make_services()
    redis, queue, keys = services.redis, services.queue, services.keys
    # The owner asks for a dry run; then the core goes over budget while the dry run waits its turn.
    dry = enqueue_compaction(queue, CompactionRequest(agent="wa-assistant", dry_run=True))
    triggered = request_compaction(redis, queue, keys, "wa-assistant", reason="core over budget")
    assert triggered is not None

    make_worker(services).work(burst=True, max_jobs=1, logging_level="WARNING")  # the dry run only
    assert dry.get_status(refresh=True) == "finished"
    assert triggered.get_status(refresh=True) == "queued"
    # The flag stands: a dry run that cleared it let the next over-budget check queue a second one.
    assert request_compaction(redis, queue, keys, "wa-assistant", reason="core over budget") is None
    assert queue.job_ids == [triggered.id]

    make_worker(services).work(burst=True, logging_level="WARNING")  # the triggered compaction
    assert triggered.get_status(refresh=True) == "finished"
    # Once it has started, a core that goes over budget again triggers a new one.
    assert not redis.exists(keys.compaction_scheduled("wa-assistant"))
