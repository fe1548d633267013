"""A session summary stands for one event per item, with ids derived from the summary's."""

from collections.abc import Callable

import pytest
from pydantic import ValidationError

from hub.models import EventCreate, memory_id_for
from hub.summaries import Part, derived_id, expand, part_of, summary_event_id
from memhub_client import Memhub
from memhub_client.events import describe

SUMMARY = {
    "text": "Planned the Lisbon trip",
    "agent": "wa",
    "kind": "summary",
    "session": "trip",
    "scope": "project",
    "project": "lisbon-trip",
    "summary": {
        "decisions": [{"text": "Book the TAP flight", "why": "direct"}],
        "tasks_completed": ["Renewed the passport"],
        "patterns": [{"text": "Books a month ahead", "evidence": ["Rome", "Paris"]}],
        "open_loops": ["Choose a hotel", "Check the visa"],
        "promote": ["Frequent flyer: TAP Miles&Go"],
    },
}


def test_each_item_becomes_an_event_sharing_the_summary_context() -> None:
    derived = expand("ev1", EventCreate.model_validate(SUMMARY))
    parts = ["decision.0", "task.0", "pattern.0", "open_loop.0", "open_loop.1", "promote.0"]
    assert [i for i, _ in derived] == [f"ev1~{part}" for part in parts]
    kinds = [e.kind.value for _, e in derived]
    assert kinds == ["decision", "task", "deduced", "open_loop", "open_loop", "fact"]
    decision = derived[0][1]
    assert (decision.why, decision.session, decision.project, decision.related) == (
        "direct",
        "trip",
        "lisbon-trip",
        [memory_id_for("ev1")],
    )
    assert derived[2][1].evidence == ["Rome", "Paris"]
    assert all(e.summary is None for _, e in derived)
    assert expand("ev2", EventCreate.model_validate({"text": "a fact", "agent": "wa"})) == []


def test_derived_ids_name_their_part_and_summary() -> None:
    event_id = derived_id("sum-1", Part.promote, 3)
    assert (part_of(event_id), summary_event_id(event_id)) == (Part.promote, "sum-1")
    assert part_of("sum-1") is None and summary_event_id("sum-1") is None
    # A client id cannot contain the separator, so it can never pass for a derived one.
    with pytest.raises(ValidationError):
        EventCreate.model_validate({"text": "x", "agent": "wa", "id": "sum-1~promote.0"})


def test_only_a_summary_event_carries_a_summary_and_patterns_need_evidence() -> None:
    with pytest.raises(ValidationError, match="only a `summary` event"):
        EventCreate.model_validate({**SUMMARY, "kind": "fact"})
    with pytest.raises(ValidationError, match="evidence"):
        EventCreate.model_validate({**SUMMARY, "summary": {"patterns": [{"text": "x", "evidence": []}]}})
    summary = EventCreate.model_validate(SUMMARY).summary
    assert summary is not None
    assert describe(summary, session="trip").startswith("Session trip: decided: Book the TAP flight; done: ")


def test_a_decisions_why_has_the_limit_of_the_event_it_becomes() -> None:
    # DecisionMade allowed 2,000 characters, EventCreate.why 1,000: expanding failed inside publish (500).
    long_why = {"summary": {"decisions": [{"text": "Use Postgres", "why": "w" * 1_001}]}}
    with pytest.raises(ValidationError, match=r"summary\.decisions\.0\.why"):
        EventCreate.model_validate({**SUMMARY, **long_why})
    EventCreate.model_validate(
        {**SUMMARY, "summary": {"decisions": [{"text": "Use Postgres", "why": "w" * 1_000}]}}
    )


def test_a_private_summarys_items_stay_out_of_a_group_chats_search(
    make_agent: Callable[..., Memhub], settle: Callable[..., None]
) -> None:
    # The items did not inherit `private`: a DM's decisions and open loops were found from a group chat.
    wa = make_agent("wa", "whatsapp")
    wa.publish(
        "Talked through the divorce lawyer",
        kind="summary",
        session="dm-1",
        private=True,
        summary={
            "decisions": [{"text": "Hire Ronit Levi as the divorce lawyer", "why": "recommended"}],
            "open_loops": ["Send Ronit Levi the divorce papers"],
        },
    )
    settle()
    assert len(wa.search("Ronit Levi divorce lawyer papers")) == 3  # the summary and both items
    assert wa.search("Ronit Levi divorce lawyer papers", chat_type="group") == []
