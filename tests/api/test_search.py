"""Search through the API and the SDK: privacy by chat type, filters, state flags, versions, ranking options."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from starlette.testclient import TestClient

from hub.embedded import EmbeddedHub
from hub.models import State
from memhub_client import Memhub, MemhubError


def texts(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.text for h in hits]


def stored(agent: Memhub, *event_ids: str) -> list[str]:
    """Wait for each event; the memory ids they became."""
    found = [agent.wait(event_id) for event_id in event_ids]
    assert all(s.status == "stored" and s.memory_id for s in found), found
    return [s.memory_id for s in found if s.memory_id]


def test_a_group_chat_never_sees_memories_private_to_direct_conversations(
    make_agent: Callable[..., Memhub],
) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    stored(
        wa,
        wa.publish("Netanel's blood test showed high LDL cholesterol", private=True, chat="dm-netanel"),
        wa.publish("Netanel is running the Tel Aviv half marathon in February", chat="family-group"),
    )

    for chat_type in (None, "dm"):
        found = texts(wa.search("Netanel's health and blood test", chat_type=chat_type))
        assert "Netanel's blood test showed high LDL cholesterol" in found, chat_type
    from_group = wa.search("Netanel's health and blood test", chat_type="group", limit=100)
    assert "Netanel's blood test showed high LDL cholesterol" not in texts(from_group)
    assert "Netanel is running the Tel Aviv half marathon in February" in texts(from_group)
    assert not any(h.private for h in from_group)


def test_filters_narrow_a_search(make_agent: Callable[..., Memhub]) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    stored(
        wa,
        wa.publish(
            "Dana's dentist is Dr. Shalev in Givatayim",
            occurred_at="2026-02-01T10:00:00Z",
            related=["Dana"],
            confidence="high",
        ),
        tg.publish(
            "Noa's dentist appointment is on March 3",
            occurred_at="2026-03-01T10:00:00Z",
            related=["Noa"],
            tier="semantic",
        ),
    )
    question = "dentist"
    assert texts(wa.search(question, agents=["tg-assistant"])) == ["Noa's dentist appointment is on March 3"]
    assert texts(wa.search(question, channels=["whatsapp"])) == ["Dana's dentist is Dr. Shalev in Givatayim"]
    assert texts(wa.search(question, related=["Noa", "Itai"])) == ["Noa's dentist appointment is on March 3"]
    assert texts(wa.search(question, confidences=["high"])) == ["Dana's dentist is Dr. Shalev in Givatayim"]
    assert texts(wa.search(question, tiers=["semantic"])) == ["Noa's dentist appointment is on March 3"]
    # The SDK sends datetimes as ISO 8601; `occurred_after` is inclusive, `occurred_before` exclusive.
    after = wa.search(question, occurred_after=datetime(2026, 3, 1, 10, tzinfo=UTC))
    assert texts(after) == ["Noa's dentist appointment is on March 3"]
    before = wa.search(question, occurred_before=datetime(2026, 3, 1, 10, tzinfo=UTC))
    assert texts(before) == ["Dana's dentist is Dr. Shalev in Givatayim"]
    assert wa.search(question, agents=["nobody"]) == []
    # An empty list matches nothing, scopes as every other filter.
    assert wa.search(question, scopes=[]) == wa.search(question, kinds=[]) == []
    # Instants are compared, not clocks: 11:00 at +02:00 is before 10:30 UTC.
    within = wa.search(
        question, occurred_after="2026-03-01T11:00:00+02:00", occurred_before="2026-03-01T10:30:00Z"
    )
    assert texts(within) == ["Noa's dentist appointment is on March 3"]
    # A range that ends where it starts, or before, is refused, not answered with nothing.
    for start, end in (
        ("2026-03-01T10:00:00Z", "2026-02-01T10:00:00Z"),
        ("2026-03-01T12:00:00+02:00", "2026-03-01T10:00:00Z"),
    ):
        with pytest.raises(
            MemhubError, match="occurred_before: must be later than occurred_after"
        ) as refused:
            wa.search(question, occurred_after=start, occurred_before=end)
        assert refused.value.status_code == 422


def test_every_hit_says_where_it_came_from_and_whether_it_is_stale(
    make_agent: Callable[..., Memhub], hub: EmbeddedHub
) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    [memory_id] = stored(
        wa,
        wa.publish(
            "Rina's building has guest parking in spot 14",
            source="wa:msg:77",
            occurred_at="2026-04-02T09:00:00Z",
        ),
    )
    [fresh] = wa.search("guest parking at Rina's")
    assert (fresh.agent, fresh.channel, fresh.source, fresh.confidence) == (
        "wa-assistant",
        "whatsapp",
        "wa:msg:77",
        "medium",
    )
    assert fresh.occurred_at == datetime(2026, 4, 2, 9, tzinfo=UTC)
    assert not fresh.stale and fresh.conflict_ids == []

    hub.services.store.update(memory_id, {"state": State.stale})
    [old] = wa.search("guest parking at Rina's")
    assert old.stale and old.state == "stale"
    assert wa.search("guest parking at Rina's", states=["active"]) == []


def test_the_newest_version_of_an_updated_fact_ranks_first(make_agent: Callable[..., Memhub]) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    [old] = stored(
        wa,
        wa.publish(
            "Itai has swimming lessons on Friday at 10:00 in the municipal pool",
            occurred_at="2026-01-06T18:00:00Z",
        ),
    )
    # A later statement that reports the change, naming nothing: both stay active.
    [new] = stored(
        tg,
        tg.publish(
            "Itai's swimming lessons moved to Thursday at 16:00, same pool",
            occurred_at="2026-05-07T18:00:00Z",
        ),
    )

    assert [h.id for h in wa.search("When is Itai's swim class?")][:2] == [new, old]


def test_a_correction_naming_the_old_memory_supersedes_it(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    [old] = stored(
        wa,
        wa.publish(
            "Pilpel eats Royal Canin Medium Adult, two cups a day", occurred_at="2026-01-20T18:00:00Z"
        ),
    )
    [new] = stored(
        wa,
        wa.publish(
            "Pilpel switched to Hill's Science Diet Sensitive Stomach",
            kind="correction",
            related=[old],
            occurred_at="2026-04-23T19:30:00Z",
        ),
    )

    assert [h.id for h in wa.search("What does Pilpel eat?")] == [new]
    both = wa.search("What does Pilpel eat?", include_superseded=True)
    assert [h.id for h in both] == [new, old]
    assert both[1].superseded_by == new


def crete_hotel_corrected(wa: Memhub) -> tuple[str, str]:
    """A hotel and the correction that replaced it, beside the trip's flights; their memory ids."""
    [old, _flights] = stored(
        wa,
        wa.publish("Hotel on Crete: Kiani Beach Resort in Kalyves, family room, half board"),
        wa.publish("Flights to Crete: Aegean, TLV to Heraklion on August 9, back on August 16"),
    )
    # The correction shares few words with the question; the memory it replaced matched it best.
    [new] = stored(
        wa,
        wa.publish(
            "They cancelled Kiani Beach and booked Pilot Beach Resort in Georgioupolis",
            kind="correction",
            related=[old],
        ),
    )
    return old, new


