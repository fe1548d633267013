"""Where an imported memory sat: its origin, written by the markdown import and read by export, the
pages, the core block and the review; and the note older memories keep in their `why` instead."""

from hub.imported import (
    Note,
    imported_section,
    is_import_note,
    origin_of,
    read_note,
    said_when_unknown,
    why_for,
)
from hub.models import EventCreate, Memory, Origin, utcnow


def memory(why: str | None = None, origin: Origin | None = None) -> Memory:
    event = EventCreate(text="Dana prefers green tea", agent="tali", why=why, origin=origin)
    return Memory.from_event(event, event_id="e1", received_at=utcnow())


def test_the_origin_is_read_as_written_and_wins_over_words_in_why() -> None:
    origin = Origin(path="MEMORY.md", section="Preferences", line=12, undated=True)
    kept = memory(why="imported from memory/core.md, section Identity", origin=origin)
    assert origin_of(kept) == origin
    assert (imported_section(kept), said_when_unknown(kept)) == ("Preferences", True)
    assert origin_of(memory(why="the owner said so")) is None


def test_the_note_names_the_section_a_line_sat_in_whatever_its_tags() -> None:
    note = why_for("memory/core.md", "Identity", ["family", "Haifa"])
    assert note == "imported from memory/core.md, section Identity; tags: family, Haifa"
    assert (is_import_note(note), imported_section(memory(note))) == (True, "Identity")
    assert origin_of(memory(note)) == Origin(
        path="memory/core.md", section="Identity", tags=["family", "Haifa"]
    )
    assert imported_section(memory(why_for("MEMORY.md", None))) is None  # a line under no heading


def test_a_reason_is_no_import_note() -> None:
    for why in (
        None,
        "the only direct flight",
        "completed in the session",
        "Imported from Lisbon, section 3",
    ):
        assert not is_import_note(why) and imported_section(memory(why)) is None


def test_a_note_read_for_one_file_is_not_anothers_whose_name_starts_alike() -> None:
    note = why_for("memory/projects/lisbon-trip.md", "Key decisions", ["travel"])
    assert read_note(note, "memory/projects/lisbon-trip.md") == Note(
        "memory/projects/lisbon-trip.md", "Key decisions", "travel"
    )
    assert read_note(note, "memory/projects/lisbon") is None
    assert read_note(why_for("MEMORY.md", None), "MEMORY.md") == Note("MEMORY.md", None, "")


def test_a_line_without_a_date_says_so_and_reads_back_whole() -> None:
    note = why_for("MEMORY.md", "Preferences", undated=True)
    assert note == "imported from MEMORY.md, section Preferences; undated"
    assert read_note(note) == Note("MEMORY.md", "Preferences", "", undated=True)
    assert read_note(why_for("memory/archival/people/noa.md", "Details", ["family"], undated=True)) == Note(
        "memory/archival/people/noa.md", "Details", "family", undated=True
    )
    assert said_when_unknown(memory(note))
    assert not said_when_unknown(memory(why_for("MEMORY.md", "Preferences")))  # "- 2026-01-12: ..." said when
    assert not said_when_unknown(memory("the owner said so; undated"))  # a reason, not an import note
