"""The import note: written by the markdown import, read by export, the pages and the core block."""

from hub.imported import Note, imported_section, is_import_note, read_note, said_when_unknown, why_for


def test_the_note_names_the_section_a_line_sat_in_whatever_its_tags() -> None:
    note = why_for("memory/core.md", "Identity", ["family", "Haifa"])
    assert note == "imported from memory/core.md, section Identity; tags: family, Haifa"
    assert (is_import_note(note), imported_section(note)) == (True, "Identity")
    assert imported_section(why_for("MEMORY.md", None)) is None  # a line under no heading


def test_a_reason_is_no_import_note() -> None:
    for why in (
        None,
        "the only direct flight",
        "completed in the session",
        "Imported from Lisbon, section 3",
    ):
        assert not is_import_note(why) and imported_section(why) is None


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
    assert said_when_unknown(note)
    assert not said_when_unknown(why_for("MEMORY.md", "Preferences"))  # "- 2026-01-12: ..." said when
    assert not said_when_unknown("the owner said so; undated")  # a reason, not an import note
