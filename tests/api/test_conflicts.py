"""Conflicts across agents, through the real pipeline: detect, record, resolve."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import pytest
from starlette.testclient import TestClient

from hub.api.app import create_app
from hub.conflicts import ledger
from hub.conflicts.ledger import Conflict, ConflictStatus, Position
from hub.conflicts.resolve import settle_moot, supersede
from hub.embedded import EmbeddedHub
from hub.models import utcnow
from hub.services import Services
from memhub_client import Memhub
from tests.helpers import at_once, expire

# The ledger and its policy, on the verdicts the rule grammar gives these statements.
pytestmark = pytest.mark.usefixtures("rule_judge")


def publish_all(agent: Memhub, *texts: str, **fields: object) -> list[str]:
    """Publish one by one, each stored before the next, as chat turns arrive."""
    memory_ids = []
    for text in texts:
        status = agent.wait(agent.publish(text, **fields))
        assert status.status == "stored"
        memory_ids.append(status.memory_id)
    return memory_ids


def conflicts(api: TestClient, **params: str) -> list[dict]:  # type: ignore[type-arg]
    response = api.get("/v1/conflicts", params=params)
    assert response.status_code == 200
    return response.json()["conflicts"]  # type: ignore[no-any-return]


def allergy_question(
    api: TestClient, wa: Memhub, tg: Memhub, person: str = "Netanel"
) -> tuple[str, str, dict]:  # type: ignore[type-arg]
    """Two agents contradict each other on an allergy: a high-severity conflict put to the owner.
    The two memory ids, and the conflict."""
    [allergic] = publish_all(wa, f"{person} is allergic to peanuts")
    [not_allergic] = publish_all(tg, f"{person} has no food allergies")
    [conflict] = [
        c for c in conflicts(api, severity="high") if set(c["memory_ids"]) == {allergic, not_allergic}
    ]
    return allergic, not_allergic, conflict


def test_two_agents_contradicting_each_other_make_one_open_conflict(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    [works_late] = publish_all(wa, "Netanel works until 20:00", source="wa:msg:1")
    [finishes_early] = publish_all(tg, "Netanel finishes work at 18:00", source="tg:msg:7")
    publish_all(tg, "Dana works until 18:00")

    [conflict] = conflicts(api)
    assert conflict["memory_ids"] == [works_late, finishes_early]
    assert conflict["statements"] == ["Netanel works until 20:00", "Netanel finishes work at 18:00"]
    assert conflict["agents"] == ["wa-assistant", "tg-assistant"]
    assert conflict["channels"] == ["whatsapp", "telegram"]
    assert conflict["sources"] == ["wa:msg:1", "tg:msg:7"]
    assert (conflict["status"], conflict["severity"]) == ("open", "medium")
    assert conflict["proposal"] == finishes_early  # medium: a proposal waits for a decision
    assert api.get(f"/v1/conflicts/{conflict['id']}").json() == conflict

    # Search marks both sides of the open conflict.
    hits = {h.id: h.model_dump() for h in tg.search("when does Netanel finish work?")}
    assert hits[works_late]["conflict_ids"] == [conflict["id"]]
    assert hits[finishes_early]["conflict_ids"] == [conflict["id"]]


def test_a_memory_naming_its_person_and_one_naming_no_one_are_compared(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    # The review looked for older memories as a search naming the new one's person would: a global
    # memory published with person="Noa" was out of sight of one that named no one, and no conflict.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    [allergic] = publish_all(wa, "Noa is allergic to penicillin", person="Noa")
    [not_allergic] = publish_all(tg, "Noa is not allergic to anything")

    [conflict] = conflicts(api)
    assert conflict["memory_ids"] == [allergic, not_allergic]
    assert conflict["severity"] == "high"
    # And a search that names no one finds both, the newer first.
    assert [h.id for h in tg.search("is Noa allergic to any medicine?")][:2] == [not_allergic, allergic]


def test_a_memory_naming_no_one_is_compared_with_a_projects_but_two_projects_are_not(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    # A project's memory was out of sight of a later one that named no project, so the change was
    # paired with the closest memory in sight instead ("we're going to Lisbon in April").
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    [flight] = publish_all(wa, "The flight is on 9 April", scope="project", project="lisbon-trip")
    publish_all(wa, "The flight is on 12 April", scope="project", project="porto-trip")
    assert conflicts(api) == []  # each project's flight is its own
    [moved] = publish_all(tg, "The Lisbon flight is on 10 April")

    [conflict] = conflicts(api)  # the Lisbon flight's, not the Porto one's
    assert conflict["memory_ids"] == [flight, moved]
    assert conflict["reason"] == "value changed: April 9 → April 10"
    # Filed as the project's conflict, found by its filter.
    assert (conflict["scope"], conflict["project"]) == ("project", "lisbon-trip")
    assert [c["id"] for c in conflicts(api, project="lisbon-trip")] == [conflict["id"]]


def test_the_same_fact_twice_is_one_memory_reinforced_and_no_conflict(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    [first] = publish_all(wa, "Netanel works until 20:00")
    [second] = publish_all(tg, "Netanel works until 8pm")

    assert second == first  # the restatement points at the memory it reinforced
    assert conflicts(api) == []
    memory = api.get(f"/v1/memories/{first}").json()
    assert [s["agent"] for s in memory["sightings"]] == ["wa-assistant", "tg-assistant"]
    assert memory["history"][-1]["action"] == "reinforced"
    assert len(wa.search("Netanel work hours", limit=50)) == 1


def test_a_correction_supersedes_at_once(api: TestClient, make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa-assistant", "whatsapp")
    [old] = publish_all(wa, "Netanel's dentist appointment is on Tuesday")
    [new] = publish_all(wa, "Netanel's dentist appointment is on Thursday", kind="correction")

    [conflict] = conflicts(api)
    assert conflict["status"] == "resolved" and conflict["resolution"]["keep"] == new
    superseded = api.get(f"/v1/memories/{old}").json()
    assert (superseded["state"], superseded["superseded_by"]) == ("superseded", new)
    assert superseded["history"][-1]["action"] == "superseded"
    assert [h.id for h in wa.search("dentist appointment", limit=50)] == [new]
    assert {h.id for h in wa.search("dentist appointment", include_superseded=True, limit=50)} == {old, new}


def test_a_correction_that_names_its_target_supersedes_only_that(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    [other] = publish_all(wa, "Netanel's dentist appointment is on Tuesday")
    [named] = publish_all(tg, "Netanel's dentist appointment is on Monday")
    [new] = publish_all(
        tg, "Netanel's dentist appointment is on Thursday", kind="correction", related=[named]
    )

    assert api.get(f"/v1/memories/{named}").json()["superseded_by"] == new
    # What the correction did not name is contradicted, not overruled: the owner decides.
    assert api.get(f"/v1/memories/{other}").json()["state"] == "active"
    [open_conflict] = [c for c in conflicts(api) if set(c["memory_ids"]) == {other, new}]
    assert open_conflict["status"] == "open"


def test_a_low_severity_conflict_resolves_itself_with_a_note(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    [old] = publish_all(wa, "Netanel's favourite colour is blue")
    [new] = publish_all(tg, "Netanel's favourite colour is green")

    [conflict] = conflicts(api)
    assert (conflict["severity"], conflict["status"]) == ("low", "auto_resolved")
    assert conflict["resolution"]["keep"] == new and conflict["resolution"]["by"] == "hub"
    assert "newer statement wins" in conflict["resolution"]["note"]
    superseded = api.get(f"/v1/memories/{old}").json()
    assert superseded["state"] == "superseded"
    assert superseded["history"][-1]["note"].startswith(f"conflict {conflict['id']}: low severity")


def test_a_high_severity_conflict_is_a_question_answered_through_resolve(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    allergic, not_allergic, conflict = allergy_question(api, wa, tg)
    assert conflict["status"] == "open"
    [question] = api.get("/v1/questions", params={"agent": "tg-assistant"}).json()["questions"]
    assert question["conflict_id"] == conflict["id"] and question["ask_in"] == "telegram"
    assert set(question["options"].values()) == {allergic, not_allergic, "both"}
    assert api.get("/v1/questions", params={"agent": "someone-else"}).json()["questions"] == []

    answer = api.post(
        f"/v1/conflicts/{conflict['id']}/resolve", json={"keep": allergic, "note": "owner: yes, peanuts"}
    )
    assert answer.status_code == 200
    assert answer.json()["status"] == "resolved" and answer.json()["resolution"]["by"] == "owner"
    loser = api.get(f"/v1/memories/{not_allergic}").json()
    assert loser["superseded_by"] == allergic
    # Its history names the conflict decided, as well as the owner's note.
    assert (loser["history"][-1]["by"], loser["history"][-1]["note"]) == (
        "owner",
        f"conflict {conflict['id']}: owner: yes, peanuts",
    )
    assert api.get("/v1/questions", params={"agent": "tg-assistant"}).json()["questions"] == []
    again = api.post(f"/v1/conflicts/{conflict['id']}/resolve", json={"keep": "both"})
    # The second answer is told the decision that stands, to tell the owner.
    at = answer.json()["resolution"]["at"].replace("Z", "+00:00")
    assert (again.status_code, again.json()["detail"]) == (
        409,
        f"conflict {conflict['id']} is already resolved: owner kept memory {allergic} at {at}",
    )


def test_resolve_names_what_to_fix(api: TestClient, make_agent: Callable[..., Memhub]) -> None:
    wa = make_agent("wa", "whatsapp")
    publish_all(wa, "Netanel works until 20:00", "Netanel works until 17:00")
    [conflict] = conflicts(api)
    bad = api.post(f"/v1/conflicts/{conflict['id']}/resolve", json={"keep": "not-a-memory"})
    assert bad.status_code == 422 and "keep: expected one of" in bad.json()["detail"]
    assert api.post("/v1/conflicts/c-missing/resolve", json={"keep": "both"}).status_code == 404
    dismissed = api.post(f"/v1/conflicts/{conflict['id']}/resolve", json={"keep": "both"}).json()
    assert dismissed["status"] == "dismissed"


def test_until_the_owner_decides_the_newer_side_ranks_first(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    [late] = publish_all(wa, "Netanel works until 20:00")
    [early] = publish_all(tg, "Netanel finishes work at 18:00")  # says nothing of a change
    [conflict] = conflicts(api)
    assert conflict["memory_ids"] == [late, early] and conflict["status"] == "open"

    # Asked in the older memory's words: the open conflict puts the newer side first, both flagged.
    hits = wa.search("Until what time does Netanel work?", limit=2)
    assert [h.id for h in hits] == [early, late]
    assert all(h.conflict_ids == [conflict["id"]] for h in hits)
    # Once the owner keeps the older one, it stands alone.
    resolved = api.post(f"/v1/conflicts/{conflict['id']}/resolve", json={"keep": late})
    assert resolved.status_code == 200, resolved.text
    assert [h.id for h in wa.search("Until what time does Netanel work?", limit=2)][:1] == [late]


def test_the_owners_names_make_a_note_about_them_and_their_own_words_one_subject(
    make_services: Callable[..., Services],
) -> None:
    hub = EmbeddedHub(services=make_services(owner_names=["Yael"]), redis_server=None)
    hub.start_workers(1, sweep_interval=0.5)
    try:
        with TestClient(create_app(hub.services)) as api:
            wa = Memhub(agent="wa-assistant", channel="whatsapp", client=api)
            tg = Memhub(agent="tg-assistant", channel="telegram", client=api)
            [katz] = publish_all(wa, "Yael's dentist is Dr. Katz")
            [levi] = publish_all(tg, "My dentist is Dr. Levi")  # the owner's message, kept as she said it
            [conflict] = conflicts(api)
            assert (conflict["memory_ids"], conflict["reason"]) == (
                [katz, levi],
                "value changed: Dr Katz → Dr Levi",
            )
    finally:
        hub.stop()


def test_an_agent_repeating_what_the_owner_corrected_does_not_win(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    # The Telegram agent never heard the owner's correction: newer, it is still not the one to keep,
    # not even automatically for a low-severity conflict, and it does not rank above the correction.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    [fixed] = publish_all(wa, "Netanel's favourite colour is green, not blue", kind="correction")
    [stale] = publish_all(tg, "Netanel's favourite colour is blue")
    [conflict] = conflicts(api)
    assert (conflict["severity"], conflict["status"], conflict["proposal"]) == ("low", "open", fixed)
    hits = tg.search("What is Netanel's favourite colour?", limit=2)
    assert [h.id for h in hits] == [fixed, stale]
    assert all(h.conflict_ids == [conflict["id"]] for h in hits)
    # A later change of the corrected fact is news: it is proposed, as a newer statement is.
    [later] = publish_all(tg, "Netanel's favourite colour is red now")
    [news] = [c for c in conflicts(api) if later in c["memory_ids"] and fixed in c["memory_ids"]]
    assert news["proposal"] == later


def test_a_reported_change_is_asked_as_a_replacement_and_ranked_first(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    # The rules see no value to compare ("raised my metformin"); the change it reports is a conflict
    # with the closest memory, high for a dose, so the owner is asked. Nothing is resolved meanwhile.
    wa, tg = make_agent("wa-assistant", "whatsapp"), make_agent("tg-assistant", "telegram")
    [old] = publish_all(wa, "Lakshmi takes Metformin 500mg twice a day.")
    [new] = publish_all(tg, "Lakshmi: the doctor raised my metformin to 1000 mg morning and night")

    [conflict] = conflicts(api)
    assert conflict["memory_ids"] == [old, new] and conflict["inferred"]
    assert (conflict["status"], conflict["severity"], conflict["proposal"]) == ("open", "high", new)
    [question] = api.get("/v1/questions", params={"agent": "wa-assistant"}).json()["questions"]
    assert "Does the new note replace the earlier one?" in question["question"]
    assert set(question["options"].values()) == {old, new, "both"}
    hits = [h.id for h in wa.search("What dose of metformin does Lakshmi take?")]
    assert hits.index(new) < hits.index(old)


def test_a_correction_that_superseded_a_memory_is_never_folded_away(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    [thursday] = publish_all(wa, "Netanel's dentist appointment is on Thursday")
    [monday] = publish_all(tg, "Netanel's dentist appointment is on Monday")
    # Said exactly as the Thursday memory says it: folded into it, it would leave Monday superseded by
    # a memory that no longer exists.
    [correction] = publish_all(
        tg, "Netanel's dentist appointment is on Thursday", kind="correction", related=[monday]
    )
    assert correction != thursday
    assert api.get(f"/v1/memories/{monday}").json()["superseded_by"] == correction
    assert api.get(f"/v1/memories/{correction}").status_code == 200


def test_a_conflict_about_a_memory_corrected_since_is_settled_not_asked(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    allergic, not_allergic, conflict = allergy_question(api, wa, tg)
    assert len(api.get("/v1/questions", params={"agent": "tg"}).json()["questions"]) == 1
    [correction] = publish_all(
        wa, "Netanel is allergic to tree nuts, not peanuts", kind="correction", related=[allergic]
    )

    settled = api.get(f"/v1/conflicts/{conflict['id']}").json()
    assert (settled["status"], settled["resolution"]["keep"]) == ("auto_resolved", not_allergic)
    assert settled["resolution"]["note"] == f"memory {allergic} was corrected by {correction}"
    assert api.get(f"/v1/memories/{not_allergic}").json()["state"] == "active"  # nothing else changed
    assert api.get("/v1/questions", params={"agent": "tg"}).json()["questions"] == []


def test_a_memory_superseded_since_the_conflict_cannot_be_kept(
    api: TestClient, hub: EmbeddedHub, make_agent: Callable[..., Memhub]
) -> None:
    wa = make_agent("wa", "whatsapp")
    late, early = publish_all(wa, "Netanel works until 20:00", "Netanel works until 17:00")
    [conflict] = conflicts(api)
    # Superseded in the store alone (as a compaction merge does), the conflict still open.
    [copy] = publish_all(wa, "Netanel's shift ends at 8pm", kind="status")
    supersede(hub.services.store, loser=late, winner=copy, by="compaction", note="merged")
    refused = api.post(f"/v1/conflicts/{conflict['id']}/resolve", json={"keep": late})
    assert refused.status_code == 409, refused.text
    assert (
        refused.json()["detail"]
        == f"keep: memory {late} was superseded by {copy} since; keep the other or 'both'"
    )
    assert api.get(f"/v1/memories/{early}").json()["state"] == "active"  # nothing was changed
    assert api.post(f"/v1/conflicts/{conflict['id']}/resolve", json={"keep": "both"}).status_code == 200


def test_two_answers_at_once_one_applies_and_the_other_is_refused(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    # A high-severity question goes to every agent in the conflict: the owner may answer on both.
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    for person in ("Netanel", "Dana", "Avi", "Yael"):
        allergic, not_allergic, conflict = allergy_question(api, wa, tg, person)
        path = f"/v1/conflicts/{conflict['id']}/resolve"
        answers = at_once(
            *(partial(api.post, path, json={"keep": keep}) for keep in (allergic, not_allergic))
        )
        codes = [answer.status_code for answer in answers]
        assert sorted(codes) == [200, 409]
        states = [api.get(f"/v1/memories/{m}").json()["state"] for m in (allergic, not_allergic)]
        assert sorted(states) == ["active", "superseded"]


def test_a_fact_is_never_folded_into_a_temporary_or_private_copy(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    [temporary] = publish_all(
        wa, "The plumber Moshe comes on Sunday at 10:00", scope="temporary", ttl_seconds=600
    )
    [lasting] = publish_all(tg, "The plumber Moshe comes on Sunday at 10:00")
    [private] = publish_all(wa, "Netanel sees the therapist Dr. Orit Ben-David", private=True)
    [public] = publish_all(tg, "Netanel sees the therapist Dr. Orit Ben-David")
    # Folded, the fact would expire with the temporary copy, or vanish from group chats with the private one.
    assert lasting != temporary and public != private
    assert api.get(f"/v1/memories/{lasting}").json()["scope"] == "global"
    assert [
        h.id for h in tg.search("Netanel therapist", chat_type="group", limit=10) if h.id in (public, private)
    ] == [public]


def test_a_temporary_statement_does_not_win_automatically_over_a_lasting_one(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    [blue] = publish_all(wa, "Netanel's favourite colour is blue")
    publish_all(tg, "Netanel's favourite colour is green", scope="temporary", ttl_seconds=600)
    [conflict] = conflicts(api)
    # Low severity resolves itself for two lasting memories; here the owner decides.
    assert (conflict["severity"], conflict["status"]) == ("low", "open")
    assert api.get(f"/v1/memories/{blue}").json()["state"] == "active"


def test_a_memory_expired_since_the_conflict_cannot_be_kept(
    api: TestClient, hub: EmbeddedHub, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    [lasting] = publish_all(wa, "Netanel works until 20:00")
    [temporary] = publish_all(tg, "Netanel works until 17:00", scope="temporary", ttl_seconds=600)
    [conflict] = conflicts(api)
    assert conflict["status"] == "open"  # a temporary statement never wins automatically
    expire(hub.services.store, temporary)  # not purged yet: no compaction has run
    # Kept, it would leave the lasting memory superseded by one no search returns.
    refused = api.post(f"/v1/conflicts/{conflict['id']}/resolve", json={"keep": temporary})
    assert refused.status_code == 409, refused.text
    assert refused.json()["detail"].startswith(f"keep: memory {temporary} expired at ")
    assert refused.json()["detail"].endswith("; keep the other or 'both'")
    assert api.get(f"/v1/memories/{lasting}").json()["state"] == "active"
    assert [h.id for h in wa.search("Until when does Netanel work?", limit=5)] == [lasting]
    kept = api.post(f"/v1/conflicts/{conflict['id']}/resolve", json={"keep": lasting})
    assert kept.status_code == 200 and kept.json()["resolution"]["keep"] == lasting


def test_a_question_about_two_claims_said_in_the_same_words_shows_each_value(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    claim = {"subject": "Dana", "attribute": "blood type"}
    [a_plus] = publish_all(wa, "Dana's blood type", value="A+", **claim)
    [o_minus] = publish_all(tg, "Dana's blood type", value="O-", **claim)
    [conflict] = conflicts(api, severity="high")
    [question] = api.get("/v1/questions", params={"agent": "tg"}).json()["questions"]
    # Keyed by the words alone, one answer would have hidden the other, and neither said its value.
    assert question["options"] == {
        "Dana's blood type (blood type: A+)": a_plus,
        "Dana's blood type (blood type: O-)": o_minus,
        "both are right": "both",
    }
    assert (
        '"Dana\'s blood type (blood type: A+)" and "Dana\'s blood type (blood type: O-)"'
        in question["question"]
    )
    assert question["conflict_id"] == conflict["id"]


def test_no_one_is_asked_to_choose_a_memory_that_expired_or_was_superseded_since(
    api: TestClient, hub: EmbeddedHub, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    [allergic] = publish_all(wa, "Netanel is allergic to peanuts")
    [temporary] = publish_all(tg, "Netanel has no food allergies", scope="temporary", ttl_seconds=600)
    allergic_too, _, _ = allergy_question(api, wa, tg, "Dana")
    assert len(api.get("/v1/questions", params={"agent": "wa"}).json()["questions"]) == 2
    expire(hub.services.store, temporary)  # not purged yet: no compaction has run
    [copy] = publish_all(wa, "Dana gets hives from peanuts", kind="status")
    supersede(hub.services.store, loser=allergic_too, winner=copy, by="compaction", note="merged")
    # Either answer naming them would be refused (409): the questions wait for the conflicts to settle.
    assert api.get("/v1/questions", params={"agent": "wa"}).json()["questions"] == []
    assert {c["status"] for c in conflicts(api, severity="high")} == {"open"}


def test_a_schedule_said_as_a_wish_waits_for_the_owner(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    # A schedule is medium, whatever verb carries it: graded low (a taste), the newer time won
    # automatically and the older was superseded without anyone deciding.
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    [four] = publish_all(wa, "Dana wants to be picked up at 16:00")
    [five] = publish_all(tg, "Dana wants to be picked up at 17:00")
    [conflict] = conflicts(api)
    assert (conflict["severity"], conflict["status"], conflict["proposal"]) == ("medium", "open", five)
    assert api.get(f"/v1/memories/{four}").json()["state"] == "active"


SECRET_NOTE = "he reset it, the new alarm password is Zq7#kP2!mW9x"


def test_a_decision_whose_note_holds_a_secret_is_refused_and_nothing_is_kept(
    api: TestClient, make_agent: Callable[..., Memhub]
) -> None:
    # The note went into the ledger and the loser's history unscreened, and the by into both.
    wa = make_agent("wa", "whatsapp")
    [late, _] = publish_all(wa, "Netanel works until 20:00", "Netanel works until 17:00")
    [conflict] = conflicts(api)
    for body in ({"keep": late, "note": SECRET_NOTE}, {"keep": late, "by": "owner, password: Zq7#kP2!mW9x"}):
        refused = api.post(f"/v1/conflicts/{conflict['id']}/resolve", json=body)
        assert refused.status_code == 422, refused.text
        assert "password" in refused.text and "Zq7#kP2!mW9x" not in refused.text
    ledger = api.get(f"/v1/conflicts/{conflict['id']}")
    assert ledger.json()["status"] == "open" and "Zq7#kP2" not in ledger.text
    assert "Zq7#kP2" not in api.get(f"/v1/memories/{late}").text  # nor in its history

    # Closing a loop and deciding a proposal keep their notes the same way.
    for path in ("/v1/memories/m-1/resolve", "/v1/promotions/p-1/approve", "/v1/promotions/p-1/reject"):
        refused = api.post(path, json={"note": SECRET_NOTE})
        assert refused.status_code == 422 and "Zq7#kP2!mW9x" not in refused.text, path


# Paging. Conflicts recorded straight into the hub's ledger (the real one, in the test's Redis): a
# ledger of a thousand takes a second that way, and hours through the pipeline.
LONG_AGO = datetime(2025, 1, 1, tzinfo=UTC)


def recorded(
    hub: EmbeddedHub,
    count: int,
    *,
    name: str = "c",
    at: datetime = LONG_AGO,
    step: timedelta = timedelta(minutes=1),
    each: Callable[[int], dict[str, Any]] = lambda i: {},
    **fields: Any,
) -> list[Conflict]:
    """`count` conflicts in the ledger, `step` apart from `at`, with `fields` and `each(i)`'s; newest first."""
    made = []
    for i in range(count):
        when = at + step * i
        values: dict[str, Any] = {
            "id": f"{name}-{i:04d}",
            "memory_ids": [f"m-{name}-{i}-old", f"m-{name}-{i}-new"],
            "statements": [
                f"Netanel works until 20:00 ({name} {i})",
                f"Netanel works until 18:00 ({name} {i})",
            ],
            "agents": ["wa", "tg"],
            "channels": ["whatsapp", "telegram"],
            "sources": [None, None],
            "severity": "medium",
            "reason": "a different hour for the same thing",
            "scope": "global",
            "created_at": when,
            "updated_at": when,
        }
        conflict = Conflict.model_validate({**values, **fields, **each(i)})
        assert ledger.record(hub.services.redis, hub.services.keys, conflict)
        made.append(conflict)
    return newest_first(made)


