"""`memhub import`: publish a workspace's memories through the hub's pipeline and wait until stored.

The importer talks to a running hub over HTTP (the embedded store has one owning process, so it
never opens it itself). Events are published oldest first, so that the hub's write-time review
judges each against the memories that came before it, as if the agent had published them live.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from hub.api.schemas import MAX_BATCH_EVENTS
from hub.markdown.layout import Layout
from hub.markdown.reader import Skipped, read_workspace
from hub.models import CLOSABLE, EventCreate, memory_id_for
from memhub_client import Memhub, MemhubError
from memhub_client.models import EventState, EventStatusPublic, MemoryPublic, State


@dataclass
class ImportReport:
    files: int = 0
    found: int = 0  # memory lines read, before anything was skipped
    imported: int = 0
    already_present: int = 0  # published by an earlier import: nothing new
    merged: int = 0  # said what a stored memory says: that memory was reinforced, no copy kept
    closed: int = (
        0  # open loops and tasks checked off (`- [x] …`) or under Tasks completed, closed in the hub
    )
    # Open loops the hub held (another agent's, or noted earlier) that the ones closed answered: closed too.
    answered: int = 0
    pending: int = 0  # published, not stored before the wait ended (all of them with --no-wait)
    skipped: list[Skipped] = field(default_factory=list)
    refused: list[Skipped] = field(default_factory=list)  # the hub rejected them
    notes: list[str] = field(default_factory=list)
    # Open conflicts the imported memories are in (another agent's files said otherwise); None on a dry run.
    conflicts: int | None = None
    dry_run: bool = False
    seconds: float = 0.0

    def summary(self, *, examples: int = 20) -> str:
        verb = "would import" if self.dry_run else "imported"
        lines = [
            f"{self.found} memory lines in {self.files} files, {self.seconds:.1f} s",
            f"  {verb:<17} {self.imported}",
            f"  {'already present':<17} {self.already_present}  (imported before: nothing new)",
        ]
        if not self.dry_run:
            lines.append(
                f"  {'merged':<17} {self.merged}  (restated a memory the hub had: it was reinforced)"
            )
            lines.append(f"  {'still queued':<17} {self.pending}")
        if self.conflicts:
            lines.append(
                f"  {'in conflict':<17} {self.conflicts}  (open, with what the hub had: memhub conflicts list)"
            )
        if self.closed:
            lines.append(
                f"  {'closed' if not self.dry_run else 'would close':<17} {self.closed}  (checked off, - [x], or done)"
            )
        if self.answered:
            lines.append(
                f"  {'answered':<17} {self.answered}  (open loops the hub had, done by these: closed too)"
            )
        for title, items in (("skipped", self.skipped), ("refused by the hub", self.refused)):
            lines.append(f"  {title:<17} {len(items)}")
            lines += [f"    {s.source}: {s.reason}" for s in items[:examples]]
            if len(items) > examples:
                lines.append(f"    … and {len(items) - examples} more")
        lines += [f"  note: {n}" for n in self.notes[:examples]]
        return "\n".join(lines)


SOURCE_LINE = re.compile(r":\d+$")

# Events asked about per status request while waiting: small, since the API shares the workers' process.
WAIT_PROBE = 100


def chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def import_workspace(
    root: Path,
    *,
    hub: Memhub,
    layout: Layout | None = None,
    dry_run: bool = False,
    wait: bool = True,
    timeout: float = 600.0,
    batch_size: int = MAX_BATCH_EVENTS,
    progress: bool = False,
) -> ImportReport:
    """Import the workspace at `root` as `hub.agent` (lines whose file names no channel get `hub.channel`)."""
    started = time.monotonic()
    with tqdm(desc="reading", unit="line", disable=not progress) as bar:
        reading = read_workspace(
            root, layout=layout or Layout(), agent=hub.agent, channel=hub.channel, progress=bar
        )
    report = ImportReport(files=reading.files, skipped=reading.skipped, notes=reading.notes, dry_run=dry_run)
    # Lines only: a file left out whole (`memory/notes.md`, an unreadable one) is no memory line.
    report.found = len(reading.events) + sum(1 for s in reading.skipped if SOURCE_LINE.search(s.source))
    events = sorted(reading.events, key=_chronological)
    statuses = _known_statuses(hub, [e.id for e in events if e.id], progress=progress)
    present = _present_events(hub, progress=progress)
    fresh: list[EventCreate] = []
    waiting: list[str] = []
    for event in events:
        assert event.id is not None
        status = statuses.get(event.id)
        if event.id in present or (status is not None and status.status is EventState.stored):
            report.already_present += 1
        elif status is not None and status.status in (EventState.rejected, EventState.failed):
            report.refused.append(Skipped(event.source or event.id, status.error or status.status.value))
        elif status is not None:
            waiting.append(event.id)  # queued by an earlier import that did not wait
        else:
            fresh.append(event)
    # The loops and tasks to close: those done and still open in the hub, or not stored yet.
    closing = [
        i
        for i in reading.closed
        if i not in present or (present[i].state is State.active and present[i].kind.value in CLOSABLE)
    ]
    if dry_run:
        report.imported = len(fresh) + len(waiting)
        report.closed = len(closing)
    else:
        _publish(hub, fresh, batch_size=batch_size, progress=progress)
        waiting += [e.id for e in fresh if e.id]
        sources = {e.id: e.source or e.id for e in events if e.id}
        done = _wait(hub, waiting, timeout=timeout, progress=progress) if wait else {}
        _account(report, done, sources)
        report.pending = len(waiting) - len(done)
        _close(hub, closing, present, done, report, sources)
        report.conflicts = _open_conflicts(hub, {s.memory_id for s in done.values() if s.memory_id})
    report.seconds = time.monotonic() - started
    return report


def _chronological(event: EventCreate) -> tuple[bool, float]:
    """Dated lines by date; undated ones last (the hub dates them on arrival), in file order."""
    return (event.occurred_at is None, event.occurred_at.timestamp() if event.occurred_at else 0.0)


def _known_statuses(hub: Memhub, ids: list[str], *, progress: bool) -> dict[str, EventStatusPublic]:
    """What the hub knows of each event: an earlier import's, still queued or refused."""
    found: dict[str, EventStatusPublic] = {}
    with tqdm(total=len(ids), desc="checking", unit="event", disable=not progress) as bar:
        for chunk in chunks(ids, MAX_BATCH_EVENTS):
            found.update(
                {i: s for i, s in zip(chunk, hub.statuses(list(chunk)), strict=True) if s is not None}
            )
            bar.update(len(chunk))
    return found


