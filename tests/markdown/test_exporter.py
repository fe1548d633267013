"""Export through the real pipeline: the round trip is exact, re-import adds nothing, git keeps it."""

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from hub.embedded import EmbeddedHub
from hub.markdown import ExportError, export_workspace, import_workspace
from hub.markdown.exporter import MARKER
from hub.markdown.reader import event_id_for
from hub.models import Tier, memory_id_for
from memhub_client import Memhub
from tests.markdown.conftest import WORKSPACE


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def stored(agent: Memhub, *event_ids: str) -> None:
    for event_id in event_ids:
        assert agent.wait(event_id).status == "stored"


def test_export_then_import_into_an_empty_hub_then_export_gives_the_same_files(
    make_agent: Callable[..., Memhub],
    make_empty_hub: Callable[[str], Memhub],
    hub: EmbeddedHub,
    tmp_path: Path,
) -> None:
    tali = make_agent("tali", "whatsapp")
    import_workspace(WORKSPACE, hub=tali)
    # Memories published live, and one the hub promoted, are written where their fields say.
    stored(
        tali,
        tali.publish("Noa renewed her passport at the Jerusalem office", tier="semantic"),
        tali.publish("Pick Maya up from school at 13:00 on Friday", kind="decision", session="wa-8812"),
        tali.publish(
            "The hotel deposit of 300 EUR is paid", kind="status", scope="project", project="lisbon-trip"
        ),
        tali.publish("Noa is on leave this week", kind="status", tier="core"),
        tali.publish("The building's gate code changes today", scope="temporary", ttl_seconds=3600),
    )
    kiwi = memory_id_for(event_id_for("tali", "memory/daily/2026-03-02.md", "Maya is allergic to kiwi."))
    hub.services.store.update(kiwi, {"tier": Tier.semantic})

    first = export_workspace(tmp_path / "first", hub=tali)
    files = tree(tmp_path / "first")
    assert list(first.left_out.values()) == ["temporary: it expires, so it is not written to files"]
    long_term = files["MEMORY.md"].decode()
    assert "- [FACT] 2026-03-02: Maya is allergic to kiwi." in long_term  # promoted, with its day
    assert "- [DEDUCED] Noa does not want meetings before 10:00 — evidence: declined four 9:00" in long_term
    assert "Noa renewed her passport at the Jerusalem office" in long_term
    assert (
        "## wa-8812\n\n### Decisions made\n\n- Pick Maya up from school"
        in files[f"memory/daily/{first_day(tali, 'Pick Maya up from school at 13:00 on Friday')}.md"].decode()
    )
    assert "The hotel deposit of 300 EUR is paid" in files["memory/projects/lisbon-trip.md"].decode()
    assert "## Active Context" in files["memory/core.md"].decode()
    assert (
        "Dana's birthday is on 14 July. / Dana's birthday is on 14 June."
        in files["memory/conflicts/open.md"].decode()
    )
    assert not any(b"ghp_" in text or b"Tz8#" in text for text in files.values())
    assert files[MARKER] == b"memhub export of agent tali\n"

    empty = make_empty_hub("tali")
    moved_in = import_workspace(tmp_path / "first", hub=empty)
    assert (moved_in.skipped, moved_in.refused, moved_in.merged) == ([], [], 0)
    export_workspace(tmp_path / "second", hub=empty)
    assert tree(tmp_path / "second") == files

    again = import_workspace(tmp_path / "first", hub=empty)
    assert (again.imported, again.merged, again.already_present) == (0, 0, moved_in.imported)


def first_day(agent: Memhub, text: str) -> str:
    [memory] = [m for m in agent.all_memories() if m.text == text]
    return memory.occurred_at.date().isoformat()


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def test_export_commits_to_git_and_mirrors_the_hub(
    make_agent: Callable[..., Memhub], hub: EmbeddedHub, tmp_path: Path
) -> None:
    tali = make_agent("tali")
    import_workspace(WORKSPACE, hub=tali)
    backup = tmp_path / "backup"

    first = export_workspace(backup, hub=tali, git=True)
    assert first.commit is not None and git(backup, "rev-parse", "HEAD").strip() == first.commit
    assert git(backup, "status", "--porcelain") == ""
    assert export_workspace(backup, hub=tali, git=True).commit is None  # nothing changed, nothing committed

    # Memories gone from the hub leave the backup too; the next commit says so.
    day = [m.id for m in tali.all_memories() if (m.source or "").startswith("memory/2026-03-04.md")]
    hub.services.store.delete(day)
    later = export_workspace(backup, hub=tali, git=True, message="nightly backup")
    assert later.removed == ["memory/2026-03-04.md"] and not (backup / "memory/2026-03-04.md").exists()
    assert git(backup, "log", "--format=%s").splitlines() == [
        "nightly backup",
        "memhub export of tali: 54 memories",
    ]