def newest_first(made: list[Conflict]) -> list[Conflict]:
    """The ledger's order: newest first, and between two recorded at the same instant, the greater id."""
    return sorted(made, key=lambda c: (c.created_at, c.id), reverse=True)


def pages(api: TestClient, path: str, key: str, offset: str | None = None, **params: Any) -> list[list[str]]:
    """The ids on each page, following `next_offset` from `offset` to the last page."""
    found = []
    while True:
        response = api.get(path, params={**params, **({"offset": offset} if offset else {})})
        assert response.status_code == 200, response.text
        found.append([item["conflict_id" if key == "questions" else "id"] for item in response.json()[key]])
        offset = response.json()["next_offset"]
        if offset is None:
            return found
        assert len(found) < 1_000, "next_offset never ends"


def test_the_ledger_is_listed_page_by_page_newest_first_each_conflict_once(
    api: TestClient, hub: EmbeddedHub
) -> None:
    # Three recorded at the same instant as c-0004: ties are ordered by id, never left to chance.
    made = recorded(hub, 9) + recorded(
        hub, 3, name="tie", at=LONG_AGO + timedelta(minutes=4), step=timedelta(0)
    )
    expected = [c.id for c in newest_first(made)]

    listed = pages(api, "/v1/conflicts", "conflicts", limit=5)
    assert [len(page) for page in listed] == [5, 5, 2]
    assert [i for page in listed for i in page] == expected
    whole = api.get("/v1/conflicts").json()  # the default page holds up to 500
    assert [c["id"] for c in whole["conflicts"]] == expected and whole["next_offset"] is None
    # One at a time, a page can start behind a whole read of its instant's earlier ones.
    assert pages(api, "/v1/conflicts", "conflicts", limit=1) == [[i] for i in expected]
    # A last page that is exactly full says so: no offset to an empty page.
    assert pages(api, "/v1/conflicts", "conflicts", limit=12) == [expected]


