"""Signals and rules on memories built by hand: what each situation earns, and why."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hub.models import Change, Confidence, EventCreate, Memory, Sighting, State, Tier
from hub.promotion.score import Decision, assess
from hub.promotion.signals import Context, SignalName, busiest_window, days, fresh_sightings
from hub.settings import Settings

START = datetime(2026, 11, 2, 9, tzinfo=UTC)
SETTINGS = Settings()


def memory(text: str, *said: tuple[str, str | None, int], **fields: object) -> Memory:
    """A memory stated once per (agent, session, day offset) in `said`."""
    first_agent, first_session, first_day = said[0]
    event = EventCreate.model_validate(
        {"text": text, "agent": first_agent, "session": first_session, **fields}
    )
    built = Memory.from_event(event, event_id="e0", received_at=START + timedelta(days=first_day))
    built.sightings = [
        Sighting(event_id=f"e{i}", agent=agent, session=session, at=START + timedelta(days=day))
        for i, (agent, session, day) in enumerate(said)
    ]
    return built


def names(m: Memory, context: Context | None = None) -> set[SignalName]:
    return {s.name for s in assess(m, context or Context(), SETTINGS).signals}


def test_a_fact_said_once_has_no_signal_and_a_preference_said_once_waits_for_the_weekly_review() -> None:
    fact = assess(memory("Netanel's sister lives in Haifa", ("wa", "s1", 0)), Context(), SETTINGS)
    assert (fact.decision, fact.signals, fact.score) == (Decision.none, [], 0.0)

    liked = assess(
        memory("Netanel likes his coffee black", ("wa", "s1", 0), kind="preference"), Context(), SETTINGS
    )
    assert liked.decision is Decision.weekly_review
    assert [s.name for s in liked.signals] == [SignalName.future_use]


def test_three_days_two_agents_propose_semantic_with_every_signal_explained() -> None:
    said = [("wa", "s1", 0), ("tg", "s2", 2), ("wa", "s3", 4)]
    result = assess(memory("Netanel prefers aisle seats", *said, kind="preference"), Context(), SETTINGS)
    assert (result.decision, result.target) == (Decision.propose, Tier.semantic)
    by_name = {s.name: s for s in result.signals}
    assert set(by_name) == {
        SignalName.repeated,
        SignalName.reinforced_elsewhere,
        SignalName.frequent,
        SignalName.future_use,
    }
    assert (
        by_name[SignalName.repeated].detail
        == "stated on 3 different days: 2026-11-02, 2026-11-04, 2026-11-06"
    )
    assert by_name[SignalName.reinforced_elsewhere].detail == "stated by tg, wa"
    assert result.score == sum(SETTINGS.promotion_weights[n] for n in by_name)


def test_the_mentions_that_earned_semantic_do_not_also_earn_core() -> None:
    said = [("wa", "s1", 0), ("tg", "s2", 2), ("wa", "s3", 4)]
    m = memory("Netanel prefers aisle seats", *said, kind="preference", tier="semantic")
    m.history = [
        Change(at=START, action="reinforced", by="tg", changes={"sightings": [1, 2]}),
        Change(at=START, action="reinforced", by="wa", changes={"sightings": [2, 3]}),
        Change(at=START, action="promoted", by="owner", changes={"tier": ["episodic", "semantic"]}),
    ]
    assert fresh_sightings(m) == []
    assert assess(m, Context(), SETTINGS).decision is Decision.none
    # Three more mentions in a week after the promotion: one step toward core.
    m.sightings += [
        Sighting(event_id=f"x{d}", agent="wa", at=START + timedelta(days=10 + d)) for d in range(3)
    ]
    result = assess(m, Context(), SETTINGS)
    assert (result.decision, result.target) == (Decision.propose, Tier.core)


def test_the_statements_compaction_merged_in_that_earned_semantic_do_not_also_earn_core() -> None:
    # Counted from restatements only, the two statements a merge brought in were fresh again after the
    # promotion they earned: one mention more proposed core ("mentioned 3 times within 7 days").
    said = [("wa", "s1", 0), ("tg", "s2", 2), ("wa", "s3", 4)]
    m = memory("Dana likes green tea", *said, tier="semantic")
    m.history = [
        Change(at=START, action="merged", by="compaction", changes={"sightings": [1, 3]}),
        Change(at=START, action="promoted", by="owner", changes={"tier": ["episodic", "semantic"]}),
    ]
    assert fresh_sightings(m) == []
    m.sightings.append(Sighting(event_id="x1", agent="tg", at=START + timedelta(days=5)))
    m.history.append(Change(at=START, action="reinforced", by="tg", changes={"sightings": [3, 4]}))
    assert [s.event_id for s in fresh_sightings(m)] == ["x1"]
    assert assess(m, Context(), SETTINGS).decision is Decision.none


def test_a_correction_takes_over_a_long_term_memory_at_once() -> None:
    old = memory("The team meeting is on Monday", ("wa", "s1", 0), tier="semantic")
    old = old.model_copy(update={"state": State.superseded})
    fix = memory("The team meeting is on Wednesday", ("wa", "s2", 3), kind="correction")
    result = assess(fix, Context(corrects=(old,)), SETTINGS)
    assert (result.decision, result.target) == (Decision.at_once, Tier.semantic)
    assert SignalName.confirmed in {s.name for s in result.signals}


def test_a_deduction_borne_out_in_two_sessions_moves_at_once() -> None:
    said = [("wa", "s1", 0), ("wa", "s2", 1)]
    m = memory("Netanel reschedules Monday meetings", *said, kind="deduced", evidence=["moved 3 of 4"])
    result = assess(m, Context(), SETTINGS)
    assert (result.decision, result.target) == (Decision.at_once, Tier.semantic)


def test_supporting_signals_and_weights_follow_the_settings() -> None:
    m = memory(
        "Always book an aisle seat for Netanel",
        ("wa", "s1", 0),
        confidence=Confidence.high,
        person="Netanel",
        scope="person",
    )
    assert names(m) == {SignalName.future_use, SignalName.high_confidence}
    assert names(m, Context(core_people=frozenset({"netanel"}))) >= {SignalName.core_tie}
    heavy = Settings(promotion_weights={"future_use": 5.0})
    assert assess(m, Context(), heavy).score == 5.0 + 1.0  # high_confidence is not named: it weighs 1
    superseded = m.model_copy(update={"state": State.superseded})
    assert assess(superseded, Context(used=3), SETTINGS).decision is Decision.none


def test_busiest_window_counts_mentions_within_the_window_only() -> None:
    m = memory("x", ("wa", None, 0), ("wa", None, 3), ("wa", None, 7), ("wa", None, 8))
    assert busiest_window(m.sightings, 7) == 3  # days 3, 7 and 8
    assert busiest_window(m.sightings, 1) == 1


def test_days_are_the_owners_calendar_days() -> None:
    late = Sighting(
        event_id="a", agent="wa", at=datetime(2026, 3, 10, 23, 30, tzinfo=UTC)
    )  # 01:30 on the 11th
    morning = Sighting(event_id="b", agent="wa", at=datetime(2026, 3, 11, 8, 0, tzinfo=UTC))
    assert len(days([late, morning])) == 2  # two UTC days
    assert [d.isoformat() for d in days([late, morning], ZoneInfo("Asia/Jerusalem"))] == ["2026-03-11"]
