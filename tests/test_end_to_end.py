"""The user's story: two agents on two channels share one hub, each within what it may see."""

import time
from collections.abc import Callable

from memhub_client import Memhub


def texts(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.text for h in hits]


def test_two_agents_share_memory_within_scopes(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    tg = make_agent("tg-assistant", "telegram")

    published = [
        wa.publish("Netanel works until 20:00 on weekdays", confidence="high"),
        tg.publish("Netanel is allergic to peanuts", kind="fact", source="telegram:msg:881"),
        wa.publish("Dana's son starts school on 1 September", scope="person", person="Dana"),
        tg.publish("Yossi owes Netanel 300 shekels", scope="person", person="Yossi"),
        wa.publish("The kitchen renovation budget is 40,000 shekels", scope="project", project="kitchen"),
        tg.publish("The parking code at the office is closed today", scope="temporary", ttl_seconds=3),
    ]
    for event_id in published:
        assert wa.wait(event_id).status == "stored"

    # Each agent finds the other's global memories, with where they came from.
    peanut = wa.search("what is Netanel allergic to?")[0]
    assert (peanut.text, peanut.agent, peanut.channel) == (
        "Netanel is allergic to peanuts",
        "tg-assistant",
        "telegram",
    )
    assert peanut.source == "telegram:msg:881"
    assert tg.search("when does Netanel finish work?")[0].text == "Netanel works until 20:00 on weekdays"

    # A person's memories appear for that person only.
    about_dana = texts(tg.search("school starting date", person="Dana", limit=20))
    assert "Dana's son starts school on 1 September" in about_dana
    for asked in (
        tg.search("school starting date", person="Yossi", limit=100),
        tg.search("school", limit=100),
    ):
        assert "Dana's son starts school on 1 September" not in texts(asked)
    assert "Yossi owes Netanel 300 shekels" not in texts(
        wa.search("who owes money", person="Dana", limit=100)
    )

    # A project's memories appear for that project only.
    assert "The kitchen renovation budget is 40,000 shekels" in texts(wa.search("budget", project="kitchen"))
    assert "The kitchen renovation budget is 40,000 shekels" not in texts(wa.search("budget", limit=100))
    assert "The kitchen renovation budget is 40,000 shekels" not in texts(
        wa.search("budget", project="garden", limit=100)
    )

    # A temporary memory is found until it expires, then never again.
    assert "The parking code at the office is closed today" in texts(wa.search("parking at the office"))
    time.sleep(3.2)
    assert "The parking code at the office is closed today" not in texts(
        wa.search("parking at the office", limit=100)
    )


def test_scopes_and_kinds_narrow_a_search(make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa", "whatsapp")
    ids = [
        wa.publish("Netanel decided to switch to an electric car", kind="decision"),
        wa.publish("Netanel drives a grey Mazda", kind="fact"),
        wa.publish("Netanel's car service is due in March", scope="person", person="Netanel"),
    ]
    for event_id in ids:
        wa.wait(event_id)
    assert texts(wa.search("car", kinds=["decision"])) == ["Netanel decided to switch to an electric car"]
    assert texts(wa.search("car", person="Netanel", scopes=["person"])) == [
        "Netanel's car service is due in March"
    ]
