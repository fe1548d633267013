"""The review console in a real browser: Playwright driving Debian's Chromium against a running hub.

`.ci/run` installs Chromium; where none is installed the tests are skipped, unless
MEMHUB_TEST_REQUIRE_BROWSER is set (CI sets it), when they fail. CONSOLE_SCREENSHOT=docs/console.png
saves the console, with a conflict, a question and a proposal waiting, where it says.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from playwright.sync_api import Browser, Page, expect, sync_playwright

from hub.api.app import create_app
from hub.conflicts import ledger
from hub.conflicts.ledger import ConflictStatus
from hub.embedded import EmbeddedHub
from hub.models import State, Tier
from hub.promotion import proposals
from hub.promotion.proposals import ProposalStatus
from hub.services import Services
from memhub_client import Memhub
from tests.helpers import free_port

# The ledger and its policy, on the verdicts the rule grammar gives these statements.
pytestmark = pytest.mark.usefixtures("rule_judge")

ADMIN = "admin-secret-for-the-console"
FLYER = "Netanel's frequent flyer programme is TAP Miles&Go"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    chromium = shutil.which("chromium")
    if chromium is None:
        if os.environ.get("MEMHUB_TEST_REQUIRE_BROWSER"):
            pytest.fail("no chromium on PATH: apt-get install chromium (as .ci/run does)")
        pytest.skip("no chromium on PATH: apt-get install chromium to run the console's browser tests")
    with sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        launched = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """`app` on a real port, as `memhub api` serves it; its URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, access_log=False)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the API did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def running(make_services: Callable[..., Services]) -> Iterator[tuple[str, Services]]:
    """A hub with keys on, its API on a real port: the URL and the services."""
    hub = EmbeddedHub(services=make_services(auth=True, admin_key=ADMIN), redis_server=None)
    hub.start_workers(1, sweep_interval=0.5)
    try:
        with serving(create_app(hub.services)) as url:
            yield url, hub.services
    finally:
        hub.stop()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


def stored(agent: Memhub, text: str, **fields: object) -> str:
    status = agent.wait(agent.publish(text, **fields))
    assert status.status == "stored" and status.memory_id, status
    return status.memory_id


