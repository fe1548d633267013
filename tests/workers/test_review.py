"""The write-time review as a job of its own: after the store, on the background queue."""

from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from functools import partial

import pytest
from redis import Redis
from redis.client import Pipeline
from redis.exceptions import ConnectionError as RedisConnectionError
from rq.job import Job
from rq.registry import FinishedJobRegistry

from hub.compaction.apply import mark_stale
from hub.compaction.sweep import day_memories, sweep_conflicts
from hub.conflicts import ledger
from hub.conflicts.jobs import REVIEW_JOB
from hub.conflicts.ledger import ConflictStatus
from hub.models import State, memory_id_for, utcnow
from hub.promotion.promoter import Promoter
from hub.queue import DRAIN_JOB
from hub.services import Services
from hub.status import EventState, read_status
from tests.helpers import at_once
from tests.workers.test_ingest import publisher
from workers.context import JobContext
from workers.ingest import drain_stream
from workers.review import review_memories
from workers.worker import run_worker

# The ledger and its policy, on the verdicts the rule grammar gives these statements.
pytestmark = pytest.mark.usefixtures("rule_judge")


def reviewed(services: Services, agent: str, text: str, **fields: object) -> str:
    """Publish one event as `agent`, store it and let a worker review it; its event id."""
    event_id = publisher(services, agent).publish(text, **fields)
    drain_stream(services, consumer="test")
    run_worker(services, burst=True, sweep_interval=60)
    return event_id


def test_a_restatement_is_stored_then_folded_into_the_memory_it_restates(
    make_services: Callable[..., Services],
) -> None:
    services = make_services()
    redis, keys = services.redis, services.keys
    first = publisher(services, "whatsapp-bot").publish("Dana likes green tea")
    drain_stream(services, consumer="test")
    second = publisher(services, "telegram-bot").publish("Dana likes green tea")
    drain_stream(services, consumer="test")

    # Stored and searchable at once; the review waits on the background queue.
    waiting = read_status(redis, keys, second)
    assert waiting is not None and waiting.status is EventState.stored and not waiting.reviewed
    assert waiting.memory_id == memory_id_for(second)
    assert services.store.count() == 2
    assert len(services.background_queue.job_ids) == 2  # one review per stored batch

    run_worker(services, burst=True, sweep_interval=60)

    done = [read_status(redis, keys, event_id) for event_id in (first, second)]
    assert all(s is not None and s.reviewed for s in done)
    assert [s.memory_id for s in done if s] == [memory_id_for(first)] * 2
    assert services.store.count() == 1
    kept = services.store.get([memory_id_for(first)])[0]
    assert {s.agent for s in kept.sightings} == {"whatsapp-bot", "telegram-bot"}

    # A retried review changes nothing more, and leaves the status pointing where the event went.
    again = review_memories(JobContext(services), {memory_id_for(second): [second]})
    assert again["reviewed"] == 0
    status = read_status(redis, keys, second)
    assert status is not None and status.memory_id == memory_id_for(first) and status.reviewed
    assert len(services.store.get([memory_id_for(first)])[0].sightings) == 2


def test_at_a_backlog_workers_store_everything_before_they_review(
    make_services: Callable[..., Services],
) -> None:
    services = make_services(ingest_batch_size=8, ingest_batches_per_job=1)
    ids = [publisher(services).publish(f"Backlog memory {i} about the garden shed") for i in range(40)]

    run_worker(services, burst=True, sweep_interval=60)

    jobs = []
    for queue in services.queues:
        finished = FinishedJobRegistry(queue=queue).get_job_ids()
        jobs += Job.fetch_many(finished, connection=services.redis, serializer=queue.serializer)
    drains = [j for j in jobs if j and j.func_name == DRAIN_JOB]
    reviews = [j for j in jobs if j and j.func_name == REVIEW_JOB]
    assert len(drains) >= 5 and len(reviews) == 5  # one review per stored batch of 8
    assert max(j.ended_at for j in drains if j.ended_at) <= min(j.started_at for j in reviews if j.started_at)
    statuses = [read_status(services.redis, services.keys, i) for i in ids]
    assert all(s is not None and s.status is EventState.stored and s.reviewed for s in statuses)


def test_a_worker_asked_to_stop_leaves_the_rest_of_a_review_to_the_next(
    make_services: Callable[..., Services],
) -> None:
    services = make_services()
    ids = [publisher(services).publish(f"Memory {i} about the garden shed") for i in range(5)]
    drain_stream(services, consumer="test")
    [job] = services.background_queue.jobs  # the stored batch's review
    services.background_queue.remove(job)
    stopping = JobContext(services)
    stopping.stopping.set()

    done = review_memories(stopping, *job.args)

    assert done["reviewed"] == 1 and done["left_for_the_next_worker"] == 4
    statuses = [read_status(services.redis, services.keys, i) for i in ids]
    assert [bool(s and s.reviewed) for s in statuses] == [True, False, False, False, False]
    [rest] = [j for j in services.background_queue.jobs if j.func_name == REVIEW_JOB]
    assert sorted(rest.args[0]) == sorted(memory_id_for(i) for i in ids[1:])

    run_worker(services, burst=True, sweep_interval=60)

    statuses = [read_status(services.redis, services.keys, i) for i in ids]
    assert all(s is not None and s.reviewed for s in statuses)


