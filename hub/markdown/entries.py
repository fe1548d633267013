"""One memory line: `[x] [TAG] [PRIVATE] YYYY-MM-DD: text — evidence: one; two`, read and written the
same way (all but the text optional)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from hub.models import Kind

_CHECKBOX = re.compile(r"^\[(?P<mark>[ xX])\]\s+")
_TAG = re.compile(r"^\[(?P<tag>[A-Za-z][A-Za-z _-]*)\]\s*")
_DATE = r"\d{4}-\d{2}-\d{2}"
_LEADING_DATE = re.compile(rf"^(?:\((?P<a>{_DATE})\)\s*[:—–-]?|(?P<b>{_DATE})\s*[:—–-])\s*")
_EVIDENCE = re.compile(r"\s+(?:—|–|--|-)\s+evidence:\s*", re.IGNORECASE)
_TRAILING_EVIDENCE = re.compile(r"\s*\(evidence:\s*(?P<evidence>[^()]+)\)$", re.IGNORECASE)
_EVIDENCE_SPLIT = re.compile(r";\s+")
_EMPHASIS = re.compile(r"\*\*|__")
_SPACE = re.compile(r"\s+")
PRIVATE = "private"  # the tag of a memory private to direct conversations


@dataclass(frozen=True)
class Entry:
    text: str
    kind: Kind | None = None  # from a [TAG]; None: the section decides
    day: date | None = None
    evidence: tuple[str, ...] = field(default=())
    done: bool = False  # a checked box, `- [x] …`: an open loop that was closed
    private: bool = False  # `[PRIVATE]`: private to direct conversations
    boxed: bool = False  # a box, checked or not: `- [ ] …` is something to do


def clean(text: str) -> str:
    """Plain words: bold markers dropped, whitespace collapsed (what the hub stores and export writes)."""
    return _SPACE.sub(" ", _EMPHASIS.sub("", text)).strip()


def split_tags(text: str) -> list[str]:
    """`#family, health; travel` -> ["family", "health", "travel"]."""
    return [t for t in (clean(t).lstrip("#").strip() for t in re.split(r"[,;]", text)) if t]


def tag_kind(tag: str) -> Kind | None:
    try:
        return Kind(re.sub(r"[ -]+", "_", tag.strip()).lower())
    except ValueError:
        return None


def parse_entry(raw: str, *, dated: bool) -> Entry:
    """Split a line into tag, date, text and evidence. `dated`: a leading date is the memory's date."""
    text = clean(raw)
    box = _CHECKBOX.match(text)
    text = text[box.end() :] if box else text
    kind, private = None, False
    while tagged := _TAG.match(text):  # a kind and `[PRIVATE]`, in either order
        if not private and tagged["tag"].strip().casefold() == PRIVATE:
            private = True
        elif kind is None and (found_kind := tag_kind(tagged["tag"])) is not None:
            kind = found_kind
        else:
            break  # a second kind, or a bracket of the text's own ("[URGENT] call the bank")
        text = text[tagged.end() :]
    day = None
    if dated and (found := _LEADING_DATE.match(text)):
        try:
            day = date.fromisoformat(found["a"] or found["b"])
            text = text[found.end() :]
        except ValueError:
            pass
    evidence: list[str] = []
    if len(parts := _EVIDENCE.split(text, maxsplit=1)) == 2:
        text, evidence = parts[0], _EVIDENCE_SPLIT.split(parts[1])
    elif trailing := _TRAILING_EVIDENCE.search(text):
        text, evidence = text[: trailing.start()], _EVIDENCE_SPLIT.split(trailing["evidence"])
    done = box is not None and box["mark"] != " "
    kept = tuple(e for e in (clean(e) for e in evidence) if e)
    return Entry(text.strip(), kind, day, kept, done, private, boxed=box is not None)


def render_entry(
    text: str,
    *,
    kind: Kind | None = None,
    day: date | None = None,
    evidence: list[str],
    done: bool = False,
    boxed: bool = False,
    private: bool = False,
) -> str:
    """The bullet line `parse_entry` reads back as the same entry."""
    parts = ["- [x]" if done else "- [ ]" if boxed else "-"]
    if kind is not None:
        parts.append(f"[{kind.value.upper()}]")
    if private:
        parts.append(f"[{PRIVATE.upper()}]")
    if day is not None:
        parts.append(f"{day.isoformat()}:")
    parts.append(clean(text))
    line = " ".join(parts)
    kept = [e for e in (clean(e) for e in evidence) if e]
    return f"{line} — evidence: {'; '.join(kept)}" if kept else line
