"""Importing the sample workspace through the real pipeline: what each line becomes, and searches."""

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from hub.api.app import create_app
from hub.embedded import EmbeddedHub
from hub.markdown import import_workspace
from hub.models import Memory, State
from hub.services import Services
from memhub_client import Memhub, MemhubError
from tests.markdown.conftest import WORKSPACE


def stored(agent: Memhub) -> dict[str, Memory]:
    """Every memory of the agent, by source."""
    return {m.source or m.id: m for m in agent.all_memories(state=list(State))}


def at(day: str, clock: str = "00:00") -> datetime:
    return datetime.fromisoformat(f"{day}T{clock}:00").replace(tzinfo=UTC)


def test_the_sample_workspace_imports_with_kinds_scopes_tiers_dates_and_sources(
    make_agent: Callable[..., Memhub],
) -> None:
    tali = make_agent("tali")
    report = import_workspace(WORKSPACE, hub=tali)

    assert (report.files, report.imported, report.merged, report.pending, report.refused) == (
        11,
        54,
        1,
        0,
        [],
    )
    assert [(s.source, s.reason) for s in report.skipped] == [
        ("MEMORY.md:3", "not an entry (MEMORY.md entries are `- [FACT] …`)"),
        ("MEMORY.md:19", "holds a secret (password) in its text"),
        ("memory/daily/2026-03-02.md:30", "holds a secret (github_token) in its text"),
        ("memory/daily/2026-03-02.md:32", "a code block"),
    ]
    assert report.notes == ["memory/daily/2026-03-02.md:20: a deduction without evidence, imported as a fact"]
    assert report.closed == 3  # the tasks under Tasks completed, checked off or not

    memories = stored(tali)
    session = "Session Summary — 09:40 (WhatsApp)"
    group, dm = (
        "memory/whatsapp/groups/120363041234567890@g.us/context.md",
        "memory/whatsapp/dms/972501234567/context.md",
    )
    G, P, Pn, E, S, A, C = "global", "project", "person", "episodic", "semantic", "archival", "core"
    expected = {
        # source: (kind, scope, tier, project or person, channel, chat, session)
        "MEMORY.md:7": ("fact", G, S, None, None, None, None),
        "MEMORY.md:11": ("deduced", G, S, None, None, None, None),
        "MEMORY.md:18": ("decision", G, S, None, None, None, None),
        "memory/core.md:5": ("fact", G, C, None, None, None, None),
        "memory/core.md:16": ("status", G, C, None, None, None, None),
        "memory/core.md:23": ("fact", G, C, None, None, None, None),
        "memory/daily/2026-03-02.md:5": ("summary", G, E, None, None, None, session),
        "memory/daily/2026-03-02.md:9": ("decision", G, E, None, None, None, session),
        "memory/daily/2026-03-02.md:14": ("task", G, E, None, None, None, session),
        "memory/daily/2026-03-02.md:19": ("deduced", G, E, None, None, None, session),
        "memory/2026-03-04.md:5": ("decision", G, E, None, None, None, None),
        "memory/projects/lisbon-trip.md:5": ("status", P, S, "lisbon-trip", None, None, None),
        "memory/projects/lisbon-trip.md:9": ("open_loop", P, S, "lisbon-trip", None, None, None),
        "memory/projects/lisbon-trip.md:14": ("decision", P, S, "lisbon-trip", None, None, None),
        "memory/archival/people/dana.md:5": ("summary", Pn, A, "dana", None, None, None),
        "memory/archival/people/dana.md:10": ("fact", Pn, A, "dana", None, None, None),
        "memory/archival/decisions/2025-11-photos.md:9": ("decision", G, A, None, None, None, None),
        "memory/archival/learnings/scheduling.md:3": ("deduced", G, A, None, None, None, None),
        "memory/conflicts/2026-03-05.md:3": ("correction", G, E, None, None, None, None),
        "memory/conflicts/2026-03-05.md:9": ("open_loop", G, E, None, None, None, None),
        f"{group}:10": ("fact", G, S, None, "whatsapp", "120363041234567890@g.us", None),
        f"{dm}:3": ("fact", G, S, None, "whatsapp", "972501234567", None),
    }
    for source, want in expected.items():
        m = memories[source]
        got = (m.kind, m.scope, m.tier, m.project or m.person, m.channel, m.chat, m.session)
        assert got == want, source
        # The sample's tasks are checked off under Tasks completed: done, so closed.
        assert m.agent == "tali" and m.state == (State.resolved if m.kind == "task" else State.active)

    # Dates: from a line's own date, from the file name, and a session's or conflict's time.
    assert memories["MEMORY.md:8"].occurred_at == at("2026-01-12")
    assert memories["memory/daily/2026-03-02.md:29"].occurred_at == at("2026-03-02", "18:15")
    assert memories["memory/2026-03-04.md:9"].occurred_at == at("2026-03-04")
    assert memories["memory/projects/lisbon-trip.md:15"].occurred_at == at("2026-02-25")
    assert memories["memory/conflicts/2026-03-05.md:3"].occurred_at == at("2026-03-05", "10:30")

    # Evidence, tags and the settled statement of a conflict.
    assert memories["MEMORY.md:11"].evidence == [
        "2026-02-03: answered three voice notes within minutes during her commute",
        '2026-02-10: asked twice to "just send a voice note"',
    ]
    dana = memories["memory/archival/people/dana.md:10"]
    assert (
        dana.why
        == "imported from memory/archival/people/dana.md, section Details; tags: family, Haifa; undated"
    )
    correction = memories["memory/conflicts/2026-03-05.md:3"]
    assert correction.text == "Noa works until 17:00 on Tuesdays and Thursdays since March"
    assert correction.evidence[0] == "Was: Noa works until 19:00 on weekdays (from MEMORY.md)"
    assert memories["memory/core.md:10"].text == "Name: Noa Levi"

    # The same fact in two daily files is one memory, reinforced; nothing secret is stored.
    [kiwi] = [m for m in memories.values() if m.text == "Maya is allergic to kiwi."]
    assert kiwi.source == "memory/daily/2026-03-02.md:24" and len(kiwi.sightings) == 2
    assert not any("ghp_" in m.text or "Tz8#" in m.text for m in memories.values())
    assert len(memories) == 54


