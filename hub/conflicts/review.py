"""The write-time review: each new memory is judged against the close, older memories it can see.

- the same fact again (or the same words, `same_words`): the older memory is reinforced (a sighting,
  a history entry; a stale one is active again) and the new copy is dropped, so reinforcement never
  duplicates; only when the new copy adds nothing the older one lacks (`adds_nothing`), since its
  words are dropped with it, and nothing points at it (a conflict, a memory it superseded);
- a contradiction: a conflict is recorded with both statements, then the policy applies — a
  correction supersedes at once (what it names, or else what the rules find it contradicts),
  configured severities auto-resolve (newer wins, with a note), the owner is asked about others,
  and the rest wait with a proposal. A conflict the judge inferred from a reported change to the
  closest memory (it is given their similarity) is never resolved automatically, not even by a
  correction that names nothing: it waits with its proposal, or for the owner.

Everything here is idempotent (conflict ids derive from the pair, sightings from the event id), so
an event redelivered after a crash is reviewed again with the same result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import timedelta

from redis import Redis

from hub.conflicts import ledger
from hub.conflicts.judge import Judge, Judgement, Statement, Verdict
from hub.conflicts.judge.chat import speech
from hub.conflicts.judge.combined import judge_pairs
from hub.conflicts.judge.fold import adds_nothing, same_words
from hub.conflicts.judge.text import parse
from hub.conflicts.judge.tokens import content_words, letter_words, words_match
from hub.conflicts.ledger import Conflict, ConflictStatus, Side
from hub.conflicts.resolve import ConflictDecided, resolve, settle_moot, supersede
from hub.imported import said_when_unknown
from hub.keys import Keys
from hub.locks import writing
from hub.models import TIER_RANK, Change, Kind, Memory, Scope, State, utcnow
from hub.nature import nature_of
from hub.settings import Settings
from hub.store.base import NO_TERMS, MemoryFilter, MemoryStore, SearchMode, SearchQuery


@dataclass
class ReviewOutcome:
    merged_into: dict[str, str] = field(default_factory=dict)  # dropped new memory id -> kept memory id
    conflicts: list[Conflict] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # not reviewed: a stop was asked for first


def statement(memory: Memory) -> Statement:
    return Statement(
        memory.text,
        memory.subject,
        memory.attribute,
        memory.value,
        memory.kind.value,
        nature_of(memory).value,
    )


def side(memory: Memory) -> Side:
    return Side(
        memory_id=memory.id,
        text=memory.text,
        agent=memory.agent,
        channel=memory.channel,
        source=memory.source,
        occurred_at=memory.occurred_at,
    )


def lasts_as_long(a: Memory, b: Memory) -> bool:
    """Whether memory `a` expires no sooner than `b` (a memory without expiry lasts)."""
    return a.expires_at is None or (b.expires_at is not None and a.expires_at >= b.expires_at)


def may_fold(older: Memory, newer: Memory) -> bool:
    """Whether `newer` may be folded into `older` (and deleted): only into a memory seen where it is
    seen, lasting as long, and held as high. Folded into a temporary, private or narrower copy, a fact
    would expire with it or vanish from the searches that found it; into a lower tier, a core block's
    line would leave the core block ("Dentist: Dr. Levi" into MEMORY.md's "Dr. Levi is the dentist")."""
    return (
        (older.scope, older.project, older.person) == (newer.scope, newer.project, newer.person)
        and (newer.private or not older.private)
        and lasts_as_long(older, newer)
        and TIER_RANK[older.tier] <= TIER_RANK[newer.tier]
    )


def speaks_of_its_scope(memory: Memory, other: Memory) -> bool:
    """Whether `memory` says a word of the name of the project or person `other` is kept for ("the
    Lisbon flight": project lisbon-trip); true of a memory kept for everyone."""
    name = {Scope.project: other.project, Scope.person: other.person}.get(other.scope)
    return name is None or bool(letter_words(name) & letter_words(memory.text))


def _proposed(older: Memory, newer: Memory) -> Memory:
    """The side a conflict proposes to keep: the newer, unless it says again what the owner's correction
    denied (another agent still saying "Shira goes to Ort Alon" after "Correction: Shira's school is Ort
    Rabin, not Ort Alon"). A later change of a corrected fact ("moved to Thursday") is newer news."""
    if older.kind is not Kind.correction or newer.kind is Kind.correction:
        return newer
    denied = parse(speech(older.text)).negated
    said = content_words(newer.text)
    repeats = bool(denied) and all(any(words_match(w, v) for v in said) for w in denied)
    return older if repeats else newer


def order(memory: Memory) -> tuple[float, float, str]:
    """Which of two memories is older: by when it happened, then when it was stored, then id."""
    return (memory.occurred_at.timestamp(), memory.created_at.timestamp(), memory.id)


@dataclass
class Reviewer:
    store: MemoryStore
    redis: Redis
    keys: Keys
    settings: Settings
    judge: Judge

    def review(
        self,
        memories: Sequence[Memory],
        vectors: Mapping[str, list[float]],
        *,
        stop: Callable[[], bool] = lambda: False,
    ) -> ReviewOutcome:
        """Review stored memories, oldest first, each against the older memories it can see.

        `vectors` holds each memory's dense vector (`MemoryStore.vectors`); one without is skipped.
        Once `stop()` says so, the memories not yet reviewed are left (`ReviewOutcome.left`), the oldest
        first: a batch of hundreds takes a worker asked to stop far longer than one memory.
        """
        outcome = ReviewOutcome()
        ordered = sorted(memories, key=order)
        for at, memory in enumerate(ordered):
            if at and stop():
                outcome.left = [m.id for m in ordered[at:]]
                break
            if memory.id not in vectors:
                continue
            # Read and written under the writers' lock: another worker's review of a restatement of
            # the same memory would otherwise write back its sightings without this one's.
            with writing(self.redis, self.keys):
                current = self.store.get([memory.id])
                if current and current[0].state is not State.superseded:
                    self._review_one(current[0], vectors[memory.id], outcome)
        return outcome

    def candidates(self, memory: Memory, dense: list[float]) -> list[tuple[Memory, float]]:
        """The older memories close enough to compare, closest first, with their cosine similarity.

        A memory that names a project or a person is compared with what its project's or person's
        searches see. One that names neither may be about any of them: it is compared with a project's
        or person's own memories too when it speaks of them ("the Lisbon flight is 10 April now", against
        the lisbon-trip project's "the flight is on 9 April"; not the porto-trip's "on 12 April"). Two
        projects' (or people's) own memories are never compared: "the deadline is Friday" in one does
        not contradict "Monday" in another.
        """
        flt = MemoryFilter(
            now=utcnow(),
            project=memory.project,
            person=memory.person,
            states=frozenset({State.active, State.stale}),
        )
        query = SearchQuery(
            dense=dense,
            sparse=NO_TERMS,  # candidates are found by meaning alone
            filter=flt,
            limit=self.settings.conflict_candidates + 1,
            mode=SearchMode.dense,
        )
        hits = self.store.search(query)
        if memory.project is None and memory.person is None:
            # Searched apart, so that the projects' memories it does not speak of take no place from
            # the ones it sees.
            own = replace(flt, all_scopes=True, scopes=frozenset({Scope.project, Scope.person}))
            spoken = [
                h
                for h in self.store.search(replace(query, filter=own))
                if speaks_of_its_scope(memory, h.memory)
            ]
            hits = sorted([*hits, *spoken], key=lambda h: -h.score)[: query.limit]
        mine = order(memory)
        return [
            (h.memory, h.score)
            for h in hits
            if h.memory.id != memory.id
            and h.score >= self.settings.conflict_min_similarity
            and order(h.memory) < mine
        ]

    def _review_one(self, memory: Memory, dense: list[float], outcome: ReviewOutcome) -> None:
        named = self._apply_explicit_corrections(memory) if memory.kind is Kind.correction else set()
        # Once the memory has superseded another, or sits in a conflict, it stays: folded away, it
        # would leave that one superseded by (or in a conflict with) a memory that no longer exists.
        # This review's own findings are known here; earlier ones are read before a fold (`_holds_links`).
        involved = bool(named)
        candidates = self.candidates(memory, dense)
        # A reported change ("quit the thursday futsal") replaces one fact: the closest one.
        judgements = judge_pairs(
            self.judge,
            [
                (statement(older), statement(memory), similarity if rank == 0 else None)
                for rank, (older, similarity) in enumerate(candidates)
            ],
        )
        for (older, _), judgement in zip(candidates, judgements, strict=True):
            # Word for word the same, it is a restatement whatever subject the judge could read (none,
            # in an instruction), short of a conflict: compaction would fold it later anyway.
            same = judgement.verdict is Verdict.same or (
                judgement.verdict is not Verdict.conflict and same_words(older, memory)
            )
            if same and not involved and may_fold(older, memory) and adds_nothing(older.text, memory.text):
                if not self._holds_links(memory):
                    self._reinforce(older, memory)
                    outcome.merged_into[memory.id] = older.id
                    return
                involved = True
            if judgement.verdict is Verdict.conflict:
                # A correction that names what it corrects corrects only that; other memories it
                # contradicts are ordinary conflicts (the October appointment moved says nothing
                # about the February one). One that names nothing corrects what the rules find it
                # contradicts, not what was inferred from a change it reports: that waits too.
                corrects = memory.kind is Kind.correction and (
                    older.id in named if named else not judgement.inferred
                )
                outcome.conflicts.append(self._conflict(older, memory, judgement, corrects=corrects))
                involved = True

    def _holds_links(self, memory: Memory) -> bool:
        """Whether other records point at `memory`: an open conflict in the ledger, or a memory it
        superseded (a correction's target or a compaction's copy, both named in `related`, or the
        loser of a conflict decided for it). An earlier review, or the owner, made them; a
        restatement backfilled with an earlier date, found by a later sweep, would fold it away.

        Such a memory is not folded: deleted, it would leave a question that can never be answered
        and links to nothing. Compaction merges it later if it still repeats the other, marking it
        superseded rather than deleting it, so every link still leads somewhere.
        """
        if ledger.open_conflicts_of(self.redis, self.keys, [memory.id])[memory.id]:
            return True
        won = [
            other
            for c in ledger.conflicts_about(self.redis, self.keys, [memory.id])
            if c.resolution is not None and c.resolution.keep == memory.id
            for other in c.memory_ids
            if other != memory.id
        ]
        losers = [*memory.related, *won]
        return any(m.superseded_by == memory.id for m in self.store.get(losers)) if losers else False

    def _reinforce(self, older: Memory, newer: Memory) -> None:
        """Fold `newer` into `older`: one memory, one more sighting."""
        known = {s.event_id for s in older.sightings}
        fresh = [s for s in newer.sightings if s.event_id not in known]
        if fresh:
            now = utcnow()
            verified = max(older.last_verified, newer.created_at)
            fields: dict[str, object] = {"sightings": [*older.sightings, *fresh], "last_verified": verified}
            changes: dict[str, object] = {
                "sightings": [len(older.sightings), len(older.sightings) + len(fresh)]
            }
            # A stale memory restated now is verified again: kept stale, search would flag a fact said
            # today as old, and promotion would not move it however often it is said.
            stale_before = now - timedelta(days=self.settings.stale_after_days)
            if older.state is State.stale and verified >= stale_before:
                fields["state"] = State.active
                changes["state"] = [State.stale.value, State.active.value]
            change = Change(
                at=now,
                action="reinforced",
                by=newer.agent,
                note=f"restated by {newer.agent} on {newer.channel or 'an unknown channel'}: {newer.text}",
                changes=changes,
            )
            self.store.update(older.id, {**fields, "history": [*older.history, change]})
        self.store.delete([newer.id])

    def _apply_explicit_corrections(self, correction: Memory) -> set[str]:
        """A correction that names the memories it corrects (in `related`) supersedes them at once.

        Returns the ids of the memories it names.
        """
        targets = self.store.get([r for r in correction.related if r != correction.id])
        for target in targets:
            supersede(
                self.store,
                loser=target.id,
                winner=correction.id,
                by=correction.agent,
                note=f"corrected by the owner: {correction.text}",
            )
            settle_moot(
                self.redis, self.keys, target.id, why=f"corrected by {correction.id}", by=correction.agent
            )
        return {target.id for target in targets}

    def _conflict(self, older: Memory, newer: Memory, judgement: Judgement, *, corrects: bool) -> Conflict:
        cid = ledger.conflict_id(older.id, newer.id)
        conflict = ledger.get(self.redis, self.keys, cid)
        if conflict is None:
            a, b = side(older), side(newer)
            now = utcnow()
            # Filed where it matters: a memory naming no one against a project's is the project's conflict.
            where = older if newer.project is None and newer.person is None else newer
            conflict = Conflict(
                id=cid,
                memory_ids=[a.memory_id, b.memory_id],
                statements=[a.text, b.text],
                agents=[a.agent, b.agent],
                channels=[a.channel, b.channel],
                sources=[a.source, b.source],
                severity=judgement.severity or "medium",
                reason=judgement.reason,
                inferred=judgement.inferred,
                scope=where.scope,
                project=where.project,
                person=where.person,
                proposal=_proposed(older, newer).id,
                created_at=now,
                updated_at=now,
            )
            ledger.record(self.redis, self.keys, conflict)
        if conflict.open:
            with suppress(ConflictDecided):  # decided meanwhile (the owner answered): that decision stands
                self._apply_policy(conflict, older, newer, corrects=corrects)
        return conflict

    def _apply_policy(self, conflict: Conflict, older: Memory, newer: Memory, *, corrects: bool) -> None:
        if corrects:
            resolve(
                self.redis,
                self.keys,
                self.store,
                conflict,
                keep=newer.id,
                by=newer.agent,
                note="the owner corrected this; the correction supersedes the old memory",
            )
        # A temporary memory never wins automatically over one that lasts: it would leave it
        # superseded by a memory about to expire. Nor does a line imported without a date: it is
        # "newer" only by when it was imported (two agents' MEMORY.md files, the second imported a
        # second later). Nor an agent's statement over the owner's correction it repeats the error
        # of. Each waits for the owner, with its proposal.
        elif (
            conflict.severity.value in self.settings.conflict_auto_resolve
            and not conflict.inferred
            and lasts_as_long(newer, older)
            and not said_when_unknown(newer)
            and _proposed(older, newer) is newer
        ):
            resolve(
                self.redis,
                self.keys,
                self.store,
                conflict,
                keep=newer.id,
                by="hub",
                note=f"{conflict.severity.value} severity: resolved automatically, the newer statement wins",
                status=ConflictStatus.auto_resolved,
            )
