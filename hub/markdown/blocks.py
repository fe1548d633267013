"""Markdown into blocks: each bullet or paragraph with its line number and the headings above it.

Only the structure memory files use is understood: headings, bullets (a nested one is a block of its
own that knows the bullets it sits under), paragraphs, block quotes and simple tables (a row read
with its header: "Person: Dana; Birthday: 14 July"). Code blocks are skipped and reported: they hold
configuration and commands, not memories, and often secrets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d{1,3}[.)])\s+(?P<text>.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
# Second-column headers that say nothing of their own: a row of such a table reads "Car: Mazda".
_PLAIN_VALUE_HEADERS = {"", "value", "values", "detail", "details", "note", "notes", "info", "description"}


@dataclass(frozen=True)
class Block:
    line: int  # 1-based, the block's first line
    headings: tuple[str, ...]  # headings in effect below the title, outermost first
    text: str
    heading_line: int = 0  # line of the innermost of those headings (two sections may share a name)
    bullet: bool = True  # False for a paragraph
    parents: tuple[str, ...] = ()  # the texts of the bullets this one is nested in, outermost first
    items: bool = False  # bullets are nested in this one


@dataclass(frozen=True)
class Skip:
    line: int
    reason: str


@dataclass
class _Reader:
    blocks: list[Block]
    skips: list[Skip]
    headings: dict[int, tuple[int, str]]  # level -> (line, text)
    open_text: list[str]
    open_line: int = 0
    open_indent: int = -1  # indent of the open bullet, -1 for a paragraph
    open_parents: tuple[str, ...] = ()
    # The bullets the next one may be nested in: (indent, index in `blocks`), outermost first.
    lists: list[tuple[int, int]] = field(default_factory=list)
    table_header: list[str] = field(default_factory=list)

    def flush(self) -> None:
        if self.open_text:
            levels = sorted(self.headings)
            names = tuple(self.headings[k][1] for k in levels)
            where = self.headings[levels[-1]][0] if levels else 0
            text = " ".join(self.open_text)
            self.blocks.append(
                Block(
                    self.open_line,
                    names,
                    text,
                    where,
                    bullet=self.open_indent >= 0,
                    parents=self.open_parents,
                )
            )
        self.open_text = []

    def start(self, line: int, text: str, indent: int) -> None:
        """Open a block: a bullet (`indent` >= 0, nested in the open bullets less indented) or a
        paragraph (-1, which ends every list)."""
        self.flush()
        self.open_parents = ()
        if indent < 0:
            self.lists = []
        else:
            while self.lists and self.lists[-1][0] >= indent:
                self.lists.pop()
            if self.lists:
                self.open_parents = tuple(self.blocks[i].text for _, i in self.lists)
                parent = self.lists[-1][1]
                self.blocks[parent] = replace(self.blocks[parent], items=True)
            self.lists.append((indent, len(self.blocks)))
        self.open_line, self.open_text, self.open_indent = line, [text], indent

    def end_lists(self) -> None:
        self.flush()
        self.lists = []


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table_row(cells: list[str], header: list[str]) -> str:
    """A row as words: "Car: Mazda", or each cell with its column's header when they say more."""
    if len(header) != len(cells) or not any(header):
        found = [c for c in cells if c]
        return f"{found[0]}: {found[1]}" if len(found) == 2 else " | ".join(found)
    if len(cells) == 2 and header[1].casefold() in _PLAIN_VALUE_HEADERS:
        return f"{cells[0]}: {cells[1]}" if cells[1] else cells[0]
    return "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=True) if c)


def read_blocks(text: str) -> tuple[list[Block], list[Skip]]:
    """The blocks of a markdown document, and what was left out of it and why."""
    reader = _Reader(blocks=[], skips=[], headings={}, open_text=[])
    lines = text.splitlines()
    i = 0
    if lines and lines[0].strip() == "---":  # front matter: settings, not memories
        end = next((j for j in range(1, len(lines)) if lines[j].strip() == "---"), None)
        i = end + 1 if end is not None else 0
    while i < len(lines):
        number, line = i + 1, lines[i]
        i += 1
        stripped = line.strip()
        if not stripped.startswith("|"):
            reader.table_header = []  # any other line ends a table
        if _FENCE.match(line):
            reader.end_lists()
            fence = _FENCE.match(line)[1]  # type: ignore[index]
            while i < len(lines) and not lines[i].strip().startswith(fence):
                i += 1
            if i >= len(lines):  # never closed: everything below it was taken for code
                reader.skips.append(Skip(number, f"a code block never closed: lines {number}-{i} left out"))
            else:
                reader.skips.append(Skip(number, "a code block"))
            i += 1
            continue
        if stripped.startswith("<!--"):
            reader.flush()  # a comment inside a list leaves it open
            while i <= len(lines) and "-->" not in lines[i - 1]:
                i += 1
            if i > len(lines):  # never closed: the lines below it would vanish without a word
                reader.skips.append(
                    Skip(number, f"a comment never closed: lines {number}-{len(lines)} left out")
                )
            continue
        if not stripped:
            reader.flush()  # a list with blank lines between its items goes on
            continue
        if _RULE.match(line):
            reader.end_lists()
            continue
        if heading := _HEADING.match(line):
            reader.end_lists()
            level = len(heading["hashes"])
            reader.headings = {k: v for k, v in reader.headings.items() if k < level}
            if level > 1:  # the title names the file, which the path already does
                reader.headings[level] = (number, heading["text"])
            continue
        if stripped.startswith("|"):
            reader.end_lists()
            if i < len(lines) and _TABLE_SEPARATOR.match(lines[i]):  # a header row
                reader.table_header = _cells(line)
            elif not _TABLE_SEPARATOR.match(line) and (row := _table_row(_cells(line), reader.table_header)):
                reader.start(number, row, 0)
                reader.end_lists()
            continue
        if stripped.startswith(">"):
            stripped = stripped.lstrip("> ").strip()
        if bullet := _BULLET.match(line):
            reader.start(number, bullet["text"], len(bullet["indent"]))
        elif reader.open_text and (
            reader.open_indent < 0 or len(line) - len(line.lstrip()) > reader.open_indent
        ):
            reader.open_text.append(stripped)  # a wrapped line of the open bullet or paragraph
        else:
            reader.start(number, stripped, -1)
    reader.flush()
    return reader.blocks, reader.skips