def test_the_imported_core_file_loads_as_the_agents_core_block_section_by_section(
    make_agent: Callable[..., Memhub],
) -> None:
    # The block placed each line by its fields alone: "I am Tali, ..." from Identity showed under User.
    tali = make_agent("tali")
    import_workspace(WORKSPACE, hub=tali)

    sections: dict[str, list[str]] = {}
    for line in tali.load_core().markdown.splitlines()[1:]:
        if line.startswith("## "):
            sections[line[3:]] = []
        elif line.startswith("- ") and not line.startswith("- See archival"):
            sections[list(sections)[-1]].append(line[2:])
    assert sorted(sections["Identity"]) == [
        "I am Tali, Noa's personal assistant on WhatsApp and Telegram.",
        "I answer in Hebrew unless Noa writes to me in English.",
    ]
    assert sorted(sections["User"]) == [
        "Family: partner Amir, daughter Maya (6)",
        "Name: Noa Levi",
        "Time zone: Asia/Jerusalem",
    ]
    assert sorted(sections["Active Context"]) == [
        "Planning a family trip to Lisbon for April 2026.",
        "Waiting for the landlord to confirm the boiler repair.",
    ]
    assert sorted(sections["Quick Reference"]) == [
        "Car: Grey 2021 Mazda 3",
        "Family doctor: Dr. Ruth Segal, Clalit Rehavia clinic",
    ]


def test_an_imported_decision_gives_no_import_note_as_its_why(make_agent: Callable[..., Memhub]) -> None:
    # The project page read "why: imported from memory/projects/lisbon-trip.md, section Key decisions".
    tali = make_agent("tali")
    import_workspace(WORKSPACE, hub=tali)

    page = tali.project("lisbon-trip").markdown
    assert "Fly TAP rather than El Al" in page and "imported from" not in page
    assert "  - why: _not recorded_" in page
    day = tali.daily("2026-03-02").markdown
    assert "Fly TAP on 9 April and return on 16 April; Amir books the hotel." in day
    assert "imported from" not in day


