"""Where each kind of memory file lives, and what its path says."""

from datetime import date
from pathlib import Path

import pytest

from hub.markdown.layout import FileKind, Layout, LayoutError, load_layout


@pytest.mark.parametrize(
    ("path", "kind", "params"),
    [
        ("MEMORY.md", FileKind.long_term, {}),
        ("memory/core.md", FileKind.core, {}),
        ("memory/daily/2026-03-02.md", FileKind.daily, {"date": "2026-03-02"}),
        ("memory/2026-03-04.md", FileKind.daily, {"date": "2026-03-04"}),
        ("memory/conflicts/2026-03-05.md", FileKind.conflicts, {"date": "2026-03-05"}),
        ("memory/projects/lisbon-trip.md", FileKind.project, {"project": "lisbon-trip"}),
        ("memory/archival/people/dana.md", FileKind.archival, {"category": "people", "name": "dana"}),
        (
            "memory/archival/people/family/dana.md",
            FileKind.archival,
            {"category": "people", "name": "family/dana"},
        ),
        ("memory/archival/misc.md", FileKind.archival, {"name": "misc"}),
        (
            "memory/whatsapp/groups/1203@g.us/context.md",
            FileKind.chat,
            {"channel": "whatsapp", "chat_type": "groups", "chat": "1203@g.us"},
        ),
        (
            "memory/telegram/dms/42/context.md",
            FileKind.chat,
            {"channel": "telegram", "chat_type": "dms", "chat": "42"},
        ),
    ],
)
def test_classify(path: str, kind: FileKind, params: dict[str, str]) -> None:
    ref = Layout().classify(path)
    assert ref is not None and (ref.kind, ref.params) == (kind, params)


@pytest.mark.parametrize(
    "path",
    ["README.md", "memory/2026-02-30.md", "memory/notes.md", "memory/conflicts/open.md", "memory/x/y.md"],
)
def test_other_files_are_not_memory_files(path: str) -> None:
    assert Layout().classify(path) is None


def test_a_layout_file_moves_the_paths(tmp_path: Path) -> None:
    config = tmp_path / "layout.toml"
    config.write_text('daily = ["journal/{date}.md"]\ntimezone = "Asia/Jerusalem"\n')
    layout = load_layout(config)
    ref = layout.classify("journal/2026-03-02.md")
    assert ref is not None and ref.kind is FileKind.daily and ref.day == date(2026, 3, 2)
    assert layout.classify("memory/daily/2026-03-02.md") is None
    assert layout.ref(FileKind.daily, date="2026-03-03").path == "journal/2026-03-03.md"
    assert str(layout.tz) == "Asia/Jerusalem"
    assert str(load_layout(config, timezone="Europe/Lisbon").tz) == "Asia/Jerusalem"  # the file's own
    config.write_text('daily = ["journal/{date}.md"]\n')
    assert str(load_layout(config, timezone="Europe/Lisbon").tz) == "Europe/Lisbon"  # the owner's
    assert str(load_layout(config).tz) == "UTC"
    config.write_text('dialy = ["x/{date}.md"]\n')
    with pytest.raises(ValueError, match="unknown layout keys"):
        load_layout(config)


@pytest.mark.parametrize(
    ("toml", "error"),
    [
        # Each of these raised a KeyError from deep inside import or export, file by file.
        ('project = ["notes/{name}.md"]', "project: 'notes/{name}.md' needs {project}"),
        ('daily = ["journal/{day}.md"]', "daily: 'journal/{day}.md' needs {date}"),
        (
            'daily = ["journal/{date}-{slug}.md"]',
            "daily: export writes 'journal/{date}-{slug}.md' (the first pattern) and has no value for {slug}",
        ),
        ("daily = []", "daily: needs at least one path pattern"),
        ("daily = 3", "daily is a path pattern or a list of them, not 3"),
        ('timezone = "Mars/Base"', "timezone: no time zone called 'Mars/Base'"),
        ('daily = ["journal/{date}.md"', "not TOML (Unclosed array"),
    ],
)
def test_a_layout_import_or_export_could_not_use_is_refused_naming_the_key(
    tmp_path: Path, toml: str, error: str
) -> None:
    config = tmp_path / "layout.toml"
    config.write_text(toml + "\n")
    with pytest.raises(LayoutError) as raised:
        load_layout(config)
    assert str(raised.value).startswith(f"{config}: {error}")


def test_a_second_pattern_may_name_more_than_export_writes(tmp_path: Path) -> None:
    config = tmp_path / "layout.toml"
    config.write_text('daily = ["memory/daily/{date}.md", "memory/{date}-{slug}.md"]\n')
    ref = load_layout(config).classify("memory/2026-01-16-vendor-pitch.md")
    assert ref is not None and ref.day == date(2026, 1, 16)
    with pytest.raises(LayoutError, match="No such file"):
        load_layout(tmp_path / "missing.toml")