def test_a_conflict_recorded_between_two_pages_shifts_nothing_between_them(
    api: TestClient, hub: EmbeddedHub
) -> None:
    # Counted from the top, each new conflict would push one already read onto the next page (read
    # twice), and one recorded out of turn below the cursor would skip one.
    made = recorded(hub, 10)
    first = api.get("/v1/conflicts", params={"limit": 4}).json()
    assert [c["id"] for c in first["conflicts"]] == [c.id for c in made[:4]]

    recorded(hub, 3, name="new", at=utcnow())  # newer than everything: before page one
    [late] = recorded(hub, 1, name="late", at=made[6].created_at)  # a worker's clock behind: among the rest
    rest = pages(api, "/v1/conflicts", "conflicts", offset=first["next_offset"], limit=4)
    expected_rest = [c.id for c in newest_first([*made[4:], late])]
    assert [i for page in rest for i in page] == expected_rest
    assert [len(page) for page in rest] == [4, 3]
    # Read from the top again, the new conflicts come first.
    assert [c["id"] for c in conflicts(api)[:3]] == ["new-0002", "new-0001", "new-0000"]


def test_filters_and_pages_together_across_the_whole_ledger(api: TestClient, hub: EmbeddedHub) -> None:
    # Filters are read from the documents: a page of the few that match is gathered from as much of
    # the ledger as it takes (here more than one read of it).
    made = recorded(
        hub,
        1_200,
        each=lambda i: {
            "agents": ["wa", "sms"] if i % 7 == 0 else ["tg", "mail"],
            "status": "resolved" if i % 3 == 0 else "open",
            "severity": "high" if i % 2 else "medium",
        },
    )
    wanted = [c.id for c in made if "wa" in c.agents and c.open]
    assert len(wanted) == 114
    listed = pages(api, "/v1/conflicts", "conflicts", agent="wa", status="open", limit=50)
    assert [len(page) for page in listed] == [50, 50, 14]
    assert [i for page in listed for i in page] == wanted
    high = [c.id for c in made if c.severity == "high" and c.agents[0] == "tg"]
    listed = pages(api, "/v1/conflicts", "conflicts", agent="tg", severity="high", limit=1_000)
    assert [i for page in listed for i in page] == high and len(listed) == 1
    assert pages(api, "/v1/conflicts", "conflicts", agent="nobody", limit=10) == [[]]


