"""Log lines carry the request or job they belong to; MEMHUB_LOG_FORMAT=json writes one object a line."""

import json
import logging
from collections.abc import Callable

import pytest

from hub.logs import JsonFormatter, RequestTag, serving
from hub.redis_publisher import RedisPublisher
from hub.services import Services
from tests.helpers import memhub_cli
from workers.worker import run_worker


def test_each_ingest_batch_is_one_line_tagged_with_its_jobs_id(
    make_services: Callable[..., Services], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="workers.ingest")
    caplog.handler.addFilter(RequestTag())  # as the process's handler tags each line
    services = make_services(ingest_batch_size=4, worker_metrics_port=0)
    s = services.settings
    publisher = RedisPublisher(services.redis, agent="wa", prefix=s.redis_prefix, queue_name=s.queue_name)
    for i in range(6):
        publisher.publish(f"Shopping note {i}: buy oat milk")
    services.redis.xadd(services.keys.stream, {"id": "bad-1", "event": "not json"})

    run_worker(services, burst=True, sweep_interval=3600, logging_level="WARNING")

    batches = [r for r in caplog.records if r.name == "workers.ingest" and r.getMessage().startswith("batch")]
    assert [(r.events, r.stored, r.rejected) for r in batches] == [(4, 4, 0), (3, 2, 1)]  # type: ignore[attr-defined]
    drained = set(services.queue.finished_job_registry.get_job_ids())
    assert {r.request_id for r in batches} <= drained  # type: ignore[attr-defined]


def test_a_line_outside_any_request_has_none_and_one_inside_has_its_id() -> None:
    record = logging.LogRecord("memhub", logging.WARNING, __file__, 1, "Redis is slow", None, None)
    RequestTag().filter(record)
    assert json.loads(JsonFormatter().format(record))["request_id"] is None
    with serving("job-42"):
        inside = logging.LogRecord("memhub", logging.WARNING, __file__, 1, "Redis is slow", None, None)
        RequestTag().filter(inside)
    fields = json.loads(JsonFormatter().format(inside))
    assert (fields["request_id"], fields["message"], fields["level"]) == (
        "job-42",
        "Redis is slow",
        "WARNING",
    )


def test_the_log_format_setting_makes_the_commands_log_json() -> None:
    # `memhub api` without an admin key warns, then stops for want of MEMHUB_REDIS_URL: one log line.
    done = memhub_cli("api", env={"MEMHUB_LOG_FORMAT": "json", "MEMHUB_REDIS_URL": ""}, timeout=120)
    assert done.returncode == 2
    [line] = [json.loads(x) for x in done.stderr.splitlines() if x.startswith("{")]
    assert (line["level"], line["logger"]) == ("WARNING", "memhub")
    assert line["message"].startswith("MEMHUB_ADMIN_KEY is not set")
