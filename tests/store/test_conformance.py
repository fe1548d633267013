"""One conformance suite for every store backend: what a MemoryStore promises, checked on real vectors."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hub.embedding import Embedder
from hub.models import (
    Change,
    Confidence,
    Kind,
    Memory,
    Nature,
    Origin,
    Scope,
    Sighting,
    State,
    Tier,
    memory_id_for,
)
from hub.settings import Settings
from hub.sparse import SparseEncoder
from hub.store import EdgeStore, open_store
from hub.store.base import (
    NO_TERMS,
    MemoryFilter,
    MemoryPoint,
    MemoryStore,
    PayloadPatch,
    SearchMode,
    SearchQuery,
    to_payload,
)
from hub.store.server import ServerStore
from hub.vectors import memory_points
from tests.store.conftest import NOW, make_memory

MakePoint = Callable[[Memory], MemoryPoint]

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)

# Names are event ids; the prefix says the scope (g global, p project, u person, t temporary).
CORPUS: dict[str, tuple[str, dict[str, Any]]] = {
    "g_coffee": ("Netanel prefers oat milk in his coffee.", {"tier": Tier.core}),
    "g_zorblatt": (
        "The staging database host is zorblatt-07; it runs Postgres 16.",
        {"occurred_at": NOW - 2.5 * DAY},
    ),
    "g_deploy": (
        "We decided to deploy releases on Tuesdays after the standup.",
        {"kind": Kind.decision, "agent": "ops-bot", "channel": "cli", "confidence": Confidence.high},
    ),
    "p_alpha": (
        "Project Alpha's launch budget was cut to forty thousand euros.",
        {"scope": Scope.project, "project": "alpha", "kind": Kind.decision, "occurred_at": NOW - 3 * DAY},
    ),
    "p_beta": (
        "The Beta team migrates the billing service to Kubernetes next sprint.",
        {"scope": Scope.project, "project": "beta"},
    ),
    "u_alice": (
        "Alice is allergic to peanuts.",
        {
            "scope": Scope.person,
            "person": "alice",
            "channel": "whatsapp",
            "occurred_at": NOW - 2 * DAY,
            "private": True,
            "related": ["alice"],
        },
    ),
    "u_bob": ("Bob works from Lisbon during the winter.", {"scope": Scope.person, "person": "bob"}),
    "t_open": (
        "The office wifi is down until the router is replaced.",
        {"scope": Scope.temporary, "expires_at": NOW + DAY, "agent": "ops-bot"},
    ),
    "t_alpha": (
        "Alpha's CI runners are paused for maintenance tonight.",
        {"scope": Scope.temporary, "project": "alpha", "expires_at": NOW + DAY, "confidence": Confidence.low},
    ),
    "t_alice": (
        "Alice is on vacation this week; reply to her next Monday.",
        {
            "scope": Scope.temporary,
            "person": "alice",
            "expires_at": NOW + DAY,
            "channel": "whatsapp",
            "private": True,
        },
    ),
    "t_alpha_alice": (
        "Alice is reviewing the Alpha design document today.",
        {
            "scope": Scope.temporary,
            "project": "alpha",
            "person": "alice",
            "expires_at": NOW + DAY,
            "related": ["alice", "alpha"],
        },
    ),
    "t_expired": (
        "The parking garage is closed today.",
        {"scope": Scope.temporary, "expires_at": NOW - HOUR},
    ),
    # Expiry hides a memory whatever its scope.
    "g_expired": ("The quarterly all-hands moved to the big meeting room.", {"expires_at": NOW - HOUR}),
    "g_superseded": ("Deploys happen on Fridays.", {"state": State.superseded}),
}
# What every search of the owner finds: global and temporary memories, whatever project or person they
# name. NAMING_NONE: those of them naming no project and no person, all a key granted neither finds.
NAMING_NONE = {"g_coffee", "g_zorblatt", "g_deploy", "t_open"}
PUBLIC = NAMING_NONE | {"t_alpha", "t_alice", "t_alpha_alice"}
EVERYONE = MemoryFilter(now=NOW, project="alpha", person="alice")


def memory(name: str) -> Memory:
    text, fields = CORPUS[name]
    return make_memory(name, text, **fields)


def names(memories: list[Memory]) -> set[str]:
    return {m.event_id for m in memories}


def scroll_all(store: MemoryStore, flt: MemoryFilter, page_size: int = 100) -> list[Memory]:
    found: list[Memory] = []
    offset: str | None = None
    while True:
        page = store.scroll(flt, limit=page_size, offset=offset)
        found += page.memories
        if page.next_offset is None:
            return found
        offset = page.next_offset


@pytest.fixture
def corpus(store: MemoryStore, make_point: MakePoint) -> MemoryStore:
    store.upsert([make_point(memory(name)) for name in CORPUS])
    return store


@pytest.fixture(scope="module")
def ask(embedder: Embedder) -> Callable[..., SearchQuery]:
    sparse = SparseEncoder()

    def query(
        text: str, flt: MemoryFilter = EVERYONE, mode: SearchMode = SearchMode.hybrid, limit: int = 50
    ) -> SearchQuery:
        return SearchQuery(embedder.encode_one(text), sparse.query(text), flt, limit=limit, mode=mode)

    return query


def test_round_trip_keeps_every_field(store: MemoryStore, make_point: MakePoint) -> None:
    at = NOW.astimezone(timezone(timedelta(hours=2))).replace(microsecond=123456)
    promoted = Change(at=at, action="promoted", by="owner", changes={"tier": ["episodic", "core"]}, note="ok")
    full = make_memory(
        "full",
        "Alice moved the Alpha demo to Thursday.",
        context="Bob: when is the Alpha demo now?",
        kind=Kind.correction,
        evidence=["standup notes", "calendar invite"],
        scope=Scope.temporary,
        project="alpha",
        person="alice",
        expires_at=NOW + DAY,
        channel="telegram",
        chat="team-chat",
        session="s-42",
        occurred_at=at,
        confidence=Confidence.high,
        why="she said so",
        source="msg:991",
        related=[memory_id_for("p_alpha")],
        subject="alpha demo",
        attribute="day",
        value="Thursday",
        state=State.stale,
        tier=Tier.core,
        created_at=at - HOUR,
        last_verified=at,
        superseded_by=memory_id_for("newer"),
        promotion_score=2.5,
        private=True,
        sightings=[Sighting(event_id="full", agent="tester", channel="telegram", session="s-42", at=at)],
        history=[promoted],
        nature=Nature.event,
        origin=Origin(
            path="memory/daily/2026-11-29.md", section="Notes", line=7, tags=["work"], undated=True
        ),
    )
    # Every field differs from its default, so a field the store dropped would show.
    for name, field in Memory.model_fields.items():
        if not field.is_required():
            assert getattr(full, name) != field.get_default(call_default_factory=True), name

    store.upsert([make_point(full)])

    assert store.get([full.id]) == [full]


def test_get_returns_found_memories_in_the_order_asked(corpus: MemoryStore) -> None:
    ids = [memory_id_for("u_bob"), memory_id_for("missing"), memory_id_for("g_coffee")]
    assert [m.event_id for m in corpus.get(ids)] == ["u_bob", "g_coffee"]
    assert corpus.get([]) == []


def test_vectors_returns_the_dense_vectors_written(store: MemoryStore, make_point: MakePoint) -> None:
    points = [make_point(memory(name)) for name in ("g_coffee", "u_bob")]
    store.upsert(points)
    ids = [p.memory.id for p in points]

    found = store.vectors([ids[1], memory_id_for("missing"), ids[0].upper(), "not-a-uuid"])

    assert set(found) == set(ids)
    for point in points:
        assert np.allclose(found[point.memory.id], point.dense, atol=1e-6)
    assert store.vectors([]) == {}


def test_ids_that_are_not_uuids_name_no_memory(corpus: MemoryStore) -> None:
    assert corpus.get(["0", "not-a-uuid", ""]) == []
    corpus.delete(["0"])
    with pytest.raises(KeyError):
        corpus.update("0", {"state": State.stale})
    assert corpus.count() == len(CORPUS)
    # Any spelling of the same UUID names the same memory.
    assert corpus.get([memory_id_for("u_bob").upper()])[0].event_id == "u_bob"


def test_upsert_is_idempotent_by_id(store: MemoryStore, make_point: MakePoint) -> None:
    store.upsert([make_point(memory("g_coffee"))])
    edited = memory("g_coffee").model_copy(update={"text": "Netanel takes his coffee black now."})
    store.upsert([make_point(edited)])

    assert store.count() == 1
    assert store.get([edited.id])[0].text == "Netanel takes his coffee black now."


@pytest.mark.parametrize(
    ("project", "person", "visible"),
    [
        (None, None, PUBLIC),
        ("alpha", None, PUBLIC | {"p_alpha"}),
        (None, "alice", PUBLIC | {"u_alice"}),
        ("alpha", "alice", PUBLIC | {"p_alpha", "u_alice"}),
        ("beta", "bob", PUBLIC | {"p_beta", "u_bob"}),
    ],
)
def test_visibility(
    corpus: MemoryStore,
    ask: Callable[..., SearchQuery],
    project: str | None,
    person: str | None,
    visible: set[str],
) -> None:
    flt = MemoryFilter(now=NOW, project=project, person=person)

    assert names(scroll_all(corpus, flt)) == visible
    assert corpus.count(flt) == len(visible)
    for mode in (SearchMode.dense, SearchMode.hybrid):
        hits = corpus.search(ask("what do we know?", flt, mode))
        assert names([hit.memory for hit in hits]) == visible


@pytest.mark.parametrize(
    ("projects", "persons", "project", "visible"),
    [
        # A key granted no project and no person finds only what names neither.
        (set(), set(), None, NAMING_NONE),
        ({"alpha"}, set(), None, NAMING_NONE | {"t_alpha"}),
        ({"alpha"}, set(), "alpha", NAMING_NONE | {"t_alpha", "p_alpha"}),
        (set(), {"alice"}, None, NAMING_NONE | {"t_alice"}),
        # A temporary memory naming a project and a person needs both granted.
        ({"alpha"}, {"alice"}, None, PUBLIC),
        ({"beta"}, {"bob", "alice"}, None, NAMING_NONE | {"t_alice"}),
    ],
)
def test_visibility_within_a_keys_grants(
    corpus: MemoryStore,
    ask: Callable[..., SearchQuery],
    projects: set[str],
    persons: set[str],
    project: str | None,
    visible: set[str],
) -> None:
    flt = MemoryFilter(
        now=NOW, project=project, granted_projects=frozenset(projects), granted_persons=frozenset(persons)
    )

    assert names(scroll_all(corpus, flt)) == visible
    for mode in (SearchMode.dense, SearchMode.hybrid):
        hits = corpus.search(ask("what do we know?", flt, mode))
        assert names([hit.memory for hit in hits]) == visible


@pytest.mark.parametrize(
    ("projects", "persons", "visible"),
    [
        (None, None, PUBLIC | {"p_alpha", "p_beta", "u_alice", "u_bob"}),
        ({"alpha"}, set(), NAMING_NONE | {"t_alpha", "p_alpha"}),
        (set(), {"alice"}, NAMING_NONE | {"t_alice", "u_alice"}),
        ({"beta"}, {"bob", "alice"}, NAMING_NONE | {"t_alice", "p_beta", "u_bob", "u_alice"}),
        (set(), set(), NAMING_NONE),
    ],
)
def test_every_scope_is_searched_within_the_grants(
    corpus: MemoryStore,
    ask: Callable[..., SearchQuery],
    projects: set[str] | None,
    persons: set[str] | None,
    visible: set[str],
) -> None:
    # A search asked to look everywhere finds each project's and person's memories without naming
    # them: those the key may read, and never an expired or superseded one.
    flt = MemoryFilter(
        now=NOW,
        all_scopes=True,
        granted_projects=None if projects is None else frozenset(projects),
        granted_persons=None if persons is None else frozenset(persons),
    )

    assert names(scroll_all(corpus, flt)) == visible
    for mode in (SearchMode.dense, SearchMode.hybrid):
        hits = corpus.search(ask("what do we know?", flt, mode))
        assert names([hit.memory for hit in hits]) == visible


def test_expiry_follows_the_filter_clock(corpus: MemoryStore) -> None:
    # A memory expires at its expiry instant: visible one second before, hidden from then on.
    before = MemoryFilter(now=NOW + DAY - timedelta(seconds=1))
    at = MemoryFilter(now=NOW + DAY)
    assert "t_open" in names(scroll_all(corpus, before))
    assert "t_open" not in names(scroll_all(corpus, at))
    assert "t_expired" in names(scroll_all(corpus, MemoryFilter(now=NOW - 2 * HOUR)))


@pytest.mark.parametrize(
    ("narrowing", "expected"),
    [
        ({"scopes": frozenset({Scope.temporary})}, {"t_open", "t_alpha", "t_alice", "t_alpha_alice"}),
        ({"kinds": frozenset({Kind.decision})}, {"g_deploy", "p_alpha"}),
        ({"agents": frozenset({"ops-bot"})}, {"g_deploy", "t_open"}),
        ({"channels": frozenset({"whatsapp", "cli"})}, {"u_alice", "t_alice", "g_deploy"}),
        ({"tiers": frozenset({Tier.core})}, {"g_coffee"}),
        ({"confidences": frozenset({Confidence.low, Confidence.high})}, {"t_alpha", "g_deploy"}),
        # occurred_after is inclusive, occurred_before exclusive.
        ({"occurred_after": NOW - 3 * DAY, "occurred_before": NOW - 2 * DAY}, {"p_alpha", "g_zorblatt"}),
        ({"occurred_before": NOW - 2 * DAY}, {"p_alpha", "g_zorblatt"}),
        ({"kinds": frozenset({Kind.decision}), "agents": frozenset({"ops-bot"})}, {"g_deploy"}),
        ({"kinds": frozenset()}, set()),
        ({"related": frozenset({"alice", "nobody"})}, {"u_alice", "t_alpha_alice"}),
        ({"related": frozenset({"alpha"}), "channels": frozenset({"whatsapp"})}, set()),
        # A search from a group chat: memories private to direct conversations stay out.
        ({"exclude_private": True}, PUBLIC - {"t_alice"} | {"p_alpha"}),
        ({"exclude_private": True, "channels": frozenset({"whatsapp"})}, set()),
        # Only these memories, and only those visible (p_beta is not; any spelling of an id works).
        (
            {
                "ids": frozenset(
                    {
                        memory_id_for("g_coffee"),
                        memory_id_for("p_beta"),
                        memory_id_for("p_alpha").upper(),
                        "not-a-uuid",
                    }
                )
            },
            {"g_coffee", "p_alpha"},
        ),
        ({"ids": frozenset()}, set()),
    ],
)
def test_narrowing_filters(
    corpus: MemoryStore, ask: Callable[..., SearchQuery], narrowing: dict[str, Any], expected: set[str]
) -> None:
    flt = MemoryFilter(now=NOW, project="alpha", person="alice", **narrowing)

    assert names(scroll_all(corpus, flt)) == expected
    assert corpus.count(flt) == len(expected)
    assert names([hit.memory for hit in corpus.search(ask("anything", flt))]) == expected


def test_superseded_is_hidden_unless_asked_for(corpus: MemoryStore, ask: Callable[..., SearchQuery]) -> None:
    assert "g_superseded" not in names(scroll_all(corpus, EVERYONE))
    only = MemoryFilter(now=NOW, states=frozenset({State.superseded}))
    assert names(scroll_all(corpus, only)) == {"g_superseded"}
    both = MemoryFilter(now=NOW, states=frozenset({State.active, State.superseded}))
    assert {"g_superseded", "g_coffee"} <= names(scroll_all(corpus, both))
    hits = corpus.search(ask("Deploys happen on Fridays.", only))
    assert [hit.memory.event_id for hit in hits] == ["g_superseded"]


def test_owner_listing_sees_every_scope_but_not_expired(corpus: MemoryStore) -> None:
    listing = MemoryFilter(now=NOW, all_scopes=True)
    assert names(scroll_all(corpus, listing)) == set(CORPUS) - {"t_expired", "g_expired", "g_superseded"}


def test_count_without_filter_counts_everything(corpus: MemoryStore) -> None:
    assert corpus.count() == len(CORPUS)


def test_update_patches_payload_and_keeps_vectors(
    corpus: MemoryStore, ask: Callable[..., SearchQuery]
) -> None:
    coffee = memory_id_for("g_coffee")
    corpus.update(coffee, {"state": State.stale, "tier": Tier.semantic, "promotion_score": 1.5})

    updated = corpus.get([coffee])[0]
    assert (updated.state, updated.tier, updated.promotion_score) == (State.stale, Tier.semantic, 1.5)
    assert updated.text == CORPUS["g_coffee"][0]
    for mode in SearchMode:
        hits = corpus.search(ask("What does Netanel put in his coffee?", mode=mode))
        assert hits[0].memory.event_id == "g_coffee", mode

    corpus.update(coffee, {"state": State.superseded, "superseded_by": memory_id_for("g_deploy")})
    assert "g_coffee" not in names([hit.memory for hit in corpus.search(ask("coffee"))])
    assert corpus.get([coffee])[0].superseded_by == memory_id_for("g_deploy")


def test_update_moves_expiry_both_ways(corpus: MemoryStore) -> None:
    zorblatt = memory_id_for("g_zorblatt")
    corpus.update(zorblatt, {"expires_at": NOW - HOUR})
    assert "g_zorblatt" not in names(scroll_all(corpus, EVERYONE))

    corpus.update(zorblatt, {"expires_at": None})
    assert "g_zorblatt" in names(scroll_all(corpus, EVERYONE))
    assert corpus.get([zorblatt])[0].expires_at is None


def test_stated_range_matches_any_statement_and_follows_updates(
    store: MemoryStore, make_point: MakePoint
) -> None:
    def said(name: str, days_ago: int) -> Sighting:
        return Sighting(event_id=name, agent="tester", at=NOW - days_ago * DAY)

    first = said("twice", 5)
    store.upsert(
        [
            make_point(
                make_memory(
                    "twice",
                    "Dana's bike is in the storage room",
                    occurred_at=first.at,
                    sightings=[first, said("again", 1)],
                )
            ),
            make_point(
                make_memory("once", "Itai's bike is in the hallway", occurred_at=first.at, sightings=[first])
            ),
        ]
    )

    def stated(start: int, end: int) -> set[str]:
        window = MemoryFilter(
            now=NOW, all_scopes=True, stated_after=NOW - start * DAY, stated_before=NOW - end * DAY
        )
        return names(scroll_all(store, window))

    assert stated(2, 0) == {"twice"}
    assert stated(6, 4) == {"twice", "once"}
    assert stated(4, 2) == set()
    store.update(memory_id_for("once"), {"sightings": [first, said("later", 3)]})
    assert stated(4, 2) == {"once"}


def test_payloads_are_read_as_stored_and_patched_key_by_key(corpus: MemoryStore) -> None:
    # What migrations use: every payload as stored, whatever its scope, state or expiry, and raw keys set
    # or deleted that `update` would not write (it writes only what a memory's change changes).
    stored: dict[str, dict[str, Any]] = {}
    offset: str | None = None
    while True:
        page = corpus.scroll_payloads(limit=5, offset=offset)
        assert len(page.payloads) <= 5
        stored.update(page.payloads)
        if page.next_offset is None:
            break
        offset = page.next_offset
    assert stored == {memory_id_for(name): to_payload(memory(name)) for name in CORPUS}
    coffee, alice = memory_id_for("g_coffee"), memory_id_for("u_alice")
    vectors = corpus.vectors(list(stored))

    corpus.patch_payloads(
        {
            coffee: PayloadPatch(set={"stated_ts": [1.0, 2.0], "audience": "direct"}),
            alice.upper(): PayloadPatch(delete=("audience", "stated_ts")),
            memory_id_for("never-stored"): PayloadPatch(set={"stated_ts": [1.0]}, delete=("audience",)),
            "not-a-uuid": PayloadPatch(delete=("audience",)),
        }
    )
    corpus.patch_payloads({})

    after = corpus.scroll_payloads(limit=100).payloads
    assert after[coffee] == {**stored[coffee], "stated_ts": [1.0, 2.0], "audience": "direct"}
    assert after[alice] == {k: v for k, v in stored[alice].items() if k not in ("audience", "stated_ts")}
    assert {i: p for i, p in after.items() if i not in (coffee, alice)} == {
        i: p for i, p in stored.items() if i not in (coffee, alice)
    }  # no point made for an id never stored, none other touched
    for point, vector in corpus.vectors(list(stored)).items():
        assert np.allclose(vector, vectors[point], atol=1e-6)
    # Filters read the keys as patched; the memory reads as it did.
    group_chat = MemoryFilter(now=NOW, person="alice", exclude_private=True)
    assert {"g_coffee", "u_alice"} & names(scroll_all(corpus, group_chat)) == {"u_alice"}
    assert corpus.get([coffee, alice]) == [memory("g_coffee"), memory("u_alice")]


def test_update_refuses_bad_patches(corpus: MemoryStore) -> None:
    with pytest.raises(KeyError):
        corpus.update(memory_id_for("missing"), {"state": State.stale})
    with pytest.raises(ValueError, match="not memory fields"):
        corpus.update(memory_id_for("g_coffee"), {"colour": "blue"})
    with pytest.raises(ValueError, match="never change"):
        corpus.update(memory_id_for("g_coffee"), {"id": memory_id_for("other")})
    with pytest.raises(ValueError):
        corpus.update(memory_id_for("g_coffee"), {"state": "forgotten"})
    assert corpus.get([memory_id_for("g_coffee")]) == [memory("g_coffee")]


def first(store: MemoryStore, query: SearchQuery) -> str | None:
    hits = store.search(query)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    return hits[0].memory.event_id if hits else None


def test_every_mode_finds_a_rare_name(corpus: MemoryStore, ask: Callable[..., SearchQuery]) -> None:
    for mode in SearchMode:
        assert first(corpus, ask("zorblatt-07", mode=mode)) == "g_zorblatt", mode


def test_hybrid_finds_what_dense_alone_misses(corpus: MemoryStore, ask: Callable[..., SearchQuery]) -> None:
    # For Bob, MiniLM alone ranks his own memory above the one naming "zorblatt"; BM25 puts it
    # first and RRF keeps it first. A hybrid search that ignored BM25 would fail here.
    bob = MemoryFilter(now=NOW, person="bob")
    assert first(corpus, ask("zorblatt", bob, SearchMode.dense)) == "u_bob"
    assert first(corpus, ask("zorblatt", bob, SearchMode.sparse)) == "g_zorblatt"
    assert first(corpus, ask("zorblatt", bob, SearchMode.hybrid)) == "g_zorblatt"


def test_paraphrase_needs_the_dense_half(corpus: MemoryStore, ask: Callable[..., SearchQuery]) -> None:
    # No word in common with the memory: BM25 finds nothing, MiniLM finds it (the superseded
    # "Deploys happen on Fridays" ranks higher still, but stays hidden).
    question = "Which weekday do we ship new versions?"
    assert first(corpus, ask(question, mode=SearchMode.sparse)) is None
    assert first(corpus, ask(question, mode=SearchMode.dense)) == "g_deploy"
    assert first(corpus, ask(question, mode=SearchMode.hybrid)) == "g_deploy"


def test_stopword_only_query(corpus: MemoryStore, ask: Callable[..., SearchQuery]) -> None:
    assert corpus.search(ask("what is it", mode=SearchMode.sparse)) == []
    assert len(corpus.search(ask("what is it", mode=SearchMode.hybrid, limit=3))) == 3


def test_private_follows_updates(corpus: MemoryStore) -> None:
    group_chat = MemoryFilter(now=NOW, person="alice", exclude_private=True)
    corpus.update(memory_id_for("u_alice"), {"private": False})
    corpus.update(memory_id_for("g_coffee"), {"private": True})

    found = names(scroll_all(corpus, group_chat))
    assert "u_alice" in found
    assert "g_coffee" not in found
    assert corpus.get([memory_id_for("g_coffee")])[0].private is True


def test_recency_favours_newer_memories(
    store: MemoryStore, make_point: MakePoint, ask: Callable[..., SearchQuery]
) -> None:
    # The same words, so the same relevance: only when it happened tells them apart.
    text = "The spare car keys are in the blue bowl by the door."
    store.upsert(
        [
            make_point(make_memory("old", text, occurred_at=NOW - 400 * DAY)),
            make_point(make_memory("new", text, occurred_at=NOW - 2 * DAY)),
        ]
    )
    question = "where are the spare car keys"
    for mode in SearchMode:
        hits = store.search(dataclasses.replace(ask(question, mode=mode), recency=30 * DAY))
        assert [hit.memory.event_id for hit in hits] == ["new", "old"], mode
    for mode in (SearchMode.dense, SearchMode.sparse):
        plain = store.search(ask(question, mode=mode))
        assert plain[0].score == pytest.approx(plain[1].score), mode
        hits = store.search(dataclasses.replace(ask(question, mode=mode), recency=30 * DAY))
        # A memory from now scores up to twice as much; one many half-lives old, hardly more.
        assert hits[0].score == pytest.approx(plain[0].score * (1 + 0.5 ** (2 / 30)), rel=1e-3), mode
        assert hits[1].score == pytest.approx(plain[0].score, rel=1e-3), mode


def test_recency_favours_newer_memories_below_zero_too(store: MemoryStore, make_point: MakePoint) -> None:
    # A dense score can be negative: the boost moves it towards zero, never further from it.
    text = "The spare car keys are in the blue bowl by the door."
    old = make_point(make_memory("old", text, occurred_at=NOW - 400 * DAY))
    store.upsert([old, make_point(make_memory("new", text, occurred_at=NOW - 2 * DAY))])
    opposite = [-x for x in old.dense]
    query = SearchQuery(opposite, NO_TERMS, EVERYONE, limit=2, mode=SearchMode.dense, recency=30 * DAY)

    hits = store.search(query)
    assert [hit.memory.event_id for hit in hits] == ["new", "old"]
    assert hits[0].score == pytest.approx(-1 + 0.5 ** (2 / 30), abs=1e-3)
    assert hits[1].score == pytest.approx(-1, abs=1e-3)


def test_vectors_come_back_when_asked(corpus: MemoryStore, ask: Callable[..., SearchQuery]) -> None:
    for mode in SearchMode:
        query = ask("Netanel's coffee", mode=mode, limit=3)
        assert all(hit.vector is None for hit in corpus.search(query)), mode
        hits = corpus.search(dataclasses.replace(query, with_vectors=True))
        assert hits, mode
        for hit in hits:
            assert hit.vector is not None and len(hit.vector) == 384, mode
        coffee = next(hit for hit in hits if hit.memory.event_id == "g_coffee")
        assert coffee.vector is not None
        expected = np.asarray(query.dense) if mode is SearchMode.dense else None
        if expected is not None:
            assert float(np.dot(coffee.vector, expected)) == pytest.approx(coffee.score, abs=1e-3)


def test_limit(corpus: MemoryStore, ask: Callable[..., SearchQuery]) -> None:
    for mode in (SearchMode.dense, SearchMode.hybrid):
        assert len(corpus.search(ask("team", mode=mode, limit=2))) == 2


def test_scroll_pages_through_everything_once(store: MemoryStore, make_point: MakePoint) -> None:
    notes = [make_memory(f"note-{i}", f"Note {i}: the build took {i} minutes.") for i in range(23)]
    store.upsert([make_point(note) for note in notes])

    pages = []
    offset: str | None = None
    while True:
        page = store.scroll(EVERYONE, limit=5, offset=offset)
        pages.append(page.memories)
        if page.next_offset is None:
            break
        offset = page.next_offset

    ids = [m.id for page in pages for m in page]
    assert len(ids) == len(set(ids)) == 23
    assert set(ids) == {note.id for note in notes}
    assert [len(page) for page in pages] == [5, 5, 5, 5, 3]


def test_scroll_refuses_an_offset_it_never_gave(corpus: MemoryStore) -> None:
    with pytest.raises(ValueError, match="not a page offset"):
        corpus.scroll(EVERYONE, offset="page-2")


def test_delete(corpus: MemoryStore, ask: Callable[..., SearchQuery]) -> None:
    gone = [memory_id_for("g_zorblatt"), memory_id_for("u_alice"), memory_id_for("never-stored")]
    corpus.delete(gone)
    corpus.delete([])

    assert corpus.count() == len(CORPUS) - 2
    assert corpus.get(gone) == []
    assert not {"g_zorblatt", "u_alice"} & names(
        [hit.memory for hit in corpus.search(ask("zorblatt peanuts"))]
    )


def test_open_store_chooses_the_embedded_shard_without_a_url(tmp_path: Path) -> None:
    store = open_store(Settings(data_dir=tmp_path, qdrant_url=None, collection="mine"))
    try:
        assert isinstance(store, EdgeStore)
        assert store.path == tmp_path / "store" / "mine"
    finally:
        store.close()


@pytest.mark.docker
def test_open_store_chooses_the_server_with_a_url(qdrant_url: str) -> None:
    store = open_store(Settings(qdrant_url=qdrant_url, collection="open-store"))
    try:
        assert isinstance(store, ServerStore)
        assert store.count() == 0
    finally:
        store.close()


# The embedded backend only: durability, single ownership, threads, index maintenance.


def test_edge_reopen_keeps_everything(tmp_path: Path, make_point: MakePoint) -> None:
    store = EdgeStore(tmp_path / "shard")
    store.upsert([make_point(memory(name)) for name in CORPUS])
    store.update(memory_id_for("g_coffee"), {"tier": Tier.semantic})
    store.delete([memory_id_for("u_bob")])
    store.close()

    reopened = EdgeStore(tmp_path / "shard")
    try:
        assert reopened.count() == len(CORPUS) - 1
        assert reopened.get([memory_id_for("g_coffee")])[0].tier is Tier.semantic
        assert reopened.get([memory_id_for("u_bob")]) == []
        assert names(scroll_all(reopened, EVERYONE)) == PUBLIC | {"p_alpha", "u_alice"}
    finally:
        reopened.close()


CRASHING_WRITER = """
import json, os, sys
from pathlib import Path
from hub.models import Memory
from hub.store.base import MemoryPoint, SparseVec
from hub.store.edge import EdgeStore