def test_an_agents_conflicts_have_an_index_of_their_own_built_once_for_an_older_ledger(
    api: TestClient, hub: EmbeddedHub
) -> None:
    # Every SDK read names its agent: paged from the whole ledger, an agent with few conflicts among
    # many had its page gathered from all of them.
    made = recorded(hub, 600, each=lambda i: {"agents": ["wa", "sms"] if i % 100 == 0 else ["tg", "mail"]})
    redis, keys = hub.services.redis, hub.services.keys
    # A ledger from before the indexes.
    redis.delete(*redis.keys(keys.agent_conflicts("*")), keys.agent_conflicts_built)

    wanted = [c.id for c in made if "wa" in c.agents]
    assert pages(api, "/v1/conflicts", "conflicts", agent="wa", limit=4) == [wanted[:4], wanted[4:]]
    assert redis.zcard(ledger.agent_index(redis, keys, "wa")) == 6
    assert redis.zcard(ledger.agent_index(redis, keys, "mail")) == 594
    # Recorded from now on, a conflict joins its agents' indexes at once.
    [new] = recorded(hub, 1, name="new", at=utcnow(), agents=["wa", "tg"])
    assert pages(api, "/v1/conflicts", "conflicts", agent="wa", limit=10) == [[new.id, *wanted]]
    assert conflicts(api, agent="sms") == [c for c in conflicts(api, limit="1000") if "sms" in c["agents"]]