def _present_events(hub: Memhub, *, progress: bool) -> dict[str, MemoryPublic]:
    """Every event this agent's memories hold, their own and those that reinforced them, with the
    memory that holds it.

    Event statuses expire (a week by default); the memories do not, so a later re-import still
    finds what it imported before.
    """
    present: dict[str, MemoryPublic] = {}
    memories = hub.all_memories(state=list(State))
    for memory in tqdm(memories, desc="already held", unit="memory", disable=not progress):
        present[memory.event_id] = memory
        present.update((s.event_id, memory) for s in memory.sightings)
    return present


def _close(
    hub: Memhub,
    closing: list[str],
    present: dict[str, MemoryPublic],
    done: dict[str, EventStatusPublic],
    report: ImportReport,
    sources: dict[str, str],
) -> None:
    """Close the loops and tasks done, now stored (in the memory that holds them, when one was merged)."""
    for event_id in sorted(closing, key=lambda i: sources.get(i, i)):
        status = done.get(event_id)
        memory_id = present[event_id].id if event_id in present else status and status.memory_id
        if not memory_id:
            continue  # refused, or still queued: the next import closes it
        try:
            closed = hub.resolve(memory_id, note=f"done in {sources.get(event_id, event_id)}")
        except MemhubError as exc:  # a memory that is no open loop any more, or a key that may not write
            report.notes.append(f"{sources.get(event_id, event_id)}: done, but not closed ({exc})")
            continue
        report.closed += 1
        report.answered += len(closed.answered)


def _publish(hub: Memhub, events: list[EventCreate], *, batch_size: int, progress: bool) -> None:
    with tqdm(total=len(events), desc="publishing", unit="event", disable=not progress) as bar:
        for start in range(0, len(events), batch_size):
            batch = events[start : start + batch_size]
            hub.publish_many(batch)
            bar.update(len(batch))


def poll_oldest_first(
    hub: Memhub,
    pending: Sequence[str],
    finished: Callable[[EventStatusPublic], bool],
    *,
    probe: int = WAIT_PROBE,
) -> tuple[dict[str, EventStatusPublic], list[str]]:
    """One round of waiting on events, in the order they were published: the statuses of those
    `finished` says are done, and the ids still pending.

    Workers drain the stream roughly in order, so the round asks about the oldest pending events
    first and stops at the first `probe` not all done: a round costs one small request while waiting.
    """
    done: dict[str, EventStatusPublic] = {}
    still: list[str] = []
    for start in range(0, len(pending), probe):
        chunk = list(pending[start : start + probe])
        answers = hub.statuses(chunk)
        now = {i: s for i, s in zip(chunk, answers, strict=True) if s is not None and finished(s)}
        done.update(now)
        still += [i for i in chunk if i not in now]
        if len(now) < len(chunk):  # the rest are queued behind these: ask next round
            still += pending[start + probe :]
            break
    return done, still


def _wait(hub: Memhub, ids: list[str], *, timeout: float, progress: bool) -> dict[str, EventStatusPublic]:
    """Poll until every event is rejected, failed, or stored and reviewed, or `timeout` passes."""
    done: dict[str, EventStatusPublic] = {}
    pending = list(ids)
    deadline = time.monotonic() + timeout
    with tqdm(total=len(ids), desc="storing", unit="event", disable=not progress) as bar:
        while pending and time.monotonic() < deadline:
            finished, still = poll_oldest_first(hub, pending, lambda s: s.settled)
            done.update(finished)
            bar.update(len(pending) - len(still))
            pending = still
            if pending:
                time.sleep(0.25)
    return done


def _open_conflicts(hub: Memhub, memory_ids: set[str]) -> int:
    """How many open conflicts hold one of these memories. The key may read the ledger: it listed the
    agent's memories, which needs the owner's view too."""
    if not memory_ids:
        return 0
    return sum(1 for c in hub.all_conflicts(status="open") if memory_ids & set(c.memory_ids))


def _account(report: ImportReport, done: dict[str, EventStatusPublic], sources: dict[str, str]) -> None:
    for event_id, status in done.items():
        if status.status is EventState.stored and status.memory_id == memory_id_for(event_id):
            report.imported += 1
        elif status.status is EventState.stored:
            report.merged += 1
        else:
            report.refused.append(
                Skipped(sources.get(event_id, event_id), status.error or status.status.value)
            )


__all__ = ["ImportReport", "import_workspace"]