def test_a_message_that_only_opens_like_an_older_one_is_kept_whole(
    make_services: Callable[..., Services],
) -> None:
    services = make_services()
    texts = [
        "Rina: Good. I'm making stuffed peppers and the meatballs in tomato sauce that Itai likes",
        "Rina: Good. I'm making kubbeh soup, the kids eat it?",
    ]
    ids = []
    for text in texts:  # one stored batch each, the second reviewed against the first
        ids.append(publisher(services, "wa-assistant").publish(text))
        drain_stream(services, consumer="test")
    run_worker(services, burst=True, sweep_interval=60)

    statuses = [read_status(services.redis, services.keys, event_id) for event_id in ids]
    assert all(s is not None and s.reviewed for s in statuses)
    assert [s.memory_id for s in statuses if s] == [memory_id_for(event_id) for event_id in ids]
    assert sorted(m.text for m in services.store.get([memory_id_for(i) for i in ids])) == sorted(texts)


@pytest.mark.parametrize("kind", ["fact", "correction"])
def test_a_reported_change_is_a_conflict_proposed_to_the_owner_not_resolved(
    make_services: Callable[..., Services], kind: str
) -> None:
    # Even where every severity would be resolved automatically, a conflict inferred from a change
    # cue waits for the owner, with the newer memory as its proposal; so it does when the newer one is
    # a correction that names nothing it corrects (what it replaces is only inferred).
    services = make_services(conflict_auto_resolve=["low", "medium", "high"])
    texts = [
        "Marcus plays five-a-side soccer Thursday nights at Fitzroy Futsal.",
        "Marcus: quit the thursday futsal, knee can't take it anymore",
    ]
    ids = []
    for text, text_kind in zip(texts, ["fact", kind], strict=True):
        ids.append(publisher(services, "wa-assistant").publish(text, kind=text_kind))
        drain_stream(services, consumer="test")
    run_worker(services, burst=True, sweep_interval=60)

    older, newer = (memory_id_for(event_id) for event_id in ids)
    [conflict] = ledger.all_conflicts(services.redis, services.keys)
    assert set(conflict.memory_ids) == {older, newer} and conflict.proposal == newer
    assert conflict.status is ConflictStatus.open and conflict.inferred and "'quit'" in conflict.reason
    assert {m.state for m in services.store.get([older, newer])} == {State.active}


def test_two_workers_reviewing_restatements_of_one_memory_at_once_lose_no_sighting(
    make_services: Callable[..., Services],
) -> None:
    # Two review jobs (two workers) fold their restatements into the same memory at the same moment:
    # each reads its sightings and writes them back with one more, so they take turns (`hub.locks`).
    services = make_services()
    for trial in range(5):
        text = f"Netanel's gym locker is number {300 + trial}"
        original = publisher(services, "wa").publish(text)
        drain_stream(services, consumer="test")
        restatements = [publisher(services, agent).publish(text) for agent in ("tg", "slack")]
        drain_stream(services, consumer="test")
        first = services.store.get([memory_id_for(original)])
        services.reviewer.review(first, services.store.vectors([first[0].id]))
        memories = [services.store.get([memory_id_for(event_id)]) for event_id in restatements]
        at_once(*(partial(services.reviewer.review, m, services.store.vectors([m[0].id])) for m in memories))
        kept = services.store.get([memory_id_for(original)])[0]
        assert sorted(s.agent for s in kept.sightings) == ["slack", "tg", "wa"], trial
        assert services.store.get([memory_id_for(e) for e in restatements]) == []  # both folded


class DiesBeforeItsTransactions(Redis):
    """A worker's connection that dies before its next MULTI/EXEC reaches Redis (kill -9 mid-review)."""

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        pipe = super().pipeline(transaction, shard_hint)

        def dies(raise_on_error: bool = True) -> list[object]:
            raise RedisConnectionError("the worker died")

        pipe.execute = dies  # type: ignore[method-assign]
        return pipe


def test_a_review_killed_while_recording_a_conflict_records_it_whole_when_it_runs_again(
    make_services: Callable[..., Services], redis_url: str
) -> None:
    services = make_services()
    ids = []
    for text in ("Netanel works until 20:00", "Netanel works until 17:00"):
        ids.append(publisher(services, "wa-assistant").publish(text))
        drain_stream(services, consumer="test")
    older, newer = services.store.get([memory_id_for(event_id) for event_id in ids])
    vectors = services.store.vectors([newer.id])
    dying = replace(services.reviewer, redis=DiesBeforeItsTransactions.from_url(redis_url))
    with pytest.raises(RedisConnectionError):
        dying.review([newer], vectors)

    services.reviewer.review([newer], vectors)  # the review runs again, on the next worker
    # Half written, the conflict would be found by id and never listed, asked or marked on hits.
    [conflict] = ledger.all_conflicts(services.redis, services.keys)
    assert conflict.memory_ids == [older.id, newer.id] and conflict.open
    assert ledger.open_conflicts_of(services.redis, services.keys, [older.id, newer.id]) == {
        older.id: [conflict.id],
        newer.id: [conflict.id],
    }


