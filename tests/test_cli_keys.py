"""`memhub keys` against a hub with keys turned on, as an operator would use it."""

from pathlib import Path

import pytest

from hub.redis_publisher import build_event
from memhub_client import Memhub, MemhubError
from tests.helpers import free_port, memhub_cli, memhub_up

ADMIN = "operator-admin-key"


def memhub(*args: str, url: str) -> str:
    done = memhub_cli(*args, "--url", url, "--admin-key", ADMIN, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_keys_create_list_revoke(tmp_path: Path) -> None:
    env = {"MEMHUB_AUTH": "true", "MEMHUB_ADMIN_KEY": ADMIN}
    with memhub_up(tmp_path / "data", tmp_path / "up.log", env) as url:
        with pytest.raises(MemhubError) as unauthorised, Memhub(url, agent="wa") as anonymous:
            anonymous.search("anything")
        assert unauthorised.value.status_code == 401

        created = memhub("keys", "create", "--agent", "wa", "--channels", "whatsapp", url=url)
        token = created.strip().splitlines()[-1].split(": ")[-1]
        key_id = token.split("_")[1]
        with Memhub(url, agent="wa", channel="whatsapp", api_key=token) as wa:
            assert wa.wait(wa.publish("Dana prefers green tea")).status == "stored"
            assert wa.search("tea")[0].text == "Dana prefers green tea"
            with pytest.raises(MemhubError) as forbidden:
                wa.publish_many([build_event("Dana prefers green tea", agent="tg", channel="whatsapp")])
            assert forbidden.value.status_code == 403
        assert f"{key_id}  wa" in memhub("keys", "list", url=url)

        memhub("keys", "revoke", key_id, url=url)
        with pytest.raises(MemhubError) as revoked, Memhub(url, agent="wa", api_key=token) as wa:
            wa.search("tea")
        assert revoked.value.status_code == 401


def test_keys_against_no_running_hub_says_so_without_a_traceback() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    done = memhub_cli("keys", "list", "--url", url, "--admin-key", ADMIN, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith(f"memhub: cannot reach the hub at {url}") and "Traceback" not in done.stderr