def open_ids(hub: EmbeddedHub) -> list[str]:
    """The open conflicts' index, newest first."""
    redis, keys = hub.services.redis, hub.services.keys
    return [i.decode() for i in redis.zrevrange(ledger.open_index(redis, keys), 0, -1)]


def test_a_conflict_decided_leaves_the_open_index_and_the_questions(
    api: TestClient, hub: EmbeddedHub, make_agent: Callable[..., Memhub]
) -> None:
    # An agent polling its questions had them gathered from every decided conflict it was a side of.
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    [tea] = publish_all(wa, "Dana prefers green tea")
    [violin] = publish_all(tg, "Avi plays the violin on Tuesdays")
    made = recorded(
        hub,
        12,
        memory_ids=[tea, violin],
        severity="high",
        each=lambda i: {"status": "resolved"} if i % 3 == 0 else {},
    )
    still_open = [c.id for c in made if c.open]
    assert open_ids(hub) == still_open and len(still_open) == 8
    assert [q.conflict_id for q in tg.questions()] == still_open

    answered = still_open.pop(2)
    assert api.post(f"/v1/conflicts/{answered}/resolve", json={"keep": "both"}).status_code == 200
    assert open_ids(hub) == still_open
    assert [q.conflict_id for q in tg.questions()] == still_open
    assert [c["id"] for c in conflicts(api, status="open")] == still_open
    assert [c["id"] for c in conflicts(api, status="open", agent="wa")] == still_open
    # Settled because a side no longer stands (merged, corrected, purged): the rest leave it too.
    redis, keys = hub.services.redis, hub.services.keys
    assert len(settle_moot(redis, keys, tea, why="merged", by="compaction")) == 7
    assert open_ids(hub) == [] and tg.questions() == [] and conflicts(api, status="open") == []


