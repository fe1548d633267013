"""Screening events for secrets before anything is embedded, stored or logged."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from hub.errors import InvalidEvent, first_problem
from hub.models import EventCreate
from hub.secrets import SecretError, SecretFinding, find_secrets, redact


class SecretInEvent(SecretError):
    """An event holds a secret; the message names the field and the kind, never the value."""

    def __init__(self, field: str, error: SecretError) -> None:
        super().__init__(error.findings)
        self.field = field
        self.args = (f"{field}: {error}",)

    def __reduce__(self) -> tuple[Any, ...]:
        return (SecretInEvent, (self.field, SecretError(self.findings)))

    def at(self, index: int) -> SecretInEvent:
        """The same refusal, naming the event's position in its batch (`2.text`)."""
        return SecretInEvent(f"{index}.{self.field}", SecretError(self.findings))


# Fields holding validated enums, numbers, flags or times: no room for a secret, so not scanned.
_FORMATTED = frozenset(
    {"kind", "scope", "confidence", "tier", "occurred_at", "expires_at", "ttl_seconds", "private"}
)
# Short values seen before and found clean (agent names, channels, chats) are not scanned again.
_CLEAN: set[str] = set()
_CLEAN_LENGTH, _CLEAN_SIZE = 128, 10_000


# The fields a person said or wrote: read by the model of secrets said in words too, where the rules
# find nothing. Ids, sources, names and the rest are read by the rules alone.
_SAID = frozenset({"text", "context", "evidence", "value", "why", "summary"})


def _said(path: str) -> bool:
    """Whether the string at a dotted path is something said: `text`, and `event.text` in a raw entry."""
    return not _SAID.isdisjoint(path.split("."))


def _findings(text: str, said: bool) -> list[SecretFinding]:
    if not said and text in _CLEAN:
        return []
    found = find_secrets(text, said=said)
    if not said and not found and len(text) <= _CLEAN_LENGTH:
        if len(_CLEAN) >= _CLEAN_SIZE:
            _CLEAN.clear()
        _CLEAN.add(text)
    return found


def _strings(value: Any, path: str) -> list[tuple[str, str]]:
    """Every string inside a JSON value, with its dotted path."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in _strings(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [pair for i, v in enumerate(value) for pair in _strings(v, f"{path}.{i}")]
    return []


def redacted(value: Any, path: str = "", found: dict[str, list[SecretFinding]] | None = None) -> Any:
    """A JSON value with every secret in its strings (keys too, by rule) redacted: what a person said is
    read as said (`_SAID`). `found`: the findings already made, by dotted path, to redact without
    reading again."""
    if isinstance(value, str):
        if found is not None:
            return redact(value, found.get(path, []))
        return redact(value, said=_said(path))
    if isinstance(value, dict):
        return {redact(k): redacted(v, f"{path}.{k}" if path else str(k), found) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted(v, f"{path}.{i}", found) for i, v in enumerate(value)]
    return value


# A JSON escape (`\n`, `\"`): blanked, at the same length, so that a secret right behind one is found.
_ESCAPE = re.compile(r"\\.")


def redact_raw(raw: str) -> str:
    """A raw stream entry fit to keep (a dead letter): every secret in it redacted.

    JSON is decoded, its strings redacted and encoded again, so that a secret behind an escape is found
    and the letter stays JSON that can be replayed. Text that cannot be decoded is redacted as it is.
    """
    try:
        decoded = json.loads(raw)
        cleaned = redacted(decoded)
        return raw if cleaned == decoded else json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))
    except (ValueError, RecursionError):
        return redact(raw, find_secrets(_ESCAPE.sub("  ", raw), said=True))


def screen(event: EventCreate, *, redact_secrets: bool = False) -> EventCreate:
    """The event unchanged when it holds no secret; else refused (SecretInEvent) or redacted.

    Redacting refuses (InvalidEvent) an event it would leave invalid, e.g. a text grown past its limit.
    """
    data = event.model_dump(mode="json", exclude_none=True, exclude=set(_FORMATTED))
    found = [
        (path, findings) for path, text in _strings(data, "") if (findings := _findings(text, _said(path)))
    ]
    if not found:
        return event
    # An id is how the event is found again: redacted, it would be another id, so it is refused.
    path, findings = next(((p, f) for p, f in found if p == "id"), found[0])
    if not redact_secrets or path == "id":
        raise SecretInEvent(path, SecretError(findings))
    try:
        return EventCreate.model_validate(
            redacted(event.model_dump(mode="json", exclude_none=True), found=dict(found))
        )
    except ValidationError as exc:
        field, problem = first_problem(exc)
        raise InvalidEvent(
            field, f"with its secret redacted it is invalid ({problem}); remove the secret and publish again"
        ) from None


def screen_all(events: list[EventCreate], *, redact_secrets: bool = False) -> list[EventCreate]:
    """`screen` each event; a refusal names the event's position, e.g. `2.text`."""
    screened = []
    for index, event in enumerate(events):
        try:
            screened.append(screen(event, redact_secrets=redact_secrets))
        except (SecretInEvent, InvalidEvent) as exc:
            raise exc.at(index) from None
    return screened
