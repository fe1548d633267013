import pytest

from hub.models import EventCreate
from hub.screening import SecretInEvent, screen, screen_all

TOKEN = "ghp_EXAMPLE0a1B2c3D4e5F6g7H8i9J0kLmNoPqRsT"


def event(**fields: object) -> EventCreate:
    return EventCreate.model_validate(
        {"text": "Netanel's GitHub account is netanel-dev", "agent": "wa", **fields}
    )


def test_a_harmless_event_passes_unchanged() -> None:
    e = event()
    assert screen(e) is e


@pytest.mark.parametrize("field", ["text", "why", "source", "value"])
def test_a_secret_anywhere_is_refused_naming_field_and_kind(field: str) -> None:
    extra = {"subject": "Netanel", "attribute": "token"} if field == "value" else {}
    with pytest.raises(SecretInEvent) as caught:
        screen(event(**{field: f"the token is {TOKEN}"}, **extra))
    assert str(caught.value).startswith(f"{field}: text contains a GitHub token (github_token)")
    assert TOKEN not in str(caught.value)


def test_evidence_is_screened_and_the_position_named() -> None:
    with pytest.raises(SecretInEvent) as caught:
        screen_all([event(), event(kind="deduced", evidence=["fine", f"pasted {TOKEN}"])])
    assert str(caught.value).startswith("1.evidence.1: text contains a GitHub token")


def test_redact_policy_keeps_the_event_without_the_secret() -> None:
    cleaned = screen(event(text=f"Netanel's GitHub token is {TOKEN}"), redact_secrets=True)
    assert TOKEN not in cleaned.text and "[REDACTED:github_token]" in cleaned.text
