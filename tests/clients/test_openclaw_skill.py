"""The OpenClaw skill's commands, run exactly as its SKILL.md spells them, against `memhub up`."""

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import yaml

from memhub_client import Memhub
from tests.helpers import ROOT

SKILL = ROOT / "clients" / "openclaw" / "memhub-memory" / "SKILL.md"


def front_matter_and_blocks() -> tuple[dict[str, object], list[str]]:
    text = SKILL.read_text()
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), re.findall(r"```bash\n(.*?)```", body, flags=re.S)


def agent_path(folder: Path) -> str:
    """A PATH where `memhub-agent` is the client's command: installed beside this Python, or (the
    client on the path but not installed) a stand-in that runs the same module."""
    installed = Path(sys.executable).parent
    if not (installed / "memhub-agent").exists():
        (folder / "memhub-agent").write_text(
            f'#!/bin/sh\nexec {sys.executable} -m memhub_client.agent_cli "$@"\n'
        )
        (folder / "memhub-agent").chmod(0o755)
        installed = folder
    return f"{installed}{os.pathsep}{os.environ['PATH']}"


def test_the_skill_says_when_to_use_it_and_what_it_needs() -> None:
    front, blocks = front_matter_and_blocks()
    assert front["name"] == SKILL.parent.name
    assert (
        isinstance(front["description"], str) and "Use at the start of every session" in front["description"]
    )
    requires = front["metadata"]["openclaw"]["requires"]  # type: ignore[index]
    assert requires == {"bins": ["memhub-agent"], "env": ["MEMHUB_URL", "MEMHUB_AGENT"]}
    commands = {
        line.split()[1] for block in blocks for line in block.splitlines() if line.startswith("memhub-agent")
    }
    assert commands == {"core", "questions", "recall", "remember", "summary"}


@pytest.mark.slow
def test_the_skills_commands_keep_a_session_summary_and_a_deduction_and_recall_them(
    hub_url: str, tmp_path: Path
) -> None:
    agent = f"skill-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "PATH": agent_path(tmp_path),
        "MEMHUB_URL": hub_url,
        "MEMHUB_AGENT": agent,
        "MEMHUB_CHANNEL": "whatsapp",
    }
    _, blocks = front_matter_and_blocks()
    said = []
    for block in blocks:  # as an agent's shell runs them: each block a script, stopping at a failure
        run = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block], env=env, capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 0, f"{block}\n{run.stdout}\n{run.stderr}"
        said.append(run.stdout)

    # The summary's decision, recalled by the command the skill gives after it.
    assert "Fly TAP to Lisbon on 10 April" in said[-1]
    with Memhub(hub_url, agent="skill-reader") as other:  # and by another agent of the owner's
        (deduction,) = [
            h for h in other.search("when does Yael plan trips?", agents=[agent]) if h.kind == "deduced"
        ][:1]
        assert deduction.text == "Yael seems to plan trips on Sunday evenings"
        pattern = other.search("which flights does Yael prefer?", agents=[agent], kinds=["deduced"])[0]
        assert pattern.text == "Yael prefers morning flights" and pattern.channel == "whatsapp"
    with Memhub(hub_url, agent=agent) as itself:
        memory = itself.memory(deduction.id)
        assert memory.evidence == [
            "asked about Lisbon flights on Sunday 3 May at 21:00",
            "booked the Eilat hotel on Sunday 10 May at 20:30",
        ]
        assert itself.memory(pattern.id).evidence == ["chose the 07:10 flight over the 15:40 one"]
        assert {h.text for h in itself.search("Lisbon trip", kinds=["summary", "decision", "open_loop"])} >= {
            "Fly TAP to Lisbon on 10 April",
            "Renew Ido's passport before the Lisbon trip",
        }


@pytest.mark.slow
def test_a_question_for_the_owner_is_answered_with_the_line_the_command_prints(
    hub_url: str, tmp_path: Path
) -> None:
    run_id = uuid.uuid4().hex[:8]
    env = {**os.environ, "PATH": agent_path(tmp_path), "MEMHUB_URL": hub_url}

    def shell(line: str, name: str, channel: str) -> str:
        """`line` in the shell of agent `name`, set up as the skill says (MEMHUB_AGENT, MEMHUB_CHANNEL)."""
        agent_env = {**env, "MEMHUB_AGENT": f"{name}-{run_id}", "MEMHUB_CHANNEL": channel}
        done = subprocess.run(
            ["bash", "-c", line], env=agent_env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    # An allergy said both ways: a high-severity conflict, put to the owner.
    shell('memhub-agent remember "Noa is allergic to peanuts"', "wa", "whatsapp")
    shell('memhub-agent remember "Noa is not allergic to peanuts"', "tg", "telegram")
    printed = shell("memhub-agent questions", "tg", "telegram")
    assert "ask in telegram" in printed, printed
    answer = next(line.split(": ", 1)[1] for line in printed.splitlines() if line.startswith("  "))
    assert answer.startswith("memhub-agent resolve ")
    assert " resolved: kept " in shell(answer, "tg", "telegram")  # the line as printed
    assert "no questions for the owner" in shell("memhub-agent questions", "tg", "telegram")
