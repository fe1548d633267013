"""The daily note and the project file, rendered from the hub as an agent reads them."""

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from starlette.testclient import TestClient

from hub.api.app import create_app
from hub.models import Confidence, DecisionMade, Kind, Memory, Pattern, Scope
from hub.pages.project import CLOSED_SHOWN, NOTES_SHOWN, render
from hub.redis_publisher import RedisPublisher, build_event
from hub.services import Services
from hub.summaries import Part, derived_id
from memhub_client import Memhub
from workers.ingest import drain_stream

DAY = date(2026, 11, 20)


def at(hour: int, minute: int = 0, day: date = DAY) -> str:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC).isoformat()


def stored(agent: Memhub, text: str, **fields: object) -> str:
    status = agent.wait(agent.publish(text, **fields))
    assert status.status == "stored" and status.memory_id, status
    return status.memory_id


def test_a_session_summary_becomes_memories_and_the_day_renders_as_the_daily_note(
    api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    stored(wa, "Netanel prefers aisle seats on flights", kind="preference", occurred_at=at(9, 14))
    stored(tg, "Dana's birthday is on 3 May", occurred_at=at(11))
    stored(wa, "Something from the day before", occurred_at=at(22, day=DAY - timedelta(days=1)))
    summary_id = wa.summarize_session(
        session="trip-planning",
        decisions=[DecisionMade(text="Book the TAP flight to Lisbon", why="the only direct flight")],
        tasks_completed=["Renewed Netanel's passport"],
        patterns=[
            Pattern(
                text="Netanel books trips about a month ahead",
                evidence=["booked Rome 5 weeks ahead", "booked Paris 4 weeks ahead"],
            )
        ],
        open_loops=["Choose a hotel in Lisbon"],
        promote=["Netanel's frequent flyer programme is TAP Miles&Go"],
        occurred_at=at(18, 30),
        id="trip-summary-1",
    )
    assert wa.wait(summary_id).status == "stored"
    settle()
    count = api.get("/healthz").json()["memories"]

    # Each item is a memory of its own, linked to the session and to the summary.
    loop_event = derived_id(summary_id, Part.open_loop, 0)
    loop_status = wa.status(loop_event)
    assert loop_status.status == "stored" and loop_status.memory_id
    loop = wa.memory(loop_status.memory_id)
    assert (loop.kind, loop.session, loop.related) == (
        "open_loop",
        "trip-planning",
        [wa.status(summary_id).memory_id],
    )
    # Publishing the same summary again (same client id) adds nothing.
    wa.summarize_session(
        session="trip-planning", open_loops=["Choose a hotel in Lisbon"], id="trip-summary-1"
    )
    settle()
    assert api.get("/healthz").json()["memories"] == count
    # The nominated fact is proposed for long-term memory.
    [nominated] = wa.promotions()
    assert nominated.text == "Netanel's frequent flyer programme is TAP Miles&Go"
    assert [s.name.value for s in nominated.signals] == ["nominated"]

    page = wa.daily(DAY)
    assert page.path == "memory/daily/2026-11-20.md"
    text = page.markdown
    assert text.startswith("# 2026-11-20\n\n_wa-assistant's day: 7 memories_\n")
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections == [
        "## Sessions",
        "## Decisions",
        "## Tasks",
        "## Patterns noticed",
        "## Open loops",
        "## Notes",
    ]
    assert (
        "- **trip-planning** (wa-assistant, 18:30): Session trip-planning: decided: Book the TAP flight"
        in text
    )
    assert "- 18:30 Book the TAP flight to Lisbon <!-- memory:" in text
    assert "  - why: the only direct flight" in text
    assert "- [x] 18:30 Renewed Netanel's passport" in text
    assert "  - evidence: booked Rome 5 weeks ahead\n  - evidence: booked Paris 4 weeks ahead" in text
    assert f"- [ ] 18:30 Choose a hotel in Lisbon <!-- memory:{loop.id} -->" in text
    assert "- 09:14 Netanel prefers aisle seats on flights (preference) <!-- memory:" in text
    assert "Netanel's frequent flyer programme is TAP Miles&Go _(nominated for long-term memory)_" in text
    assert "Dana" not in text and "the day before" not in text
    assert len(page.memory_ids) == 7

    # The same page as plain markdown, and every agent's day.
    raw = api.get(
        "/v1/daily/2026-11-20", params={"agent": "wa-assistant"}, headers={"Accept": "text/markdown"}
    )
    assert raw.headers["content-type"].startswith("text/markdown") and raw.text == text
    everyone = wa.daily("2026-11-20", every_agent=True).markdown
    assert "- 11:00 Dana's birthday is on 3 May (tg-assistant) <!-- memory:" in everyone
    # Closing the loop ticks it.
    wa.resolve(loop.id, note="booked the Alfama guesthouse")
    assert f"- [x] 18:30 Choose a hotel in Lisbon <!-- memory:{loop.id} -->" in wa.daily(DAY).markdown
    assert wa.daily(DAY + timedelta(days=5)).markdown.endswith("Nothing was recorded on this day.\n")


def test_the_project_file_shows_status_open_loops_and_key_decisions_with_why(
    api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    project = {"scope": "project", "project": "lisbon-trip"}
    stored(wa, "Flights found, nothing booked yet", kind="status", occurred_at=at(9), **project)
    hotel = stored(wa, "Choose a hotel in Lisbon", kind="open_loop", occurred_at=at(9, 5), **project)
    visa = stored(wa, "Check whether Dana needs a visa", kind="open_loop", occurred_at=at(9, 10), **project)
    stored(
        wa,
        "Book the TAP flight to Lisbon",
        kind="decision",
        why="the only direct flight",
        occurred_at=at(10),
        **project,
    )
    stored(wa, "Stay in Alfama rather than Baixa", kind="decision", occurred_at=at(11), **project)
    stored(wa, "Flights booked; hotel still open", kind="status", occurred_at=at(12), **project)
    stored(wa, "Netanel's sister lives in Haifa", occurred_at=at(12))  # not the project's
    settle()
    wa.resolve(visa, note="no visa needed")

    page = wa.project("lisbon-trip")
    assert page.path == "memory/projects/lisbon-trip.md"
    assert page.status is not None and page.status.text == "Flights booked; hotel still open"
    assert [m.id for m in page.open_loops] == [hotel]
    assert [m.id for m in page.closed_loops] == [visa]
    alfama, tap = (d.id for d in page.decisions)
    assert (
        page.markdown
        == "\n".join(
            [
                "# lisbon-trip",
                "",
                "## Status",
                "",
                f"Flights booked; hotel still open _(2026-11-20, wa-assistant)_ <!-- memory:{page.status.id} -->",
                "",
                "## Open loops",
                "",
                f"- [ ] Choose a hotel in Lisbon _(since 2026-11-20, wa-assistant)_ <!-- memory:{hotel} -->",
                "",
                "## Key decisions",
                "",
                f"- **Stay in Alfama rather than Baixa** _(2026-11-20, wa-assistant)_ <!-- memory:{alfama} -->",
                "  - why: _not recorded_",
                f"- **Book the TAP flight to Lisbon** _(2026-11-20, wa-assistant)_ <!-- memory:{tap} -->",
                "  - why: the only direct flight",
                "",
                "## Recently closed",
                "",
                f"- [x] Check whether Dana needs a visa _(2026-11-20, wa-assistant)_ <!-- memory:{visa} -->",
            ]
        )
        + "\n"
    )
    resolved = wa.memory(visa)
    assert resolved.state == "resolved"
    assert (resolved.history[-1].action, resolved.history[-1].note) == ("resolved", "no visa needed")
    assert api.post(f"/v1/memories/{visa}/resolve").status_code == 409  # already closed
    raw = api.get("/v1/projects/lisbon-trip", headers={"Accept": "text/markdown"})
    assert raw.text == page.markdown
    assert wa.project("no-such-project").markdown.startswith("# no-such-project\n\n## Status\n\n_No status")


def test_the_project_file_lists_what_else_was_said_of_the_project_as_notes_newest_first(
    make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    # A launch date said by one agent and moved by another showed nowhere on the project's page:
    # only status, loops and decisions did.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    project = {"scope": "project", "project": "atlas"}
    stored(wa, "Atlas is in beta with three pilot customers", kind="status", occurred_at=at(9), **project)
    landlord = stored(
        wa, "The Atlas designer is Yael from the Haifa studio", occurred_at=at(9, 30), **project
    )
    launch = stored(tg, "The Atlas launch date is 12 January", occurred_at=at(10), **project)
    likes = stored(
        wa,
        "Netanel wants the Atlas demos kept under ten minutes",
        kind="preference",
        occurred_at=at(11),
        **project,
    )
    moved = stored(
        wa,
        "The Atlas launch is on 26 January, not 12 January",
        kind="correction",
        related=[launch],
        occurred_at=at(12),
        **project,
    )
    stored(wa, "Netanel's sister lives in Haifa", occurred_at=at(12, 30))  # not the project's
    # A session's summary is no note (it repeats its items); the items it became are where they belong.
    wa.wait(
        wa.summarize_session(
            session="s1", tasks_completed=["Sent Yael the Atlas brief"], occurred_at=at(8), **project
        )
    )
    settle()
    assert wa.memory(launch).state == "superseded"

    page = wa.project("atlas")
    [brief] = [m.id for m in page.notes if m.text == "Sent Yael the Atlas brief"]
    assert [m.id for m in page.notes] == [moved, likes, landlord, brief]
    assert page.notes_left_out == 0
    assert (
        "\n".join(
            [
                "## Notes",
                "",
                f"- The Atlas launch is on 26 January, not 12 January (correction) _(2026-11-20, wa-assistant)_ <!-- memory:{moved} -->",
                f"- Netanel wants the Atlas demos kept under ten minutes (preference) _(2026-11-20, wa-assistant)_ <!-- memory:{likes} -->",
                f"- The Atlas designer is Yael from the Haifa studio _(2026-11-20, wa-assistant)_ <!-- memory:{landlord} -->",
                f"- Sent Yael the Atlas brief (task) _(2026-11-20, wa-assistant)_ <!-- memory:{brief} -->",
            ]
        )
        + "\n"
        in page.markdown
    )
    assert "Session s1" not in page.markdown
    assert "12 January" not in page.markdown.replace("not 12 January", "")  # the superseded date is gone


def test_the_project_file_shows_the_newest_notes_and_counts_the_rest() -> None:
    def note(i: int) -> Memory:
        when = datetime.fromisoformat(at(9, i))
        return Memory(
            id=f"00000000-0000-4000-8000-{i:012d}",
            event_id=f"note-{i}",
            text=f"Atlas note {i}",
            agent="wa",
            kind=Kind.fact,
            scope=Scope.project,
            project="atlas",
            occurred_at=when,
            confidence=Confidence.medium,
            created_at=when,
            last_verified=when,
        )

    page = render("atlas", [note(i) for i in range(NOTES_SHOWN + 3)])
    assert [m.text for m in page.notes] == [f"Atlas note {i}" for i in range(NOTES_SHOWN + 2, 2, -1)]
    assert page.notes_left_out == 3
    assert page.markdown.endswith("\n\n_3 older notes: search the project for them._\n")


def test_recently_closed_lists_the_loops_closed_last_first(
    make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    # They were listed by when they were opened: the oldest loop, closed last, was left off the ten.
    wa = make_agent("wa-assistant", "whatsapp")
    project = {"scope": "project", "project": "flat"}
    events = [
        build_event(
            f"Call supplier {name}",
            agent=wa.agent,
            channel=wa.channel,
            kind="open_loop",
            occurred_at=at(9 + i),
            **project,
        )
        for i, name in enumerate(
            ["Avi", "Bat", "Chen", "Dov", "Eli", "Gal", "Hen", "Idan", "Lior", "Maya", "Noa"]
        )
    ]
    event_ids = wa.publish_many(events)
    settle()
    loops = [s.memory_id for s in wa.statuses(event_ids) if s and s.memory_id]
    assert len(loops) == 11
    for loop in [*loops[1:], loops[0]]:
        wa.resolve(loop)
    assert [m.id for m in wa.project("flat").closed_loops] == [loops[0], *loops[:0:-1]][:CLOSED_SHOWN]


def test_the_daily_note_keeps_the_owners_days_and_clock(make_services: Callable[..., Services]) -> None:
    services = make_services(timezone="Asia/Jerusalem")  # UTC+2 in March
    agent = RedisPublisher(
        services.redis,
        agent="wa",
        prefix=services.settings.redis_prefix,
        queue_name=services.settings.queue_name,
    )
    agent.publish(
        "Late call with the Lisbon hotel", occurred_at="2026-03-10T23:30:00+00:00"
    )  # 01:30 on the 11th
    agent.publish("Booked the airport taxi", occurred_at="2026-03-10T21:00:00+00:00")  # 23:00 on the 10th
    drain_stream(services, consumer="test")

    with TestClient(create_app(services)) as api:
        tenth, eleventh = (api.get(f"/v1/daily/2026-03-{d}").json()["markdown"] for d in (10, 11))
    assert "- 23:00 Booked the airport taxi" in tenth and "Lisbon" not in tenth
    assert "- 01:30 Late call with the Lisbon hotel" in eleventh and "taxi" not in eleventh


def test_a_fact_said_again_shows_on_the_day_it_was_said_again(
    make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    # The hub folds a restatement into the memory first noted earlier: the day it was said again lost it.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    keys = stored(wa, "The spare car keys are in the blue bowl by the door", occurred_at=at(9))
    next_day = DAY + timedelta(days=1)
    restated = tg.publish(
        "The spare car keys are in the blue bowl by the door", occurred_at=at(10, 15, next_day)
    )
    assert tg.wait(restated).status == "stored"
    settle()
    assert wa.memory(keys).sightings[-1].agent == "tg-assistant"  # folded into the first

    line = f"- 10:15 The spare car keys are in the blue bowl by the door{{}} _(said again; first noted 2026-11-20 by wa-assistant)_ <!-- memory:{keys} -->"
    assert line.format("") in tg.daily(next_day.isoformat()).markdown
    assert line.format(" (tg-assistant)") in wa.daily(next_day.isoformat(), every_agent=True).markdown
    assert keys not in wa.daily(next_day.isoformat()).memory_ids  # wa did not say it that day
    first = wa.daily(DAY.isoformat()).markdown
    assert f"- 09:00 The spare car keys are in the blue bowl by the door <!-- memory:{keys} -->" in first


def test_a_day_not_written_yyyy_mm_dd_is_refused_saying_how(api: TestClient) -> None:
    # Read leniently, 20260115 would be seconds since 1970: 1970-08-23, a page of nothing.
    for day, problem in (
        ("20260115", "write the day as YYYY-MM-DD, e.g. 2026-01-15, not '20260115'"),
        ("2026-02-30", "day value is outside expected range"),
        ("9999-12-31", "day: from 0001-01-02 to 9999-12-30"),
    ):
        response = api.get(f"/v1/daily/{day}")
        assert response.status_code == 422 and problem in response.json()["message"], response.json()
    assert api.get("/v1/daily/2026-01-15").json()["day"] == "2026-01-15"


def test_a_decision_reversed_by_a_correction_shows_what_replaced_it(
    make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    # The correction is no `decision`: the reversed decision left the page and nothing took its place
    # ("_No decisions recorded._"), even when the correction named no project.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    project = {"scope": "project", "project": "lisbon-trip"}
    wa.summarize_session(
        session="s1",
        decisions=[DecisionMade(text="Stay in Alfama", why="near the old town")],
        occurred_at=at(10),
        **project,
    )
    settle()
    [alfama] = wa.project("lisbon-trip").decisions
    correction = stored(
        tg,
        "Stay in Baixa, not Alfama",
        kind="correction",
        related=[alfama.id],
        occurred_at=at(9, day=DAY + timedelta(days=2)),
    )
    settle()
    assert wa.memory(alfama.id).state == "superseded"

    page = wa.project("lisbon-trip")
    assert [d.id for d in page.decisions] == [correction]
    assert (
        "\n".join(
            [
                f"- **Stay in Baixa, not Alfama** _(2026-11-22, tg-assistant)_ <!-- memory:{correction} -->",
                "  - why: _not recorded_",
                f"  - replaces: ~~Stay in Alfama~~ <!-- memory:{alfama.id} -->",
            ]
        )
        in page.markdown
    )


def test_a_page_read_in_a_group_chat_leaves_private_memories_off(
    api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    # Pages took no chat_type: a DM's private decisions were read out in a group chat.
    wa = make_agent("wa-assistant", "whatsapp")
    project = {"scope": "project", "project": "family"}
    wa.summarize_session(
        session="dm-1",
        decisions=["Hire Ronit Levi as the divorce lawyer"],
        private=True,
        occurred_at=at(10),
        **project,
    )
    stored(wa, "Book the school trip bus", kind="decision", occurred_at=at(11), **project)
    settle()
    for path, params in (("/v1/daily/2026-11-20", {"agent": "wa-assistant"}), ("/v1/projects/family", {})):
        assert "Ronit Levi" in api.get(path, params=params).json()["markdown"]
        for accept in ("application/json", "text/markdown"):
            group = api.get(path, params={**params, "chat_type": "group"}, headers={"Accept": accept})
            assert group.status_code == 200 and "school trip bus" in group.text
            assert "Ronit" not in group.text and "divorce" not in group.text
    assert api.get("/v1/projects/family", params={"chat_type": "channel"}).status_code == 422


def test_a_memorys_text_or_a_project_name_never_makes_a_heading(
    api: TestClient, make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    # The status stood alone on its line: "# Done" became a second title, "- paid" a stray bullet.
    wa = make_agent("wa-assistant", "whatsapp")
    stored(wa, "# Done\n- paid", kind="status", scope="project", project="flat")
    stored(wa, "1. call the bank", kind="status", scope="project", project="bank")
    settle()
    flat = wa.project("flat").markdown
    assert "\n\\# Done - paid _(" in flat
    assert [line for line in flat.splitlines() if line.startswith("#")] == [
        "# flat",
        "## Status",
        "## Open loops",
        "## Key decisions",
    ]
    assert "\n1\\. call the bank _(" in wa.project("bank").markdown
    named = api.get("/v1/projects/a%0A%23%20Injected", headers={"Accept": "text/markdown"}).text
    assert named.startswith("# a # Injected\n\n## Status\n")


def test_a_client_preferring_json_gets_json(api: TestClient) -> None:
    # Any mention of text/markdown got markdown, even with a lower weight than JSON or q=0 (not acceptable).
    for accept, markdown in (
        ("text/markdown", True),
        ("text/markdown; charset=utf-8", True),
        ("application/json;q=0.5, text/markdown", True),
        ("*/*", False),
        ("application/json, text/markdown;q=0.1", False),
        ("text/markdown;q=0", False),
        ("text/markdown;q=x", False),
    ):
        response = api.get("/v1/daily/2026-11-20", headers={"Accept": accept})
        assert response.headers["content-type"].startswith("text/markdown") is markdown, accept
