"""Memories into files: each back where it came from, live ones where their fields say; a fixpoint."""

from datetime import UTC, datetime
from pathlib import Path

from hub.markdown.layout import Layout
from hub.markdown.reader import read_workspace
from hub.markdown.render import render_workspace
from hub.models import EventCreate, Memory, State, Tier
from tests.markdown.conftest import WORKSPACE

RECEIVED = datetime(2026, 11, 29, 12, 30, tzinfo=UTC)


def memories_in(root: Path) -> list[Memory]:
    """What importing `root` would store, without a hub."""
    events = read_workspace(root, layout=Layout(), agent="tali").events
    return [Memory.from_event(e, event_id=e.id or "", received_at=RECEIVED) for e in events]


def write(files: dict[str, str], root: Path) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def live(text: str, **fields: object) -> Memory:
    event = EventCreate.model_validate({"text": text, "agent": "tali", **fields})
    return Memory.from_event(event, event_id=f"live-{abs(hash(text))}", received_at=RECEIVED)


def test_rendering_what_it_reads_is_a_fixpoint(tmp_path: Path) -> None:
    first = render_workspace(memories_in(WORKSPACE), layout=Layout()).files
    again = render_workspace(memories_in(write(first, tmp_path)), layout=Layout()).files
    assert again == first
    assert set(first) == {
        "MEMORY.md",
        "memory/core.md",
        "memory/daily/2026-03-02.md",
        "memory/2026-03-04.md",
        "memory/projects/lisbon-trip.md",
        "memory/archival/people/dana.md",
        "memory/archival/decisions/2025-11-photos.md",
        "memory/archival/learnings/scheduling.md",
        "memory/conflicts/2026-03-05.md",
        "memory/whatsapp/groups/120363041234567890@g.us/context.md",
        "memory/whatsapp/dms/972501234567/context.md",
    }


def test_nested_lists_and_tables_come_back_as_flat_lines_that_read_the_same(tmp_path: Path) -> None:
    nested = write(
        {
            "MEMORY.md": "## Family\n- [FACT] Noa's kids:\n  - Maya is allergic to kiwi\n\n"
            "| Person | Birthday |\n|---|---|\n| Dana | 14 July |\n",
        },
        tmp_path / "nested",
    )
    first = render_workspace(memories_in(nested), layout=Layout()).files
    assert first["MEMORY.md"].splitlines()[2:] == [
        "## Family",
        "",
        "- [FACT] Noa's kids: Maya is allergic to kiwi",
        "- [FACT] Person: Dana; Birthday: 14 July",
    ]
    assert render_workspace(memories_in(write(first, tmp_path / "again")), layout=Layout()).files == first


def test_a_daily_file_keeps_its_sessions_sections_and_tags(tmp_path: Path) -> None:
    daily = render_workspace(memories_in(WORKSPACE), layout=Layout()).files["memory/daily/2026-03-02.md"]
    assert daily.splitlines()[:12] == [
        "# 2026-03-02",
        "",
        "## Session Summary — 09:40 (WhatsApp)",
        "",
        "- Morning planning with Noa: the Lisbon flights and the leaking boiler.",
        "",
        "### Decisions made",
        "",
        "- Fly TAP on 9 April and return on 16 April; Amir books the hotel.",
        "- The boiler repair is paid from the joint account.",
        "",
        "### Tasks completed",
    ]
    # A deduction without evidence was imported as a fact: its line says so, in its own section.
    assert "- [FACT] Noa likes reminders the evening before, not on the same morning" in daily.splitlines()
    assert "ghp_" not in daily and "rclone" not in daily


def test_something_to_do_in_a_session_is_written_with_its_box(tmp_path: Path) -> None:
    # Written back as "- [OPEN_LOOP] Call the plumber" and "- [TASK] Sent the photos" (no longer checked
    # off: it came back open), a daily log no longer read as the agent wrote it.
    daily = (
        "# 2026-11-20\n\n## 09:15 session (whatsapp)\n\n"
        "- Noa has a fever.\n- [ ] Call the plumber.\n- [x] Sent the photos to Dana.\n"
    )
    root = write({"memory/daily/2026-11-20.md": daily}, tmp_path / "daily")
    # The import closes what was checked off once it is stored.
    memories = [
        m.model_copy(update={"state": State.resolved}) if m.text.startswith("Sent") else m
        for m in memories_in(root)
    ]
    written = render_workspace(memories, layout=Layout()).files["memory/daily/2026-11-20.md"]
    assert written == daily


def test_memories_published_live_go_where_their_fields_say(tmp_path: Path) -> None:
    imported = memories_in(WORKSPACE)
    promoted = next(m for m in imported if m.source == "memory/daily/2026-03-02.md:24")
    promoted = promoted.model_copy(update={"tier": Tier.semantic})  # as promotion would
    extra = [
        live("Noa renewed her passport", tier="semantic", occurred_at="2026-04-01T08:15:00Z"),
        live(
            "Pick up Maya at 13:00 on Friday",
            kind="decision",
            session="wa-8812",
            occurred_at="2026-03-06T10:00:00+02:00",
        ),
        live("Hotel deposit paid", kind="status", scope="project", project="lisbon-trip"),
        live("Dana is expecting a second child", scope="person", person="Dana Cohen", tier="semantic"),
        live("Noa is on leave this week", kind="status", tier="core"),
        live(
            "Class trip money is due Sunday",
            tier="semantic",
            channel="whatsapp",
            chat="120363041234567890@g.us",
        ),
        live("The gate code is being changed today", scope="temporary", ttl_seconds=3600),
    ]
    memories = [m for m in imported if m.id != promoted.id] + [promoted, *extra]
    rendering = render_workspace(memories, layout=Layout())
    files = rendering.files
    long_term = files["MEMORY.md"].splitlines()
    assert "- [FACT] 2026-04-01: Noa renewed her passport" in long_term
    assert "- [FACT] 2026-03-02: Maya is allergic to kiwi." in long_term  # promoted: it moved, with its date
    assert "Maya is allergic to kiwi." not in files["memory/daily/2026-03-02.md"]
    assert (
        "## wa-8812\n\n### Decisions made\n\n- Pick up Maya at 13:00 on Friday"
        in files["memory/daily/2026-03-06.md"]
    )
    assert "- 2026-11-29: Hotel deposit paid" in files["memory/projects/lisbon-trip.md"]
    assert "- 2026-11-29: Dana is expecting a second child" in files["memory/archival/people/Dana Cohen.md"]
    assert "## Active Context\n\n- Planning" in files["memory/core.md"]
    assert "- 2026-11-29: Noa is on leave this week" in files["memory/core.md"]
    group = files["memory/whatsapp/groups/120363041234567890@g.us/context.md"]
    assert group.startswith(
        "# whatsapp group 120363041234567890@g.us\n\n- 2026-11-29: Class trip money is due Sunday\n"
    )
    assert list(rendering.left_out.values()) == ["temporary: it expires, so it is not written to files"]

    again = render_workspace(memories_in(write(files, tmp_path)), layout=Layout()).files
    assert again == files
