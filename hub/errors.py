"""Turning validation failures into messages that name what to fix."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError


class InvalidEvent(ValueError):
    """An event the hub refuses; `field` says where to fix it, e.g. `summary.decisions.1.why`."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field, self.problem = field, problem

    def __reduce__(self) -> tuple[Any, ...]:
        return (InvalidEvent, (self.field, self.problem))

    def at(self, index: int) -> InvalidEvent:
        """The same refusal, naming the event's position in its batch (`2.text`)."""
        return InvalidEvent(f"{index}.{self.field}", self.problem)


def first_problem(exc: ValidationError) -> tuple[str, str]:
    """The field and the problem of pydantic's first error (a whole-event check names its own field)."""
    error = exc.errors()[0]
    message = str(error["msg"]).removeprefix("Value error, ")
    location = ".".join(str(p) for p in error["loc"])
    if location:
        return location, message
    field, _, problem = message.partition(": ")
    return (field, problem) if problem else ("event", message)


def describe_validation_error(exc: ValidationError) -> str:
    """`field: problem; field: problem` for every error pydantic found."""
    parts = []
    for error in exc.errors():
        location = ".".join(str(p) for p in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        # Whole-event checks have no location; their messages start with the field to fix.
        parts.append(f"{location}: {message}" if location else message)
    return "; ".join(parts)