def eventually(check: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not reached in time"
        time.sleep(0.2)


def sign_in(page: Page, url: str, key: str = ADMIN) -> None:
    page.goto(f"{url}/console")
    page.get_by_label("API key").fill(key)
    page.get_by_role("button", name="Sign in").click()


def test_the_owner_decides_a_conflict_and_approves_a_proposal_in_the_console(
    running: tuple[str, Services], page: Page
) -> None:
    url, services = running
    with (
        Memhub(url, agent="wa-assistant", channel="whatsapp", api_key=ADMIN) as wa,
        Memhub(url, agent="tg-assistant", channel="telegram", api_key=ADMIN) as tg,
    ):
        works_late = stored(wa, "Netanel works until 20:00", source="wa:msg:1841")
        finishes_early = stored(tg, "Netanel finishes work at 18:00", source="tg:msg:77")
        stored(wa, "Netanel is allergic to peanuts", source="wa:msg:1902")
        stored(tg, "Netanel has no food allergies", source="tg:msg:80")
        summary = wa.summarize_session(
            session="trip", promote=[FLYER], scope="project", project="lisbon-trip"
        )
        assert wa.wait(summary).status == "stored"
        eventually(lambda: len(wa.promotions()) == 1 and len(wa.conflicts(status="open")) == 2)
        [conflict] = [c for c in wa.conflicts(status="open") if c.memory_ids == [works_late, finishes_early]]
        [proposal] = wa.promotions()

    sign_in(page, url)
    card = page.locator(f'[data-conflict="{conflict.id}"]')
    expect(card).to_contain_text("Netanel works until 20:00")
    expect(card).to_contain_text("Netanel finishes work at 18:00")
    for shown in ("wa-assistant", "tg-assistant", "whatsapp", "telegram", "wa:msg:1841", "tg:msg:77"):
        expect(card).to_contain_text(shown)
    expect(card.locator(".side.proposed")).to_contain_text("Netanel finishes work at 18:00")  # the proposal
    expect(page.locator(".question")).to_have_count(2)  # the allergy, asked by each agent
    expect(page.locator(".question").first).to_contain_text("Which one is right?")
    if target := os.environ.get("CONSOLE_SCREENSHOT"):
        page.screenshot(path=target, full_page=True)

    # The owner keeps the earlier statement, against the proposal, with a note: one click.
    card.get_by_placeholder("A note (optional)").fill("He moved back to the late shift")
    card.get_by_role("button", name="Keep 1").click()
    expect(card.get_by_role("status")).to_have_text("Decided: Keep 1.")

    page.get_by_role("button", name="Promotions").click()
    offered = page.locator(f'[data-proposal="{proposal.id}"]')
    expect(offered).to_contain_text(FLYER)
    expect(offered).to_contain_text("nominated")
    offered.get_by_role("button", name="Approve").click()
    expect(offered.get_by_role("status")).to_have_text("Approved: moved to semantic.")

    # The hub's state shows both decisions: the ledger, the loser superseded, the tier moved.
    decided = ledger.get(services.redis, services.keys, conflict.id)
    assert decided is not None and decided.status is ConflictStatus.resolved and decided.resolution
    assert (decided.resolution.keep, decided.resolution.by) == (works_late, "owner")
    assert decided.resolution.note == "He moved back to the late shift"
    kept, lost = services.store.get([works_late]) + services.store.get([finishes_early])
    assert (kept.state, lost.state, lost.superseded_by) == (State.active, State.superseded, works_late)
    approved = proposals.get(services.redis, services.keys, proposal.id)
    assert approved is not None and approved.status is ProposalStatus.approved
    assert services.store.get([proposal.memory_id])[0].tier is Tier.semantic


def test_the_owner_finds_a_memory_reads_its_history_forgets_it_and_replays_a_dead_letter(
    running: tuple[str, Services], page: Page
) -> None:
    url, services = running
    with Memhub(url, agent="wa-assistant", channel="whatsapp", api_key=ADMIN) as wa:
        # An agent's words are shown as words, never run as the page's own markup.
        odd = stored(wa, 'Dana said <img src=x onerror="document.title=1"> about the tiles')
    services.redis.xadd(services.keys.stream, {"id": "bad-1", "event": "not json"})
    eventually(lambda: services.redis.llen(services.keys.dead_letters) == 1)

    sign_in(page, url)
    page.get_by_role("button", name="Memories").click()
    page.get_by_placeholder("Search every memory").fill("what did Dana say about the tiles?")
    page.get_by_role("button", name="Search").click()
    card = page.locator(f'[data-memory="{odd}"]')
    expect(card.locator("blockquote")).to_have_text(
        'Dana said <img src=x onerror="document.title=1"> about the tiles'
    )
    assert page.title() == "memhub · review console"
    card.get_by_role("button", name="History").click()
    expect(card.locator("dl")).to_contain_text("episodic")
    page.once("dialog", lambda dialog: dialog.accept())
    card.get_by_role("button", name="Forget").click()
    expect(card.get_by_role("status")).to_have_text("Forgotten.")
    assert services.store.get([odd]) == []

    page.get_by_role("button", name="Core blocks").click()
    page.get_by_placeholder("agent, e.g. wa-assistant").fill("wa-assistant")
    page.get_by_role("button", name="Load").click()
    expect(page.locator("pre")).to_contain_text("Identity")

    page.get_by_role("button", name="Dead letters").click()
    letter = page.locator('[data-event="bad-1"]')
    expect(letter).to_contain_text("not valid JSON")
    letter.get_by_role("button", name="Replay").click()
    expect(letter.get_by_role("status")).to_have_text("Replayed: back on the stream.")


def test_a_limited_key_is_refused_and_without_keys_the_console_opens_directly(
    running: tuple[str, Services], page: Page, make_services: Callable[..., Services], tmp_path: Path
) -> None:
    url, services = running
    made = httpx.post(
        f"{url}/v1/keys",
        json={"agent": "wa-assistant", "grants": {"projects": ["kitchen"]}},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    limited = made.json()["token"]
    sign_in(page, url, limited)
    expect(page.locator("#sign-in .error")).to_contain_text("limited to some scopes")
    expect(page.locator("#tabs")).to_be_hidden()

    with serving(create_app(make_services(auth=False, data_dir=tmp_path / "single-user"))) as open_url:
        page.goto(f"{open_url}/console")
        expect(page.get_by_role("heading", name="Open conflicts (0)")).to_be_visible()
        expect(page.locator("#sign-in")).to_be_hidden()