def test_the_daily_page_gives_imported_lines_the_time_their_file_gave(
    make_agent: Callable[..., Memhub],
) -> None:
    # A dated line with no time of day showed as "- 00:00 Fly TAP rather than El Al ...".
    tali = make_agent("tali")
    import_workspace(WORKSPACE, hub=tali)

    day = tali.daily("2026-03-02").markdown
    assert "- 09:40 Fly TAP on 9 April and return on 16 April; Amir books the hotel." in day
    assert "- Fly TAP rather than El Al, because the return flight lands before Maya's school day" in day
    assert "00:00" not in day


def test_searches_find_what_was_imported(make_agent: Callable[..., Memhub], api: TestClient) -> None:
    tali = make_agent("tali")
    import_workspace(WORKSPACE, hub=tali)

    def top3(query: str, **filters: object) -> list[str]:
        return [h.text for h in tali.search(query, limit=3, **filters)]

    assert "Noa is allergic to penicillin." in top3("what is Noa allergic to?")
    assert "Noa's manager at Meridian Labs is Daniel Cohen." in top3("who is Noa's manager?")
    assert any(
        t.startswith("Fly TAP rather than El Al") for t in top3("TAP or El Al?", project="lisbon-trip")
    )
    assert "Dana teaches biology at the Hebrew Reali School." in top3("what does Dana teach?", person="dana")
    assert "Keep messages short; the group mutes after 21:00." in top3(
        "when does the parents group go quiet?"
    )
    assert "Time zone: Asia/Jerusalem" in top3("what is Noa's time zone?")
    # Either memory of the photo move answers it (the archive entry, or the daily note of the move).
    assert any(
        t.startswith(("Chose Backblaze B2", "In November 2025 Noa moved the family photo archive"))
        for t in top3("where did the family photos go?")
    )
    # A project's and a person's lines stay within their scope.
    assert all(h.project is None for h in tali.search("hotel in Alfama", limit=50))
    assert all(h.person is None for h in tali.search("Dana biology teacher", limit=50))
    # Contradictions between imported lines are in the ledger, open, as the hub's policy leaves them.
    statements = {tuple(c.statements) for c in tali.conflicts(status="open")}
    assert ("Dana's birthday is on 14 July.", "Dana's birthday is on 14 June.") in statements


def test_importing_again_adds_nothing(make_agent: Callable[..., Memhub], api: TestClient) -> None:
    tali = make_agent("tali")
    import_workspace(WORKSPACE, hub=tali)
    count = api.get("/healthz").json()["memories"]

    again = import_workspace(WORKSPACE, hub=tali)
    assert (again.imported, again.merged, again.already_present) == (0, 0, 55)
    assert api.get("/healthz").json()["memories"] == count


def test_a_dry_run_reports_and_publishes_nothing(make_agent: Callable[..., Memhub], api: TestClient) -> None:
    report = import_workspace(WORKSPACE, hub=make_agent("tali"), dry_run=True)
    assert (report.imported, report.already_present, len(report.skipped)) == (55, 0, 4)
    assert "would import" in report.summary()
    assert api.get("/healthz").json()["memories"] == 0


def test_without_waiting_the_events_are_durable_and_stored_soon(make_agent: Callable[..., Memhub]) -> None:
    tali = make_agent("tali", "whatsapp")
    report = import_workspace(WORKSPACE, hub=tali, wait=False)
    assert (report.imported, report.pending) == (0, 55)
    later = import_workspace(WORKSPACE, hub=tali)  # finds them queued or stored: waits, publishes none again
    assert later.imported + later.merged + later.already_present == 55
    assert all(m.channel == "whatsapp" for m in tali.all_memories() if m.chat is None)


