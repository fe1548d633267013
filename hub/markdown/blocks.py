"""Markdown into blocks: each bullet or paragraph with its line number and the headings above it.

Only the structure memory files use is understood: headings, bullets (nested ones are blocks of
their own), paragraphs, block quotes and simple tables. Code blocks are skipped and reported: they
hold configuration and commands, not memories, and often secrets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d{1,3}[.)])\s+(?P<text>.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class Block:
    line: int  # 1-based, the block's first line
    headings: tuple[str, ...]  # headings in effect below the title, outermost first
    text: str
    heading_line: int = 0  # line of the innermost of those headings (two sections may share a name)
    bullet: bool = True  # False for a paragraph


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

    def flush(self) -> None:
        if self.open_text:
            levels = sorted(self.headings)
            names = tuple(self.headings[k][1] for k in levels)
            where = self.headings[levels[-1]][0] if levels else 0
            text = " ".join(self.open_text)
            self.blocks.append(Block(self.open_line, names, text, where, bullet=self.open_indent >= 0))
        self.open_text = []

    def start(self, line: int, text: str, indent: int) -> None:
        self.flush()
        self.open_line, self.open_text, self.open_indent = line, [text], indent


def _table_row(line: str) -> str:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    cells = [c for c in cells if c]
    return f"{cells[0]}: {cells[1]}" if len(cells) == 2 else " | ".join(cells)


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
        if _FENCE.match(line):
            reader.flush()
            fence = _FENCE.match(line)[1]  # type: ignore[index]
            while i < len(lines) and not lines[i].strip().startswith(fence):
                i += 1
            i += 1
            reader.skips.append(Skip(number, "a code block"))
            continue
        if stripped.startswith("<!--"):
            reader.flush()
            while i <= len(lines) and "-->" not in lines[i - 1]:
                i += 1
            continue
        if not stripped or _RULE.match(line):
            reader.flush()
            continue
        if heading := _HEADING.match(line):
            reader.flush()
            level = len(heading["hashes"])
            reader.headings = {k: v for k, v in reader.headings.items() if k < level}
            if level > 1:  # the title names the file, which the path already does
                reader.headings[level] = (number, heading["text"])
            continue
        if stripped.startswith("|"):
            reader.flush()
            header = i < len(lines) and _TABLE_SEPARATOR.match(lines[i]) is not None
            if not header and not _TABLE_SEPARATOR.match(line) and (row := _table_row(line)):
                reader.start(number, row, 0)
                reader.flush()
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