def test_a_memory_in_an_open_conflict_is_not_folded_into_a_restatement_backfilled_later(
    make_services: Callable[..., Services],
) -> None:
    # An import backfills a restatement of the newer side of an open conflict, dated a month ago: the
    # nightly sweep folded that side into it and deleted it, leaving the owner asked about a memory
    # that no longer existed (404), on a question that could never be answered.
    services = make_services()
    works = memory_id_for(reviewed(services, "wa", "Netanel works until 20:00"))
    finishes = memory_id_for(reviewed(services, "tg", "Netanel finishes work at 18:00"))
    [asked] = ledger.all_conflicts(services.redis, services.keys)
    assert asked.memory_ids == [works, finishes] and asked.open
    old = (utcnow() - timedelta(days=30)).isoformat()
    backfilled = reviewed(services, "tg", "Netanel finishes work at 18:00", occurred_at=old)

    day = day_memories(services, since=utcnow() - timedelta(hours=24), now=utcnow())
    report = sweep_conflicts(services, day)

    assert (report.reviewed, report.reinforced) == (3, 0)
    ids = [works, finishes, memory_id_for(backfilled)]
    assert [m.id for m in services.store.get(ids)] == ids
    asked = ledger.get(services.redis, services.keys, asked.id)
    assert asked is not None and asked.open
    assert ledger.open_conflicts_of(services.redis, services.keys, [finishes])[finishes] == [asked.id]


def test_a_memory_that_superseded_another_is_not_folded_into_a_restatement_backfilled_later(
    make_services: Callable[..., Services],
) -> None:
    # The same with the conflict resolved at once (the newer statement won): folded away, the winner
    # left the loser superseded by a memory that no longer existed.
    services = make_services(conflict_auto_resolve=["low", "medium", "high"])
    works = memory_id_for(reviewed(services, "wa", "Netanel works until 20:00"))
    finishes = memory_id_for(reviewed(services, "tg", "Netanel finishes work at 18:00"))
    assert services.store.get([works])[0].superseded_by == finishes
    old = (utcnow() - timedelta(days=30)).isoformat()
    reviewed(services, "tg", "Netanel finishes work at 18:00", occurred_at=old)

    day = day_memories(services, since=utcnow() - timedelta(hours=24), now=utcnow())
    sweep_conflicts(services, day)

    assert [m.id for m in services.store.get([finishes])] == [finishes]
    assert services.store.get([works])[0].superseded_by == finishes


def test_a_stale_memory_restated_is_active_again(make_services: Callable[..., Services]) -> None:
    # Marked stale by compaction, then restated three times by two agents: it stayed stale, so search
    # flagged a fact said today as old and promotion would not move it ("a stale memory does not move").
    services = make_services()
    dentist = memory_id_for(reviewed(services, "wa", "Netanel's dentist is Dr. Levi on Herzl street"))
    assert mark_stale(services.store, dentist, before=utcnow() + timedelta(days=1), now=utcnow())

    for agent in ("tg", "wa", "tg"):
        reviewed(services, agent, "Netanel's dentist is Dr. Levi on Herzl street")

    memory = services.store.get([dentist])[0]
    assert memory.state is State.active and len(memory.sightings) == 4
    woke, *later = [c for c in memory.history if c.action == "reinforced"]
    assert woke.changes["state"] == ["stale", "active"] and all("state" not in c.changes for c in later)
    [assessment] = Promoter.of(services).score([dentist])
    assert "does not move" not in assessment.reason


def test_the_same_instruction_from_two_agents_is_stored_once(make_services: Callable[..., Services]) -> None:
    # The judge reads no subject in an instruction and called two of them, word for word the same,
    # different subjects: the review stored the restatement as a second memory.
    services = make_services()
    said = [
        ("wa", "Always book the 7am train on Mondays", {}),
        ("tg", "always book the 7am train on Mondays.", {}),
        # Same words, but structured claims about two people: not the same statement.
        ("wa", "Birthday is on 14 July", {"subject": "Dana", "attribute": "birthday", "value": "14 July"}),
        ("tg", "Birthday is on 14 July", {"subject": "Noa", "attribute": "birthday", "value": "14 July"}),
    ]
    ids = [reviewed(services, agent, text, kind="decision", **claim) for agent, text, claim in said]

    statuses = [read_status(services.redis, services.keys, event_id) for event_id in ids]
    first, _, dana, noa = (memory_id_for(event_id) for event_id in ids)
    assert [s.memory_id for s in statuses if s] == [first, first, dana, noa]
    assert [s.agent for s in services.store.get([first])[0].sightings] == ["wa", "tg"]
    assert services.store.count() == 3