def test_what_superseded_a_match_takes_its_place(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    old, new = crete_hotel_corrected(wa)

    assert [h.id for h in wa.search("Which hotel are we staying at on Crete?", limit=1)] == [new]
    assert old not in {h.id for h in wa.search("Which hotel are we staying at on Crete?", limit=50)}
    # Naming the states, superseded left out, follows the correction as the default does (it ranked
    # the flights first).
    for states in (["active"], ["active", "stale"]):
        hits = wa.search("Which hotel are we staying at on Crete?", states=states, limit=1)
        assert [h.id for h in hits] == [new], states
    # The correction is the fact now, so a search for facts finds it in the old fact's place.
    assert [h.id for h in wa.search("Which hotel are we staying at on Crete?", kinds=["fact"], limit=1)] == [
        new
    ]


def test_a_chain_of_corrections_ends_at_the_last(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    first, second = crete_hotel_corrected(wa)
    [third] = stored(
        wa,
        wa.publish(
            "Pilot Beach is full in August, so they took Aquila Porto Rethymno",
            kind="correction",
            related=[second],
        ),
    )

    found = [h.id for h in wa.search("Which hotel are we staying at on Crete?", limit=50)]
    assert found[0] == third and first not in found and second not in found


def test_a_fact_corrected_many_times_leaves_room_for_the_rest(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    rest = stored(
        wa,
        *(
            wa.publish(text)
            for text in (
                "Netanel's running goal is a half marathon under two hours",
                "Netanel eats no bread on weekdays",
                "Netanel's doctor asked him to lose five kilos",
                "Netanel goes to the gym on Sunday and Wednesday",
            )
        ),
    )
    [weight] = stored(wa, wa.publish("Netanel weighs 80 kg"))
    for week in range(1, 21):
        [weight] = stored(
            wa, wa.publish(f"Netanel weighs {80 + week / 2} kg now", kind="correction", related=[weight])
        )

    # The 20 superseded versions fill the candidates and give their places to the last; the rest still
    # come back (only that one hit did).
    found = [h.id for h in wa.search("How much does Netanel weigh?", limit=10)]
    assert found[0] == weight and sorted(found[1:]) == sorted(rest)


def test_a_successor_the_asker_may_not_see_does_not_come_back(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    [old] = stored(wa, wa.publish("Netanel's parking spot in the garage is number 23 on level -2"))
    [new] = stored(
        wa,
        wa.publish(
            "Netanel's office parking spot is now number 41",
            kind="correction",
            related=[old],
            scope="project",
            project="office-move",
        ),
    )

    outside = {h.id for h in wa.search("Where does Netanel park?", limit=50)}
    assert old not in outside and new not in outside
    assert [h.id for h in wa.search("Where does Netanel park?", project="office-move", limit=1)] == [new]


def test_ranking_options_are_accepted_and_checked(api: TestClient, make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    stored(wa, *(wa.publish(f"Noa's gymnastics practice number {i} was on a Monday") for i in range(4)))
    assert len(wa.search("gymnastics practice", recency=30, diversity=0.3, limit=3)) == 3

    body = {"query": "gymnastics", "agent": "wa-assistant"}
    for bad in (
        {"diversity": 1.5},
        {"recency": 0},
        {"recency": 1e-300},
        {"occurred_after": "2026-03-01T10:00:00"},
        {"chat_type": "channel"},
        {"query": " \n\t "},
    ):
        assert api.post("/v1/search", json={**body, **bad}).status_code == 422, bad


@pytest.mark.parametrize("memory_id", ["0", "not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_a_memory_id_that_names_nothing_is_404(api: TestClient, memory_id: str) -> None:
    assert api.get(f"/v1/memories/{memory_id}").status_code == 404


def test_a_chat_message_published_with_its_context_is_found_by_it(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    stored(
        wa,
        wa.publish(
            "Netanel: the blue one",
            chat="family-group",
            context="Dana: which raincoat should I order for Itai, the blue or the yellow?",
        ),
        wa.publish("Dana: the plumber comes at noon", chat="family-group"),
    )

    hits = wa.search("Which raincoat colour did we pick for Itai?", limit=1)
    assert texts(hits) == ["Netanel: the blue one"]
    assert hits[0].context == "Dana: which raincoat should I order for Itai, the blue or the yellow?"


def test_the_first_hits_do_not_depend_on_the_limit(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    things = [
        "bicycle",
        "laptop",
        "guitar",
        "kettle",
        "camera",
        "tent",
        "piano",
        "scooter",
        "printer",
        "sofa",
    ]
    places = ["storage room", "garage", "attic", "balcony", "car boot", "basement"]
    facts = [f"The {t} is kept in the {p}" for t in things for p in places[:3]]
    # Newer versions that report a change: the re-ranking moves them above what they update.
    updates = [f"We moved the {t} to the {p} now" for t in things[::2] for p in places[3:]]
    stored(wa, *(wa.publish(text) for text in facts + updates))

    for query in ("Where is the camera?", "what did we move to the basement", "things kept in the garage"):
        largest = [h.id for h in wa.search(query, limit=100)]
        assert len(largest) >= 30
        for limit in (1, 5, 10, 20, 25, 50):
            assert [h.id for h in wa.search(query, limit=limit)] == largest[:limit], (query, limit)


def test_a_day_the_question_names_finds_what_happened_that_day(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    games = ["tennis", "padel", "squash", "badminton", "table tennis", "volleyball", "basketball", "golf"]
    chat = {"chat": "dana-dm", "nature": "message"}
    events = [
        wa.publish(
            f"Dana: we played {game} in the park today", occurred_at=f"2026-01-{day:02d}T18:00:00Z", **chat
        )
        for day, game in zip(range(10, 18), games, strict=True)
    ]
    # Told the day after, in words that match the question less well than every game above.
    told = wa.publish(
        "Dana: the chess club last night was fun, I won twice", occurred_at="2026-01-06T09:00:00Z", **chat
    )
    stored(wa, *events, told)

    for question in (
        "What did Dana play on 5 January 2026?",
        "¿A qué jugó Dana el 5 de enero de 2026?",
        "מה דנה שיחקה ב-5 בינואר 2026?",
        "Was hat Dana am 05.01.2026 gespielt?",
        "What did Dana play on 1/5/2026?",  # 1 May read too: it ranks nothing, nothing happened then
    ):
        assert (
            texts(wa.search(question, limit=3))[0] == "Dana: the chess club last night was fun, I won twice"
        ), question
    # Without the day, it is the least like the question of the nine.
    assert (
        texts(wa.search("What did Dana play?", limit=9))[-1]
        == "Dana: the chess club last night was fun, I won twice"
    )
    # The day adds to the ranking and narrows nothing, and the first hits stay those of a larger limit.
    question = "What did Dana play on 5 January 2026?"
    dated = [h.id for h in wa.search(question, limit=50)]
    assert len(dated) == 9
    for limit in (1, 3, 5):
        assert [h.id for h in wa.search(question, limit=limit)] == dated[:limit]
    # What the filters leave out stays out, whatever day the question names.
    later = wa.search(question, occurred_after=datetime(2026, 1, 12, tzinfo=UTC))
    assert len(later) == 6
    assert "Dana: the chess club last night was fun, I won twice" not in texts(later)


def test_a_day_named_relative_to_today_finds_what_happened_then(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    now = datetime.now(UTC)
    games = ["tennis", "padel", "squash", "badminton", "table tennis", "volleyball", "basketball", "golf"]
    chat = {"chat": "dana-dm", "nature": "message"}
    events = [
        wa.publish(
            f"Dana: we played {game} in the park",
            occurred_at=(now - timedelta(days=days)).isoformat(),
            **chat,
        )
        for days, game in zip(range(3, 11), games, strict=True)
    ]
    yesterday = "Dana: the chess club was fun, I won twice"
    stored(wa, *events, wa.publish(yesterday, occurred_at=(now - timedelta(days=1)).isoformat(), **chat))

    assert texts(wa.search("What did Dana play?", limit=9))[-1] == yesterday
    for question in ("What did Dana play yesterday?", "¿A qué jugó Dana ayer?", "מה דנה שיחקה אתמול?"):
        assert texts(wa.search(question, limit=3))[0] == yesterday, question
    # Yesterday is the last of its weekday before today.
    weekday = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")[
        (now - timedelta(days=1)).weekday()
    ]
    assert texts(wa.search(f"What did Dana play last {weekday}?", limit=3))[0] == yesterday