def test_two_agents_files_that_disagree_wait_for_the_owner_however_minor(
    make_agent: Callable[..., Memhub], tmp_path: Path
) -> None:
    # Two agents move in; their MEMORY.md files drifted apart. Neither line says when it was written,
    # so neither is newer: a low-severity conflict resolved "the newer wins" picked the file imported
    # second. It waits for the owner, with its proposal, as a medium one does.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    for name, line in (
        ("wa", "Tali prefers voice notes over long texts."),
        ("tg", "Tali likes short text replies, not voice notes."),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "MEMORY.md").write_text(f"## Preferences\n\n- {line}\n", encoding="utf-8")
    assert import_workspace(tmp_path / "wa", hub=wa).conflicts == 0
    second = import_workspace(tmp_path / "tg", hub=tg)
    assert second.conflicts == 1
    assert "in conflict       1  (open, with what the hub had: memhub conflicts list)" in second.summary()

    [conflict] = tg.conflicts()
    assert (conflict.severity, conflict.status, conflict.resolution) == ("low", "open", None)
    assert all(m.state == State.active for m in [*wa.all_memories(), *tg.all_memories()])
    # Said live afterwards, the preference is newer than both: proposed over what it contradicts, and
    # nothing is superseded unless the judge is sure of it (P(conflict) from 0.95).
    live = tg.wait(tg.publish("Tali does not like voice notes.")).memory_id
    decided = [c for c in tg.conflicts(status=None) if live in c.memory_ids]
    assert decided and all(c.proposal == live for c in decided)
    for c in decided:
        sure = not c.inferred
        assert (c.status == "auto_resolved") == sure, c


def test_what_one_agent_checked_off_closes_the_loop_the_other_agents_files_left_open(
    make_agent: Callable[..., Memhub], tmp_path: Path
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    for name, path, text in (
        ("wa", "memory/daily/2026-11-20.md", "# 2026-11-20\n\n## Open loops\n\n- [ ] Renew Ido's passport\n"),
        (
            "tg",
            "memory/daily/2026-11-25.md",
            "# 2026-11-25\n\n## Session — 21:05\n\n- [x] Renewed Ido's passport at the Interior Ministry office.\n",
        ),
    ):
        (tmp_path / name / path).parent.mkdir(parents=True)
        (tmp_path / name / path).write_text(text, encoding="utf-8")
    import_workspace(tmp_path / "wa", hub=wa)
    report = import_workspace(tmp_path / "tg", hub=tg)
    assert (report.closed, report.answered) == (1, 1)
    assert "answered          1  (open loops the hub had, done by these: closed too)" in report.summary()
    [loop] = wa.all_memories(state=["resolved"])
    assert loop.text == "Renew Ido's passport"
    assert loop.history[-1].note is not None and loop.history[-1].note.startswith(
        "done: Renewed Ido's passport at the Interior Ministry office. (tg-assistant on telegram, "
        "memory/daily/2026-11-25.md:5;"
    )


def test_a_key_kept_to_some_people_is_refused_before_anything_is_written(
    make_services: Callable[..., Services], tmp_path: Path
) -> None:
    # Import reads what the agent holds already, and counts the conflicts its lines are in: the owner's
    # view. A key kept to some people is told so up front, with nothing half-imported.
    admin = "admin-secret-for-tests"
    hub = EmbeddedHub(services=make_services(auth=True, admin_key=admin), redis_server=None)
    hub.start_workers(1, sweep_interval=0.5)
    try:
        with TestClient(create_app(hub.services)) as api:
            created = api.post(
                "/v1/keys",
                json={"agent": "tg-assistant", "grants": {"persons": ["Tali"]}},
                headers={"Authorization": f"Bearer {admin}"},
            )
            assert created.status_code == 201, created.text
            tg = Memhub(agent="tg-assistant", channel="telegram", api_key=created.json()["token"], client=api)
            (tmp_path / "tg").mkdir()
            (tmp_path / "tg" / "MEMORY.md").write_text(
                "## Preferences\n\n- Tali likes short text replies, not voice notes.\n", encoding="utf-8"
            )
            with pytest.raises(MemhubError) as refused:
                import_workspace(tmp_path / "tg", hub=tg)
            assert refused.value.status_code == 403
            assert "needs an unrestricted key" in str(refused.value)
            # With the owner's key the same folder moves in, new: the refused import published nothing.
            owner = Memhub(agent="tg-assistant", channel="telegram", api_key=admin, client=api)
            moved = import_workspace(tmp_path / "tg", hub=owner)
            assert (moved.imported, moved.already_present, moved.conflicts) == (1, 0, 0)
    finally:
        hub.stop()
