"""Reading a workspace's files into events, without a hub."""

from pathlib import Path

from hub.markdown.layout import Layout, Pattern
from hub.markdown.reader import read_workspace


def test_a_byte_order_mark_hides_nothing(tmp_path: Path) -> None:
    # Notepad and some sync tools start UTF-8 files with a BOM; read as text, it would sit before the
    # first line's `#` or `-` and turn a heading or an entry into something that is not one.
    (tmp_path / "MEMORY.md").write_bytes(
        "\ufeff- [FACT] Noa works at Meridian Labs.\r\n- [DECISION] We use Signal for family calls.\r\n".encode()
    )
    reading = read_workspace(tmp_path, layout=Layout(), agent="tali")
    assert [(e.text, e.kind, e.source) for e in reading.events] == [
        ("Noa works at Meridian Labs.", "fact", "MEMORY.md:1"),
        ("We use Signal for family calls.", "decision", "MEMORY.md:2"),
    ]
    assert reading.skipped == []


def test_a_nested_item_carries_the_words_tag_and_date_of_the_bullets_above_it(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(
        "## Family\n\n"
        "- [FACT] 2026-01-12: Noa's kids:\n"
        "  - Maya, 7, is allergic to kiwi\n"
        "  - [PREFERENCE] Itai only eats plain pasta\n"
        "- **Dana**\n"
        "  - lives in Haifa\n"
        "- Amir fixed the boiler.\n"
        "  - He charged 450 NIS\n",
        encoding="utf-8",
    )
    reading = read_workspace(tmp_path, layout=Layout(), agent="tali")
    assert [(e.text, e.kind, e.occurred_at and e.occurred_at.date().isoformat()) for e in reading.events] == [
        ("Noa's kids: Maya, 7, is allergic to kiwi", "fact", "2026-01-12"),
        ("Noa's kids: Itai only eats plain pasta", "preference", "2026-01-12"),
        ("Dana: lives in Haifa", "fact", None),
        ("Amir fixed the boiler.", "fact", None),  # a statement of its own stays one
        ("Amir fixed the boiler. He charged 450 NIS", "fact", None),
    ]
    # Words that mean nothing without the items under them are not memories of their own.
    assert [(s.source, s.reason) for s in reading.skipped] == [
        ("MEMORY.md:3", "a lead-in: the items under it carry its words"),
        ("MEMORY.md:6", "a lead-in: the items under it carry its words"),
    ]


def test_a_daily_line_that_starts_with_a_time_happened_then(tmp_path: Path) -> None:
    (tmp_path / "memory" / "daily").mkdir(parents=True)
    (tmp_path / "memory" / "daily" / "2026-11-28.md").write_text(
        "# 2026-11-28\n\n## Session Summary — 18:15 (Telegram)\n\n"
        "- 09:15 Booked the dentist for Itai.\n- Amir will come on Sunday at 10:00.\n",
        encoding="utf-8",
    )
    reading = read_workspace(tmp_path, layout=Layout(), agent="tali")
    assert [(e.text, e.occurred_at and e.occurred_at.isoformat()) for e in reading.events] == [
        ("09:15 Booked the dentist for Itai.", "2026-11-28T09:15:00+00:00"),
        ("Amir will come on Sunday at 10:00.", "2026-11-28T18:15:00+00:00"),  # a time inside: the session's
    ]


def test_a_box_is_something_to_do_wherever_it_sits(tmp_path: Path) -> None:
    (tmp_path / "memory" / "daily").mkdir(parents=True)
    (tmp_path / "memory" / "daily" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n## 09:15 session (whatsapp)\n\n"
        "- Noa has a fever.\n- [ ] Call the plumber about the sink.\n- [x] Sent the photos to Dana.\n"
        "- [x] [DECISION] Lisbon, not Porto.\n",
        encoding="utf-8",
    )
    reading = read_workspace(tmp_path, layout=Layout(), agent="tali")
    assert [(e.text, e.kind) for e in reading.events] == [
        ("Noa has a fever.", "summary"),  # the session's lines are its summary
        ("Call the plumber about the sink.", "open_loop"),
        ("Sent the photos to Dana.", "task"),
        ("Lisbon, not Porto.", "decision"),  # a kind written out is the kind
    ]
    # What was checked off is closed once stored; a decision has nothing to close.
    assert [e.text for e in reading.events if e.id in reading.closed] == ["Sent the photos to Dana."]


def test_files_where_memory_lives_that_the_layout_does_not_match_are_reported(tmp_path: Path) -> None:
    # They were passed over without a word: a daily file named for a day that does not exist, or
    # OpenClaw's session notes (memory/2026-01-16-vendor-pitch.md), simply never arrived.
    files = {
        "MEMORY.md": "- [FACT] Noa works at Meridian Labs.\n",
        "memory/daily/2026-02-30.md": "- Something happened.\n",
        "memory/2026-01-16-vendor-pitch.md": "- The vendor pitched on Friday.\n",
        "memory/people/dana.md": "- Dana likes tea.\n",
        "memory.md": "- A second long-term file, named in the wrong case.\n",
        "AGENTS.md": "- Instructions for the agent, not memory.\n",
        "memory/conflicts/open.md": "- The page export writes, never imported.\n",
        ".git/notes.md": "- hidden\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    reading = read_workspace(tmp_path, layout=Layout(), agent="tali")
    assert [e.source for e in reading.events] == ["MEMORY.md:1"]
    assert [(s.source, s.reason) for s in reading.skipped] == [
        ("memory.md", "not imported: not a memory file of the layout (`--layout` can add other patterns)"),
        (
            "memory/2026-01-16-vendor-pitch.md",
            "not imported: a daily file is named YYYY-MM-DD.md (`--layout` can add other patterns)",
        ),
        (
            "memory/daily/2026-02-30.md",
            "not imported: 2026-02-30 is not a date (a daily file is named YYYY-MM-DD.md)",
        ),
        (
            "memory/people/dana.md",
            "not imported: not a memory file of the layout (`--layout` can add other patterns)",
        ),
    ]
    # The layout can take them in.
    layout = Layout(daily=(Pattern("memory/daily/{date}.md"), Pattern("memory/{date}-{slug}.md")))
    reading = read_workspace(tmp_path, layout=layout, agent="tali")
    assert "memory/2026-01-16-vendor-pitch.md:1" in [e.source for e in reading.events]


def test_a_known_section_is_known_with_emoji_bold_or_capitals_around_its_name(tmp_path: Path) -> None:
    # "## 📌 Decisions Made" was taken for a session's name and its lines for summaries; a project's
    # "## **Open loops**" lines were facts.
    (tmp_path / "memory" / "projects").mkdir(parents=True)
    (tmp_path / "memory" / "2026-03-03.md").write_text(
        "# 2026-03-03\n\n## 📌 Decisions Made\n\n- We chose the blue sofa.\n\n"
        "## **OPEN LOOPS:**\n- Call the plumber\n",
        encoding="utf-8",
    )
    (tmp_path / "memory" / "projects" / "kitchen.md").write_text(
        "## 🚧 Status\nTiles ordered.\n## *Open loops*\n- [ ] Pick the grout\n", encoding="utf-8"
    )
    reading = read_workspace(tmp_path, layout=Layout(), agent="tali")
    assert [(e.text, e.kind, e.session, e.why) for e in reading.events] == [
        (
            "We chose the blue sofa.",
            "decision",
            None,
            "imported from memory/2026-03-03.md, section Decisions made",
        ),
        ("Call the plumber", "open_loop", None, "imported from memory/2026-03-03.md, section Open loops"),
        (
            "Tiles ordered.",
            "status",
            None,
            "imported from memory/projects/kitchen.md, section Status; undated",
        ),
        (
            "Pick the grout",
            "open_loop",
            None,
            "imported from memory/projects/kitchen.md, section Open loops; undated",
        ),
    ]


def test_a_section_is_known_by_the_other_names_agents_give_it(tmp_path: Path) -> None:
    # "## Decisions" after a session was taken for a second session, its lines for summaries; in a
    # project file its lines were facts, and the project page listed no decision.
    (tmp_path / "memory" / "daily").mkdir(parents=True)
    (tmp_path / "memory" / "projects").mkdir()
    (tmp_path / "memory" / "daily" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n## Session Summary — 08:15\n\n- Ido's passport expires in January.\n\n"
        "## Decisions\n\n- Eilat over Hanukkah, flying with Israir.\n\n## Done\n\n- Paid the arnona.\n\n"
        "## TODO\n\n- Book the dentist\n",
        encoding="utf-8",
    )
    (tmp_path / "memory" / "projects" / "renovation.md").write_text(
        "# Renovation\n\n## Current status\n\nWorks start on 3 March.\n\n"
        "## Decisions\n\n- White oak cabinets, not grey.\n\n## To do\n\n- Choose the countertop\n",
        encoding="utf-8",
    )
    reading = read_workspace(tmp_path, layout=Layout(), agent="tali")
    assert [(e.text, e.kind, e.session) for e in reading.events] == [
        ("Ido's passport expires in January.", "summary", "Session Summary — 08:15"),
        ("Eilat over Hanukkah, flying with Israir.", "decision", None),
        ("Paid the arnona.", "task", None),
        ("Book the dentist", "open_loop", None),
        ("Works start on 3 March.", "status", None),
        ("White oak cabinets, not grey.", "decision", None),
        ("Choose the countertop", "open_loop", None),
    ]
    assert reading.closed == {reading.events[2].id}  # listed as done: closed once stored


def test_a_project_line_labelled_with_a_section_belongs_to_that_section(tmp_path: Path) -> None:
    # "**Status:** train booked, dinner pending" under the title was a fact that read "Status: ...",
    # and the page said "No status reported yet".
    (tmp_path / "memory" / "projects").mkdir(parents=True)
    (tmp_path / "memory" / "projects" / "porto.md").write_text(
        "# Porto weekend\n\n**Status:** train booked, dinner pending\n\n"
        "- Open loops: dinner reservation\n\n## Notes\n- Status: Jo asked twice\n",
        encoding="utf-8",
    )
    reading = read_workspace(tmp_path, layout=Layout(), agent="sam")
    why = "imported from memory/projects/porto.md, section {}; undated"
    assert [(e.text, e.kind, e.why) for e in reading.events] == [
        ("train booked, dinner pending", "status", why.format("Status")),
        ("dinner reservation", "open_loop", why.format("Open loops")),
        ("Status: Jo asked twice", "fact", why.format("Notes")),
    ]


def test_reading_counts_its_lines_as_it_goes(tmp_path: Path) -> None:
    # A 20k-line MEMORY.md took seconds to read with nothing on screen.
    (tmp_path / "MEMORY.md").write_text("".join(f"- Fact number {i} about the house\n" for i in range(300)))
    (tmp_path / "memory" / "daily").mkdir(parents=True)
    (tmp_path / "memory" / "daily" / "2026-01-12.md").write_text("# 2026-01-12\n\n- Fixed the boiler\n")
    updates: list[float] = []

    class Recorder:
        total: float | None = None

        def update(self, n: float | None = 1) -> None:
            updates.append(n or 0)

    recorder = Recorder()
    reading = read_workspace(tmp_path, layout=Layout(), agent="tali", progress=recorder)
    assert len(reading.events) == 301
    assert recorder.total == sum(updates) == 301 + 4  # every line, each file's trailing empty one too
    assert len(updates) >= 300  # as the lines are read, not once at the end


def test_a_workspace_without_a_core_file_is_told_its_core_block_starts_empty(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("## People\n\n- Tali is Omer's partner.\n", encoding="utf-8")
    [note] = read_workspace(tmp_path, layout=Layout(), agent="tali").notes
    assert note.startswith("no memory/core.md: this agent's core block starts empty; MEMORY.md's lines")
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "core.md").write_text("## User\n\n- Tali, in Haifa.\n", encoding="utf-8")
    assert read_workspace(tmp_path, layout=Layout(), agent="tali").notes == []
