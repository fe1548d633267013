"""`memhub import` and `memhub export` as a user runs them, against `memhub up` in its own process."""

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.helpers import free_port, memhub_cli, memhub_up
from tests.markdown.conftest import WORKSPACE


@pytest.mark.slow
def test_import_and_export_commands(tmp_path: Path) -> None:
    # No API keys: one owner on one machine, in Jerusalem, whose files' times are in that zone.
    owner = {"MEMHUB_AUTH": "false", "MEMHUB_TIMEZONE": "Asia/Jerusalem"}
    with memhub_up(tmp_path / "data", tmp_path / "up.log", owner) as url:
        dry = memhub_cli("import", str(WORKSPACE), "--agent", "tali", "--url", url, "--dry-run", "--quiet")
        assert dry.returncode == 0, dry.stderr
        assert "would import      55" in dry.stdout

        done = memhub_cli(
            "import", str(WORKSPACE), "--agent", "tali", "--channel", "whatsapp", "--url", url, env=owner
        )
        assert done.returncode == 0, done.stderr
        assert "(times in Asia/Jerusalem)" in done.stdout  # MEMHUB_TIMEZONE, as the hub's
        assert "imported          54" in done.stdout and "merged            1" in done.stdout
        assert "MEMORY.md:19: holds a secret (password) in its text" in done.stdout
        assert "reading: 100%" in done.stderr and "storing: 100%" in done.stderr  # the progress bars
        # The session headed "09:40" was read in the hub's zone: read as UTC, the page said 11:40.
        day = httpx.get(f"{url}/v1/daily/2026-03-02", params={"agent": "tali"}).json()["markdown"]
        assert "(tali, 09:40)" in day and "(tali, 18:15)" in day

        backup = tmp_path / "backup"
        # Exported in UTC, a line dated by its file (midnight in Jerusalem) went to the day before's file.
        exported = memhub_cli(
            "export", str(backup), "--agent", "tali", "--url", url, "--git", "--quiet", env=owner
        )
        assert exported.returncode == 0, exported.stderr
        assert "54 memories into 12 files" in exported.stdout and "committed" in exported.stdout
        assert "(times in Asia/Jerusalem)" in exported.stdout
        assert (backup / "memory/projects/lisbon-trip.md").is_file() and (backup / ".git").is_dir()

        refused = memhub_cli("export", str(WORKSPACE), "--agent", "tali", "--url", url, "--quiet")
        assert refused.returncode == 2 and "not a memhub export" in refused.stderr

        # Read by a `head` that quit before the report: it ended in a traceback.
        piped = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "hub.cli",
                "import",
                str(WORKSPACE),
                "--agent",
                "tali",
                "--url",
                url,
                "--quiet",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert piped.stdout is not None
        piped.stdout.close()  # long before the command starts to write
        _, stderr = piped.communicate(timeout=300)
        assert piped.returncode == 141 and "Traceback" not in stderr, stderr
    gone = memhub_cli("import", str(WORKSPACE), "--url", url, "--quiet")
    assert gone.returncode == 2 and "is `memhub up` running?" in gone.stderr


def test_a_command_that_cannot_start_says_why_in_one_line(tmp_path: Path) -> None:
    # Each of these ended in a Python traceback; an empty agent name had every line skipped instead.
    layout = tmp_path / "layout.toml"
    layout.write_text('daily = ["journal/{day}.md"]\n')
    target = tmp_path / "MEMORY.md"
    target.write_text("- a file, not a folder\n")
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens: each fails before asking the hub
    for args, error in [
        (
            ["import", str(WORKSPACE), "--layout", str(layout)],
            f"memhub import: {layout}: daily: 'journal/{{day}}.md' needs {{date}}",
        ),
        (
            ["import", str(WORKSPACE), "--layout", str(tmp_path / "nope.toml")],
            f"memhub import: {tmp_path / 'nope.toml'}: No such file or directory",
        ),
        (
            ["export", str(tmp_path / "out"), "--timezone", "Mars/Base"],
            "memhub export: timezone: no time zone called 'Mars/Base'",
        ),
        (["export", str(target)], f"memhub export: {target} is a file: export writes a folder"),
        (
            ["import", str(WORKSPACE), "--agent", " "],
            "memhub import: error: argument --agent: ' ' is not an agent's name: 1 to 200 characters",
        ),
    ]:
        done = memhub_cli(*args, "--url", url, "--quiet")
        assert (done.returncode, done.stderr.strip().splitlines()[-1], done.stdout) == (2, error, ""), args
        assert "Traceback" not in done.stderr
