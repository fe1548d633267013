"""The hub's open conflicts as a page people read: written by export, never imported.

Only conflicts between two memories written to the same export are listed, by what they say and
where they sit (never ids or times): the hub finds them again from those memories after an import,
so the page comes back the same.
"""

from __future__ import annotations

from collections.abc import Iterable

from hub.markdown.entries import clean
from hub.markdown.render import Rendering
from memhub_client.models import Conflict, ConflictStatus

HEADER = (
    "Contradictions memhub found between these memories and has not settled. Resolve them in the hub "
    "(`POST /v1/conflicts/{id}/resolve`); this page is rewritten by every export and never imported."
)


def render_open_conflicts(conflicts: Iterable[Conflict], rendering: Rendering) -> str | None:
    """The page, or None when nothing is open between exported memories."""
    blocks: list[tuple[tuple[str, ...], list[str]]] = []
    for conflict in conflicts:
        placed = [rendering.placed.get(m) for m in conflict.memory_ids]
        if conflict.status != ConflictStatus.open or any(p is None for p in placed):
            continue
        texts = [clean(p.memory.text) for p in placed if p is not None]
        where = " and ".join(p.ref.path for p in placed if p is not None)
        lines = [
            f"## {' / '.join(texts)}",
            "",
            f"- Severity: {conflict.severity.value}",
            f"- Why: {clean(conflict.reason)}",
            f"- In: {where}",
        ]
        blocks.append(((*texts, where), lines))
    if not blocks:
        return None
    out = ["# Open conflicts", "", HEADER]
    for _, lines in sorted(blocks):
        out += ["", *lines]
    return "\n".join(out) + "\n"