def test_an_older_ledger_has_its_open_conflicts_indexed_once(api: TestClient, hub: EmbeddedHub) -> None:
    made = recorded(
        hub,
        1_200,
        each=lambda i: {
            "agents": ["wa", "fax"] if i % 400 == 0 else ["wa", "sms"] if i % 7 == 0 else ["tg", "mail"],
            "status": "open" if i % 40 == 0 else ("resolved", "auto_resolved", "dismissed")[i % 3],
        },
    )
    redis, keys = hub.services.redis, hub.services.keys
    redis.delete(keys.open_conflicts, keys.open_conflicts_built)
    assert not redis.exists(keys.open_conflicts, keys.open_conflicts_built)  # a ledger from before the index

    still_open = [c.id for c in made if c.open]
    assert len(still_open) == 30
    listed = pages(api, "/v1/conflicts", "conflicts", status="open", limit=7)
    assert listed == [still_open[i : i + 7] for i in range(0, 30, 7)]
    assert open_ids(hub) == still_open
    # An agent's open ones: read from whichever index is smaller, its own or the open one.
    for agent, count in (("wa", 7), ("fax", 3)):
        theirs = [c.id for c in made if c.open and agent in c.agents]
        assert len(theirs) == count
        listed = pages(api, "/v1/conflicts", "conflicts", status="open", agent=agent, limit=2)
        assert listed == [theirs[i : i + 2] for i in range(0, count, 2)]
    # Built again (two hubs reading an older ledger at once), it holds the same.
    redis.delete(keys.open_conflicts_built)
    assert open_ids(hub) == still_open
    # Recorded or decided from now on, a conflict joins or leaves it at once.
    [new] = recorded(hub, 1, name="new", at=utcnow())
    assert api.post(f"/v1/conflicts/{still_open[0]}/resolve", json={"keep": "both"}).status_code == 200
    assert open_ids(hub) == [new.id, *still_open[1:]]