def test_export_refuses_to_write_over_a_folder_it_did_not_write(
    make_agent: Callable[..., Memhub], tmp_path: Path
) -> None:
    live = shutil.copytree(WORKSPACE, tmp_path / "workspace")
    with pytest.raises(ExportError, match="not empty and not a memhub export"):
        export_workspace(live, hub=make_agent("tali"))
    export_workspace(tmp_path / "dana-backup", hub=make_agent("dana"))
    with pytest.raises(ExportError, match="export of another agent"):
        export_workspace(tmp_path / "dana-backup", hub=make_agent("tali"))
    assert tree(live) == tree(WORKSPACE)


def test_a_closed_loop_is_exported_checked_off_and_imported_closed(
    make_agent: Callable[..., Memhub], make_empty_hub: Callable[[str], Memhub], tmp_path: Path
) -> None:
    # A loop closed in the hub was written as an open one: the agent reading the export would take it
    # up again, and importing the export opened it again. A `- [x]` loop imported as open too.
    workspace = tmp_path / "workspace"
    (workspace / "memory" / "projects").mkdir(parents=True)
    (workspace / "memory" / "projects" / "kitchen.md").write_text(
        "# kitchen\n\n## Open loops\n\n- [ ] Pick the grout colour.\n- [x] Order the tiles.\n",
        encoding="utf-8",
    )
    tali = make_agent("tali")
    report = import_workspace(workspace, hub=tali)
    assert (report.imported, report.closed) == (2, 1)
    states = {m.text: m.state for m in tali.all_memories()}
    assert states == {"Pick the grout colour.": "active", "Order the tiles.": "resolved"}
    again = import_workspace(workspace, hub=tali)
    assert (again.already_present, again.closed, again.notes) == (2, 0, [])

    [grout] = [m for m in tali.all_memories() if m.text == "Pick the grout colour."]
    tali.resolve(grout.id)
    first = tmp_path / "first"
    export_workspace(first, hub=tali)
    assert (first / "memory/projects/kitchen.md").read_text(encoding="utf-8") == (
        "# kitchen\n\n## Open loops\n\n- [x] Pick the grout colour.\n- [x] Order the tiles.\n"
    )

    fresh = make_empty_hub("tali")
    assert import_workspace(first, hub=fresh).closed == 2
    assert {m.state for m in fresh.all_memories()} == {"resolved"}
    second = tmp_path / "second"
    export_workspace(second, hub=fresh)
    assert tree(second) == tree(first)


def test_a_private_memory_stays_private_through_export_and_import(
    make_agent: Callable[..., Memhub], make_empty_hub: Callable[[str], Memhub], tmp_path: Path
) -> None:
    # It was written like any other line, and came back from an import for group chats to find.
    tali = make_agent("tali", "whatsapp")
    stored(tali, tali.publish("Dana's divorce lawyer is Ronit Levi", private=True, id="lawyer"))
    first = tmp_path / "first"
    export_workspace(first, hub=tali)
    [day] = (first / "memory" / "daily").iterdir()
    assert "- [PRIVATE] Dana's divorce lawyer is Ronit Levi\n" in day.read_text(encoding="utf-8")

    fresh = make_empty_hub("tali")
    import_workspace(first, hub=fresh)
    assert [(m.text, m.private) for m in fresh.all_memories()] == [
        ("Dana's divorce lawyer is Ronit Levi", True)
    ]
    assert fresh.search("Dana's lawyer", chat_type="group") == []
    second = tmp_path / "second"
    export_workspace(second, hub=fresh)
    assert tree(second) == tree(first)
