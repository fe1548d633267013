"""Turning validation failures into messages that name what to fix."""

from __future__ import annotations

from pydantic import ValidationError


def describe_validation_error(exc: ValidationError) -> str:
    """`field: problem; field: problem` for every error pydantic found."""
    parts = []
    for error in exc.errors():
        location = ".".join(str(p) for p in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        # Whole-event checks have no location; their messages start with the field to fix.
        parts.append(f"{location}: {message}" if location else message)
    return "; ".join(parts)