def test_the_open_index_built_while_conflicts_are_decided_holds_only_open_ones(hub: EmbeddedHub) -> None:
    # The build reads a conflict open; a decision saves it and leaves the index (where it is not yet);
    # the build adds it: decided, it would stay among the open ones. Decisions overlap the build here.
    redis, keys = hub.services.redis, hub.services.keys
    made = recorded(hub, 2_000)
    for round_ in range(5):
        redis.delete(keys.open_conflicts, keys.open_conflicts_built)
        deciding = [c for c in reversed(made) if c.open][:300]  # the build reads oldest first

        def decide(conflicts: list[Conflict] = deciding) -> None:
            for conflict in conflicts:
                conflict.status = ConflictStatus.dismissed
                ledger.save(redis, keys, conflict)

        at_once(partial(ledger.open_index, redis, keys), decide)
        assert open_ids(hub) == [c.id for c in made if c.open], f"round {round_}"


@pytest.mark.parametrize("agent", [None, "wa"])
def test_open_conflicts_come_page_by_page_as_conflicts_arrive_and_are_decided(
    api: TestClient, hub: EmbeddedHub, agent: str | None
) -> None:
    made = recorded(
        hub,
        60,
        each=lambda i: {"status": "dismissed"} if i % 3 else {"agents": ["tg", "sms"]} if i % 4 else {},
    )
    redis, keys = hub.services.redis, hub.services.keys
    mine = [c for c in made if c.open and (agent is None or agent in c.agents)]
    assert len(mine) == (20 if agent is None else 5)
    by = {"agent": agent} if agent else {}
    first = api.get("/v1/conflicts", params={"status": "open", "limit": 2, **by}).json()
    assert [c["id"] for c in first["conflicts"]] == [c.id for c in mine[:2]]

    recorded(hub, 2, name="new", at=utcnow())  # newer than everything: before page one
    recorded(hub, 1, name="late", at=mine[3].created_at)  # a worker's clock behind: among the rest
    recorded(hub, 1, name="done", at=mine[2].created_at, status="resolved")  # decided when recorded
    for decided in (mine[1], mine[3]):  # one on page one, one not yet read
        decided.status = ConflictStatus.resolved
        ledger.save(redis, keys, decided)

    rest = pages(api, "/v1/conflicts", "conflicts", offset=first["next_offset"], status="open", limit=2, **by)
    below = Position.parse(first["next_offset"])
    expected = [
        c.id
        for c in ledger.all_conflicts(redis, keys)
        if c.open and (agent is None or agent in c.agents) and Position.of(c) <= below
    ]
    assert [i for page in rest for i in page] == expected
    assert len(expected) == len(mine) - 2 - 1 + 1  # page one's and the one decided out, the late one in
    assert all(len(page) == 2 for page in rest[:-1])


