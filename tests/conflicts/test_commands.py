"""`memhub conflicts list|resolve` as the owner runs them, against `memhub up` in its own process."""

from pathlib import Path

import pytest

from memhub_client import Memhub
from tests.helpers import memhub_cli, memhub_up


@pytest.mark.slow
def test_the_owner_lists_the_open_conflicts_and_decides_one(tmp_path: Path) -> None:
    owner = {"MEMHUB_AUTH": "false"}  # one owner on one machine: no keys
    with memhub_up(tmp_path / "data", tmp_path / "up.log", owner) as url:
        wa, tg = (
            Memhub(url, agent="wa-assistant", channel="whatsapp"),
            Memhub(url, agent="tg-assistant", channel="telegram"),
        )
        with wa, tg:
            late = wa.wait(wa.publish("Netanel works until 20:00", source="wa:msg:1")).memory_id
            early = tg.wait(tg.publish("Netanel finishes work at 18:00", source="tg:msg:7")).memory_id
            [conflict] = tg.conflicts(status="open")

            listed = memhub_cli("conflicts", "list", "--url", url)
            assert listed.returncode == 0, listed.stderr
            assert listed.stdout.splitlines() == [
                f"{conflict.id}  medium  open: {conflict.reason}",
                "  1. Netanel works until 20:00",
                f"     wa-assistant on whatsapp, wa:msg:1; memory {late}",
                "  2. Netanel finishes work at 18:00  (proposed)",
                f"     tg-assistant on telegram, tg:msg:7; memory {early}",
                f"  decide: memhub conflicts resolve {conflict.id} --keep 1|2|both",
                "",
                "1 conflict(s), open",
            ]

            wrong = memhub_cli("conflicts", "resolve", conflict.id, "--keep", "3", "--url", url)
            assert wrong.returncode == 2 and "--keep takes 1, 2, both" in wrong.stderr

            # The owner says the WhatsApp agent had it right: the other side is superseded.
            decided = memhub_cli(
                "conflicts", "resolve", conflict.id, "--keep", "1", "--note", "he told me so", "--url", url
            )
            assert decided.returncode == 0, decided.stderr
            assert "  1. Netanel works until 20:00  (kept)" in decided.stdout
            assert "  decided by owner: he told me so" in decided.stdout
            assert (wa.memory(late).state, wa.memory(early).state) == ("active", "superseded")

            again = memhub_cli("conflicts", "resolve", conflict.id, "--keep", "2", "--url", url)
            assert again.returncode == 1 and "409" in again.stderr and "already resolved" in again.stderr
            assert memhub_cli("conflicts", "list", "--url", url).stdout == "0 conflict(s), open\n"
            every = memhub_cli("conflicts", "list", "--status", "all", "--url", url).stdout
            assert f"{conflict.id}  medium  resolved" in every
