"""Closing a loop closes the older loops it answers, any agent's: through the real API, store and model."""

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from hub.closing import answers
from hub.models import Kind, State
from memhub_client import Memhub, MemhubError
from tests.store.conftest import make_memory


def at(day: int, hour: int = 9) -> datetime:
    return datetime(2026, 11, day, hour, tzinfo=UTC)


def stored(agent: Memhub, text: str, **fields: object) -> str:
    status = agent.wait(agent.publish(text, **fields))
    assert status.status == "stored" and status.memory_id, status
    return status.memory_id


def test_a_loop_is_answered_by_what_did_every_word_of_it_no_later() -> None:
    done = make_memory(
        "done", "Renewed Ido's passport at the Interior Ministry office.", kind=Kind.task, occurred_at=at(25)
    )

    def loop(text: str, day: int = 20, **fields: object) -> bool:
        return answers(
            done, make_memory(text, text, **{"kind": Kind.open_loop, "occurred_at": at(day), **fields})
        )

    assert loop("Renew Ido's passport")
    assert loop("renew passport for Ido")
    assert not loop("Renew Shira's passport")  # another child's
    assert not loop("Renew Ido's passport and book the photos")  # more than was done
    assert not loop("Renew Ido's passport", day=26)  # noted after: another time
    assert not loop("Renew", day=20)  # one word could be anything
    assert not loop("Renew Ido's passport", state=State.resolved)
    assert not loop("Renew Ido's passport", kind=Kind.fact)


@pytest.mark.slow
def test_closing_what_one_agent_did_closes_the_loop_another_noted(
    make_agent: Callable[..., Memhub], settle: Callable[[], None]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    passport = stored(wa, "Renew Ido's passport", kind="open_loop", occurred_at=at(20))
    shira = stored(wa, "Renew Shira's passport", kind="open_loop", occurred_at=at(20))
    windows = stored(wa, "Get a quote for the new windows", kind="open_loop", occurred_at=at(20))
    done = stored(
        tg,
        "Renewed Ido's passport at the Interior Ministry office.",
        kind="task",
        occurred_at=at(25),
        source="memory/daily/2026-11-25.md:5",
    )
    settle()

    closed = tg.resolve(done, note="checked off")
    assert (closed.state, closed.answered) == ("resolved", [passport])
    answered = wa.memory(passport)
    assert answered.state == "resolved"
    last = answered.history[-1]
    assert (last.action, last.by) == ("resolved", "tg-assistant")
    assert last.note == (
        "done: Renewed Ido's passport at the Interior Ministry office. "
        f"(tg-assistant on telegram, memory/daily/2026-11-25.md:5; memory {done})"
    )
    assert wa.memory(shira).state == "active" and wa.memory(windows).state == "active"
    # Closed already, it is closed once: a second closing of the done task is refused.
    with pytest.raises(MemhubError) as again:
        tg.resolve(done)
    assert again.value.status_code == 409
