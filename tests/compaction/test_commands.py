"""`memhub maintenance` against a running hub, as an operator would use it."""

import subprocess
from pathlib import Path

import pytest

from memhub_client import Memhub
from tests.helpers import memhub_cli, memhub_up

ADMIN = "operator-admin-key"


def maintenance(*args: str, url: str) -> subprocess.CompletedProcess[str]:
    return memhub_cli("maintenance", "--agent", "wa", "--dry-run", "--url", url, *args, timeout=120)


@pytest.mark.slow
def test_a_refusal_says_the_hub_refused_and_what_to_pass_not_that_it_did_not_answer(tmp_path: Path) -> None:
    # A hub that checks keys answered 401, and the command said "the hub did not answer (memhub
    # answered 401: ...); is `memhub up` running?": pointing at a hub that was running.
    env = {"MEMHUB_AUTH": "true", "MEMHUB_ADMIN_KEY": ADMIN}
    with memhub_up(tmp_path / "data", tmp_path / "up.log", env) as url:
        refused = maintenance(url=url)
        assert refused.returncode == 2
        assert refused.stderr.startswith(
            f"memhub maintenance: the hub at {url} refused it (memhub answered 401"
        )
        assert refused.stderr.rstrip().endswith("pass --api-key or set MEMHUB_API_KEY")
        assert "did not answer" not in refused.stderr and "Traceback" not in refused.stderr

        # A name with no memories (a typo) is one line naming the agents that have them, not "0 changes".
        empty = maintenance("--api-key", ADMIN, url=url)
        assert (empty.returncode, empty.stdout) == (2, "")
        assert (
            empty.stderr
            == "memhub maintenance: agent 'wa' has no memories to compact: the hub holds none yet\n"
        )
        with Memhub(url, agent="wa", api_key=ADMIN) as wa:
            assert wa.wait(wa.publish("Dana likes green tea")).status == "stored"
        typo = maintenance("--api-key", ADMIN, "--agent", "wq", url=url)
        assert (typo.returncode, typo.stdout) == (2, "")
        assert typo.stderr == (
            "memhub maintenance: agent 'wq' has no memories to compact; the agents with memories are: wa\n"
        )

        done = maintenance("--api-key", ADMIN, url=url)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("compaction of wa (dry run): would purge 0 expired")

    nobody = maintenance(url=url)  # the hub is stopped: nothing listens there
    assert nobody.returncode == 2
    assert nobody.stderr.startswith(f"memhub maintenance: the hub at {url} did not answer")
    assert "is `memhub up` running?" in nobody.stderr
