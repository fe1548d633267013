"""The signals that a memory matters beyond the day it was said, each with the words that explain it.

Strong: repeated across days or sessions, restated by another agent or on another channel, used by an
agent after retrieval, corrected or confirmed by the owner, tied to a core person or project, named for
promotion in a session summary, mentioned often within a week. Supporting: high confidence, clear
future use, linked to a decision or open loop still in play.

`compute` is pure: what it needs beyond the memory comes in a `Context` (see `hub.promotion.context`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, timedelta, tzinfo
from enum import StrEnum
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from hub.models import Confidence, Kind, Memory, Sighting
from hub.settings import Settings
from hub.summaries import Part, part_of


class Strength(StrEnum):
    strong = "strong"
    supporting = "supporting"


class SignalName(StrEnum):
    repeated = "repeated"
    reinforced_elsewhere = "reinforced_elsewhere"
    used = "used"
    confirmed = "confirmed"
    core_tie = "core_tie"
    nominated = "nominated"
    frequent = "frequent"
    high_confidence = "high_confidence"
    future_use = "future_use"
    active_context = "active_context"


SUPPORTING = frozenset({SignalName.high_confidence, SignalName.future_use, SignalName.active_context})


class Signal(BaseModel):
    """One reason to promote, in words a person can check."""

    name: SignalName
    strength: Strength
    weight: float
    detail: str = Field(description="What was observed, e.g. 'stated on 3 days: 2026-11-20, …'.")


@dataclass(frozen=True)
class Context:
    """What the hub knows around a memory, beyond the memory itself."""

    used: int = 0
    corrects: tuple[Memory, ...] = ()  # memories this correction superseded
    kept_by_owner: tuple[str, ...] = ()  # conflicts the owner resolved by keeping this memory
    core_people: frozenset[str] = frozenset()  # casefolded
    core_projects: frozenset[str] = frozenset()  # casefolded
    open_links: tuple[Memory, ...] = ()  # active decisions and open loops this memory links to
    project_in_play: int = 0  # other active decisions and open loops in this memory's project


# A standing instruction: how things are to be done from now on, not what happened once.
STANDING = re.compile(
    r"\b(always|never|from now on|every (time|day|morning|evening|week|month)|whenever|by default|"
    r"make sure to|don't ever|do not ever)\b",
    re.IGNORECASE,
)
FUTURE_KINDS = {Kind.preference: "a preference", Kind.decision: "a decision"}


def fresh_sightings(memory: Memory) -> list[Sighting]:
    """Statements since the memory last moved up a tier (all of them if it never did).

    The mentions that earned one step must not earn the next one too. Sightings are appended by a
    restatement ("reinforced") and by compaction folding a near-duplicate in ("merged"), each change
    recording the count after it.
    """
    count = 1
    at_move = 0
    for change in memory.history:
        if isinstance(sightings := change.changes.get("sightings"), list):
            count = int(sightings[-1])
        elif change.action == "promoted":
            at_move = count
    return memory.sightings[at_move:]


def days(sightings: Sequence[Sighting], zone: tzinfo = UTC) -> list[date]:
    """The owner's calendar days (in `zone`) the statements fall on."""
    return sorted({s.at.astimezone(zone).date() for s in sightings})


def sessions(sightings: Sequence[Sighting]) -> list[str]:
    return sorted({s.session for s in sightings if s.session})


def busiest_window(sightings: Sequence[Sighting], window_days: int) -> int:
    """The most statements that fall within any `window_days`-day window."""
    times = sorted(s.at for s in sightings)
    window = timedelta(days=window_days)
    best, start = 0, 0
    for end, moment in enumerate(times):
        while moment - times[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best


def _listed(values: Sequence[object], limit: int = 5) -> str:
    shown = ", ".join(str(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _found(memory: Memory, context: Context, settings: Settings) -> list[tuple[SignalName, str]]:
    found: list[tuple[SignalName, str]] = []
    sightings = memory.sightings
    on_days, in_sessions = days(sightings, ZoneInfo(settings.timezone)), sessions(sightings)
    if len(on_days) >= settings.promotion_repeat_min:
        found.append((SignalName.repeated, f"stated on {len(on_days)} different days: {_listed(on_days)}"))
    elif len(in_sessions) >= settings.promotion_repeat_min:
        found.append((SignalName.repeated, f"stated in {len(in_sessions)} sessions: {_listed(in_sessions)}"))
    agents = sorted({s.agent for s in sightings})
    channels = sorted({s.channel for s in sightings if s.channel})
    if len(agents) > 1 or len(channels) > 1:
        where = [f"by {_listed(agents)}"] if len(agents) > 1 else []
        where += [f"on {_listed(channels)}"] if len(channels) > 1 else []
        found.append((SignalName.reinforced_elsewhere, "stated " + " and ".join(where)))
    if context.used:
        times = "once" if context.used == 1 else f"{context.used} times"
        found.append((SignalName.used, f"used by an agent after retrieval {times}"))
    if context.corrects:
        what = "; ".join(f"«{m.text}»" for m in context.corrects)
        found.append((SignalName.confirmed, f"the owner's correction of {what}"))
    elif context.kept_by_owner:
        found.append(
            (SignalName.confirmed, f"kept by the owner in conflict {_listed(context.kept_by_owner)}")
        )
    ties = [
        f"person {p}" for p in (memory.person, memory.subject) if p and p.casefold() in context.core_people
    ]
    if memory.project and memory.project.casefold() in context.core_projects:
        ties.append(f"project {memory.project}")
    if ties:
        found.append((SignalName.core_tie, f"about core {ties[0]}"))
    nominations = [s for s in sightings if part_of(s.event_id) is Part.promote]
    if nominations:
        by = _listed(sorted({s.agent for s in nominations}))
        found.append((SignalName.nominated, f"named for long-term memory in a session summary by {by}"))
    fresh = fresh_sightings(memory)
    busiest = busiest_window(fresh, settings.promotion_frequent_days)
    if busiest >= settings.promotion_frequent_mentions:
        found.append(
            (SignalName.frequent, f"mentioned {busiest} times within {settings.promotion_frequent_days} days")
        )
    if memory.confidence is Confidence.high:
        found.append((SignalName.high_confidence, "stated with high confidence"))
    if memory.kind in FUTURE_KINDS:
        found.append((SignalName.future_use, f"{FUTURE_KINDS[memory.kind]}: it will matter again"))
    elif match := STANDING.search(memory.text):
        found.append((SignalName.future_use, f"a standing instruction («{match.group(0)}»)"))
    if context.open_links:
        found.append((SignalName.active_context, f"linked to «{context.open_links[0].text}», still open"))
    elif context.project_in_play:
        in_play = f"project {memory.project} has {context.project_in_play} open loops or decisions in play"
        found.append((SignalName.active_context, in_play))
    return found


def compute(memory: Memory, context: Context, settings: Settings) -> list[Signal]:
    """Every signal the memory shows, weighted by the settings."""
    return [
        Signal(
            name=name,
            strength=Strength.supporting if name in SUPPORTING else Strength.strong,
            weight=settings.promotion_weights.get(name.value, 1.0),
            detail=detail,
        )
        for name, detail in _found(memory, context, settings)
    ]
