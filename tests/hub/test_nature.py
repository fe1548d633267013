"""What a memory records, as the hub infers it where the agent did not say."""

from __future__ import annotations

import pytest

from hub.models import EventCreate, Kind, Memory, Nature, utcnow
from hub.nature import content, infer_nature, nature_of


@pytest.mark.parametrize(
    ("kind", "text", "nature"),
    [
        (Kind.fact, "Netanel works until 20:00", Nature.state),
        (Kind.preference, "Dana prefers green tea", Nature.state),
        (Kind.task, "Renewed Ido's passport", Nature.event),
        (Kind.summary, "Planned the week with Dana", Nature.event),
        (Kind.open_loop, "Call the plumber", Nature.event),
        (Kind.fact, "08:30 dropped the kids at school", Nature.event),
        (Kind.fact, "- 07:40 left for work", Nature.event),
        # A message is the agent's to say: a field of a core file has the same shape.
        (Kind.fact, "Maya: haha yes see you on the 20th!", Nature.state),
        (Kind.fact, "Dentist: Dr. Levi, Herzl St.", Nature.state),
    ],
)
def test_infers_the_nature_from_kind_then_text(kind: Kind, text: str, nature: Nature) -> None:
    assert infer_nature(kind, text) is nature


def test_what_the_agent_says_wins_and_old_memories_are_inferred() -> None:
    event = EventCreate(text="Ran 6 km in 34 minutes", agent="a", nature=Nature.event)
    memory = Memory.from_event(event, event_id="e1", received_at=utcnow())
    assert nature_of(memory) is Nature.event
    written_before = memory.model_copy(update={"nature": None})
    assert nature_of(written_before) is Nature.state


def test_content_leaves_out_the_time_a_log_line_was_written() -> None:
    assert content("- 08:30 Netanel said he now finishes at 18:00") == "Netanel said he now finishes at 18:00"
    assert content("Netanel finishes at 18:00") == "Netanel finishes at 18:00"
