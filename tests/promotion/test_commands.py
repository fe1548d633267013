"""`memhub promotions list|approve|reject|weekly` as the owner runs them, against `memhub up` in its own process."""

import time
from pathlib import Path

import pytest

from hub.promotion.proposals import ProposalView
from memhub_client import Memhub
from tests.helpers import free_port, memhub_cli, memhub_up

FLYER = "Netanel's frequent flyer programme is TAP Miles&Go"
PASSPORT = "Netanel's passport expires in March 2031"
COFFEE = "Netanel likes his coffee black"


def scored(wa: Memhub, timeout: float = 60) -> list[ProposalView]:
    """The pending proposals once both nominated facts and the one-off preference are scored (scoring is a
    job of its own, after the review `wait` waits for)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = wa.promotions()
        if len(found) == 2 and wa.weekly_review().items:
            return found
        time.sleep(0.2)
    raise AssertionError(f"not scored after {timeout} s: {wa.promotions(status=None)}")


def listed(proposal: ProposalView) -> list[str]:
    return [
        f"{proposal.id}  episodic → semantic  score 2  pending, project lisbon-trip: "
        "named for long-term memory in a session summary",
        f"  {proposal.text}",
        f"     wa-assistant, project scope; memory {proposal.memory_id}",
        "  - nominated: named for long-term memory in a session summary by wa-assistant",
        f"  decide: memhub promotions approve {proposal.id} / reject {proposal.id}",
        "",
    ]


@pytest.mark.slow
def test_the_owner_lists_the_pending_proposals_and_decides_them(tmp_path: Path) -> None:
    owner = {"MEMHUB_AUTH": "false"}  # one owner on one machine: no keys
    up = memhub_up(tmp_path / "data", tmp_path / "up.log", owner)
    with up as url, Memhub(url, agent="wa-assistant", channel="whatsapp") as wa:
        summary = wa.summarize_session(
            session="trip", promote=[FLYER, PASSPORT], scope="project", project="lisbon-trip"
        )
        assert wa.wait(summary).status == "stored"
        coffee = wa.wait(wa.publish(COFFEE, kind="preference")).memory_id
        first, second = scored(wa)
        by_text = {first.text: first, second.text: second}
        flyer, passport = by_text[FLYER], by_text[PASSPORT]

        shown = memhub_cli("promotions", "list", "--url", url)
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.splitlines() == [*listed(first), *listed(second), "2 proposal(s), pending"]

        # The owner says yes to one: its memory moves up a tier.
        assert wa.memory(flyer.memory_id).tier == "episodic"
        approved = memhub_cli("promotions", "approve", flyer.id, "--note", "keep it", "--url", url)
        assert approved.returncode == 0, approved.stderr
        assert approved.stdout.splitlines() == [
            *[line.replace("  pending,", "  approved,") for line in listed(flyer)[:4]],
            "  decided by owner: keep it",
        ]
        assert wa.memory(flyer.memory_id).tier == "semantic"

        again = memhub_cli("promotions", "reject", flyer.id, "--url", url)
        assert again.returncode == 1 and again.stdout == ""
        assert f"409: proposal {flyer.id} is already approved" in again.stderr
        unknown = memhub_cli("promotions", "approve", "p-missing", "--url", url)
        assert unknown.returncode == 1 and "404: no proposal with id 'p-missing'" in unknown.stderr

        # And no to the other: its memory stays where it is.
        rejected = memhub_cli("promotions", "reject", passport.id, "--url", url)
        assert rejected.returncode == 0, rejected.stderr
        assert rejected.stdout.splitlines()[-1] == "  decided by owner"
        assert wa.memory(passport.memory_id).tier == "episodic"
        assert memhub_cli("promotions", "list", "--url", url).stdout == "0 proposal(s), pending\n"
        every = memhub_cli("promotions", "list", "--status", "rejected", "--url", url).stdout
        assert every.startswith(f"{passport.id}  episodic → semantic  score 2  rejected,")
        assert every.endswith("\n1 proposal(s), rejected\n")

        # The preference said once has a signal, short of a proposal: it waits on the weekly review.
        weekly = memhub_cli("promotions", "weekly", "--url", url)
        assert weekly.returncode == 0, weekly.stderr
        assert weekly.stdout.splitlines() == [
            f"{coffee}  episodic  score 1  wa-assistant: {COFFEE}",
            "  supporting signals only: future_use (a preference: it will matter again)",
            "",
            "1 memory(ies) to review, stated in the last 7 day(s)",
        ]

    gone = memhub_cli("promotions", "list", "--url", f"http://127.0.0.1:{free_port()}")
    assert gone.returncode == 1 and "cannot reach the hub" in gone.stderr
