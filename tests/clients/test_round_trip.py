"""Two agents on one hub through the client alone, as a newcomer runs them against `memhub up`.

The hub is shared by the clients' tests: the people named here are named by no other test."""

import pytest

from memhub_client import Memhub


@pytest.mark.slow
def test_two_agents_publish_search_and_see_their_conflict(hub_url: str) -> None:
    with (
        Memhub(hub_url, agent="rt-wa", channel="whatsapp") as wa,
        Memhub(hub_url, agent="rt-tg", channel="telegram") as tg,
    ):
        wa.wait(wa.publish("Omer works until 20:00", source="wa:msg:1841"))
        tg.wait(tg.publish("Maya's son starts school on 1 September", scope="person", person="Maya"))
        tg.wait(tg.publish("Omer finishes work at 18:00"))  # contradicts the WhatsApp agent

        hits = tg.search("when does Omer finish work?")[:2]
        assert {h.agent for h in hits} == {"rt-wa", "rt-tg"}
        assert hits[0].text == "Omer finishes work at 18:00"  # the newer side first
        (conflict,) = tg.conflicts()
        assert all(h.conflict_ids == [conflict.id] for h in hits)
        assert conflict.agents == ["rt-wa", "rt-tg"] and conflict.proposal == hits[0].id
        # A person's memories only when asked for that person.
        school = "Maya's son starts school on 1 September"
        assert [h.text for h in wa.search("school", person="Maya")][:1] == [school]
        assert school not in [h.text for h in wa.search("school")]