def test_a_bad_offset_or_limit_is_refused_naming_it(api: TestClient, hub: EmbeddedHub) -> None:
    recorded(hub, 3)
    for path, params in (("/v1/conflicts", {}), ("/v1/questions", {"agent": "tg"})):
        for name, bad in (
            ("offset", "c-0002"),
            ("offset", "yesterday:c-1"),
            ("offset", "1e400:c-1"),
            ("offset", "1.5:"),
            ("limit", "0"),
            ("limit", "1001"),
        ):
            refused = api.get(path, params={**params, name: bad})
            assert refused.status_code == 422, (path, name, bad, refused.text)
            assert [issue["loc"] for issue in refused.json()["detail"]] == [["query", name]]
            assert refused.json()["message"].startswith(f"query.{name}: ")
    # An offset well formed but of no conflict in this ledger (one since gone) starts where it would stand.
    gone = f"{(LONG_AGO + timedelta(minutes=1)).timestamp()!r}:c-0001-gone"
    after = api.get("/v1/conflicts", params={"offset": gone})
    assert [c["id"] for c in after.json()["conflicts"]] == ["c-0001", "c-0000"]


def test_the_owners_questions_come_page_by_page(
    api: TestClient, hub: EmbeddedHub, make_agent: Callable[..., Memhub]
) -> None:
    wa, tg = make_agent("wa", "whatsapp"), make_agent("tg", "telegram")
    [tea] = publish_all(wa, "Dana prefers green tea")
    [violin] = publish_all(tg, "Avi plays the violin on Tuesdays")
    assert conflicts(api) == []
    # Of 24, tg is asked about the open high ones it is in, between memories that still stand.
    made = recorded(
        hub,
        24,
        memory_ids=[tea, violin],
        severity="high",
        each=lambda i: (
            {"severity": "medium"}
            if i % 6 == 1
            else {"status": "dismissed"}
            if i % 6 == 2
            else {"memory_ids": [tea, "m-merged-since"]}
            if i % 6 == 3
            else {"agents": ["wa", "sms"]}
            if i % 6 == 4
            else {}
        ),
    )
    asked = [c.id for c in made if int(c.id[-4:]) % 6 in (0, 5)]
    assert len(asked) == 8
    listed = pages(api, "/v1/questions", "questions", agent="tg", limit=3)
    assert [len(page) for page in listed] == [3, 3, 2]
    assert [i for page in listed for i in page] == asked
    # wa is in the ones with sms too.
    wa_asked = [c.id for c in made if int(c.id[-4:]) % 6 in (0, 4, 5)]
    assert pages(api, "/v1/questions", "questions", agent="wa", limit=100) == [wa_asked]

    # The SDK: a page at a time, or every question.
    assert [q.conflict_id for q in tg.questions()] == asked
    page = tg.question_page(limit=5)
    assert [q.conflict_id for q in page.questions] == asked[:5] and page.next_offset
    rest = tg.question_page(limit=5, offset=page.next_offset)
    assert [q.conflict_id for q in rest.questions] == asked[5:] and rest.next_offset is None
