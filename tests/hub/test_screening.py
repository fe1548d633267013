import json

import pytest

from hub.errors import InvalidEvent
from hub.models import EventCreate
from hub.screening import SecretInEvent, redact_raw, screen, screen_all

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


def test_redact_policy_refuses_an_id_holding_a_secret() -> None:
    # Redacted, the id would be another id (and `[REDACTED:…]` is no valid one): refused, naming it.
    with pytest.raises(SecretInEvent) as caught:
        screen(event(id=TOKEN, text=f"token {TOKEN}"), redact_secrets=True)
    assert str(caught.value).startswith("id: text contains a GitHub token")


def test_redact_policy_refuses_an_event_redacting_would_leave_invalid() -> None:
    long_text = "x" * 7_985 + " pin is 4821"  # `[REDACTED:…]` is longer than the pin: past 8,000
    with pytest.raises(InvalidEvent) as caught:
        screen_all([event(), event(text=long_text)], redact_secrets=True)
    assert str(caught.value).startswith("1.text: with its secret redacted it is invalid (String should have")


def test_a_raw_entry_is_redacted_as_decoded_json_and_stays_json() -> None:
    raw = json.dumps({"event": {"text": f"key:\n{TOKEN}", "note": 'password: "Zq7#kP2!mW9x"', TOKEN: 1}})
    kept = redact_raw(raw)
    assert TOKEN not in kept and "Zq7#kP2!mW9x" not in kept
    assert json.loads(kept)["event"]["text"] == "key:\n[REDACTED:github_token]"
    harmless = '{"event": {"text": "Dana likes tea"}}'
    assert redact_raw(harmless) is harmless  # kept byte for byte


def test_a_raw_entry_that_is_not_json_is_redacted_as_text_escapes_and_all() -> None:
    assert redact_raw(f'{{"text": "key:\\n{TOKEN}"') == '{"text": "key:\\n[REDACTED:github_token]"'
    deep = "[" * 100_000 + f'"{TOKEN}"'
    assert TOKEN not in redact_raw(deep)


def test_a_token_split_by_a_zero_width_space_is_refused() -> None:
    split = TOKEN[:10] + "\u200b" + TOKEN[10:]
    with pytest.raises(SecretInEvent) as caught:
        screen(event(text=f"the bot's token is {split}"))
    assert str(caught.value).startswith("text: text contains a GitHub token (github_token)")