points = json.loads(Path(sys.argv[2]).read_text())
store = EdgeStore(Path(sys.argv[1]))
store.upsert([
    MemoryPoint(Memory.model_validate(p["memory"]), p["dense"], SparseVec(**p["sparse"])) for p in points
])
store.update(points[0]["memory"]["id"], {"state": "stale"})
os._exit(0)  # dies without flushing or closing anything
"""


def test_edge_writes_survive_a_crash(tmp_path: Path, make_point: MakePoint) -> None:
    points = [make_point(memory(name)) for name in CORPUS]
    dump = tmp_path / "points.json"
    dump.write_text(
        json.dumps(
            [
                {
                    "memory": p.memory.model_dump(mode="json"),
                    "dense": p.dense,
                    "sparse": dataclasses.asdict(p.sparse),
                }
                for p in points
            ]
        )
    )
    repo = Path(__file__).resolve().parents[2]
    subprocess.run(
        [sys.executable, "-c", CRASHING_WRITER, str(tmp_path / "shard"), str(dump)],
        cwd=repo,
        check=True,
        timeout=120,
    )

    store = EdgeStore(tmp_path / "shard")
    try:
        assert store.count() == len(CORPUS)
        assert store.get([points[0].memory.id])[0].state is State.stale
    finally:
        store.close()


def test_edge_store_is_shared_safely_by_threads(
    tmp_path: Path, make_point: MakePoint, ask: Callable[..., SearchQuery]
) -> None:
    store = EdgeStore(tmp_path / "shard")
    seeds = [make_point(memory(name)) for name in CORPUS]
    store.upsert(seeds)
    query = ask("coffee")
    start = threading.Barrier(6)
    errors: list[BaseException] = []

    def guarded(work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            start.wait()
            try:
                work()
            except BaseException as exc:  # every failure, whatever its type, fails the test below
                errors.append(exc)

        return run

    def writer(worker: int) -> Callable[[], None]:
        def work() -> None:
            for batch in range(10):
                twins = [
                    make_memory(f"w{worker}-{batch}-{i}", seed.memory.text)
                    for i, seed in enumerate(seeds[:5])
                ]
                store.upsert(
                    [
                        MemoryPoint(twin, seed.dense, seed.sparse)
                        for twin, seed in zip(twins, seeds, strict=False)
                    ]
                )

        return work

    def reader() -> None:
        for _ in range(30):
            assert store.search(query)
            scroll_all(store, EVERYONE, page_size=7)
            store.count(EVERYONE)

    def patcher() -> None:
        for i in range(30):
            store.update(memory_id_for("g_deploy"), {"promotion_score": float(i)})

    threads = [
        threading.Thread(target=guarded(w))
        for w in (writer(0), writer(1), writer(2), reader, reader, patcher)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    try:
        assert errors == []
        assert store.count() == len(CORPUS) + 3 * 10 * 5
        written = [memory_id_for(f"w{w}-{b}-{i}") for w in range(3) for b in range(10) for i in range(5)]
        assert len(store.get(written)) == 150
        assert store.get([memory_id_for("g_deploy")])[0].promotion_score == 29.0
    finally:
        store.close()


# Questions close to their memory (cosine > 0.5), where random vectors sit near 0.
CLOSE_QUESTIONS = {
    "What does Netanel put in his coffee?": "g_coffee",
    "Which weekday do we ship new versions?": "g_deploy",
    "where is the staging db": "g_zorblatt",
}


@pytest.mark.slow
def test_edge_optimize_indexes_and_keeps_results(
    tmp_path: Path, make_point: MakePoint, ask: Callable[..., SearchQuery]
) -> None:
    # Enough memories for the engine to build an HNSW graph; their vectors are random (only the
    # corpus memories must be found), the corpus vectors are real.
    store = EdgeStore(tmp_path / "shard")
    rng = np.random.default_rng(7)
    filler = rng.standard_normal((8_000, 384)).astype(np.float32)
    filler /= np.linalg.norm(filler, axis=1, keepdims=True)
    seed = make_point(memory("u_bob"))
    for start in range(0, len(filler), 1_000):
        store.upsert(
            [
                MemoryPoint(make_memory(f"filler-{i}", f"filler {i}"), filler[i].tolist(), seed.sparse)
                for i in range(start, start + 1_000)
            ]
        )
    store.upsert([make_point(memory(name)) for name in CORPUS])
    before = [first(store, ask(q)) for q in CLOSE_QUESTIONS]
    assert store.unindexed_count() == store.count()

    assert store.optimize() is True

    try:
        assert store.unindexed_count() == 0
        assert [first(store, ask(q)) for q in CLOSE_QUESTIONS] == before == list(CLOSE_QUESTIONS.values())
    finally:
        store.close()


def test_a_global_memory_that_names_a_project_or_person_shows_to_whoever_may_read_them(
    store: MemoryStore, make_point: MakePoint, ask: Callable[..., SearchQuery]
) -> None:
    # Events may be global and still name a project or a person. A search that names neither finds
    # them ("who is Bob's therapist?" found nothing), unless its key is granted neither, for which
    # GET /v1/memories/{id} does not show them either.
    store.upsert(
        [
            make_point(make_memory("g_beta", "The Beta budget is forty thousand euros.", project="beta")),
            make_point(make_memory("g_bob", "Bob's therapist is Dr. Levi on Tuesdays.", person="bob")),
            make_point(make_memory("g_plain", "Deploys happen on Tuesdays.")),
        ]
    )
    for projects, persons, visible in (
        (None, None, {"g_plain", "g_beta", "g_bob"}),
        (set(), set(), {"g_plain"}),
        ({"beta"}, set(), {"g_plain", "g_beta"}),
        ({"alpha"}, {"bob"}, {"g_plain", "g_bob"}),
        ({"beta"}, None, {"g_plain", "g_beta", "g_bob"}),
    ):
        flt = MemoryFilter(
            now=NOW,
            granted_projects=None if projects is None else frozenset(projects),
            granted_persons=None if persons is None else frozenset(persons),
        )
        assert names(scroll_all(store, flt)) == visible, (projects, persons)
        assert names([hit.memory for hit in store.search(ask("Tuesdays budget therapist", flt))]) == visible


def test_a_long_message_is_found_by_the_sentence_a_question_is_about(
    store: MemoryStore, embedder: Embedder, ask: Callable[..., SearchQuery]
) -> None:
    long = (
        "Emi: The weekend was busy, we cleaned the whole garage on Saturday. On Sunday we drove to my aunt's "
        "farm and picked apples all afternoon. My sister Maya just got accepted to medical school! Then we "
        "had pizza with the neighbours and watched a terrible movie."
    )
    others = [
        "Emi: Maya loves apples and pizza",  # shares the question's word, says less about it
        "Emi: We visited the science museum with the kids",
        "Emi: My cousin is a nurse at the clinic downtown",
        "Emi: The university library opens at eight",
    ]
    memories = [make_memory("long", long)] + [make_memory(f"other-{i}", t) for i, t in enumerate(others)]
    store.upsert(memory_points(memories, embedder, SparseEncoder()))

    # With the whole message's vector alone, "Maya loves apples and pizza" ranked first for both.
    for question in ("Where did you pick apples?", "What did you do with the apples?"):
        hits = store.search(ask(question, MemoryFilter(now=NOW), limit=3))
        assert hits[0].memory.event_id == "long", question
