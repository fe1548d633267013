"""Markdown into blocks: each bullet or paragraph with its line number and the headings above it.

markdown-it-py parses (CommonMark, plus GFM tables); this module walks its tokens, whose line maps
give each block its line. Only the structure memory files use becomes blocks: headings, bullets (a
nested one is a block of its own that knows the bullets it sits under), paragraphs, block quotes
and tables (a row read with its header: "Person: Dana; Birthday: 14 July"). Code blocks are skipped
and reported: they hold configuration and commands, not memories, and often secrets.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

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


@cache
def _parser() -> MarkdownIt:
    # Off: indented code (a memory indented four spaces is still a memory), setext headings (a
    # paragraph above a `---` rule is not a heading) and link reference definitions (a line such
    # as "[note]: call Dana" would vanish into the link table).
    return MarkdownIt("commonmark").enable("table").disable(["code", "lheading", "reference"])


_ENDED = -1


@dataclass
class _Walk:
    """The tokens' walk: the headings in effect and the list items the next bullet sits in."""

    lines: list[str]
    blocks: list[Block] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)
    headings: dict[int, tuple[int, str]] = field(default_factory=dict)  # level -> (line, text)
    # One entry per open list item: the index in `blocks` of its bullet, None until it has one, or
    # _ENDED once a line at or left of its marker ended it (see `paragraph`).
    items: list[int | None] = field(default_factory=list)
    item_indents: list[int] = field(default_factory=list)  # the column of each open item's marker

    def add(self, line: int, text: str, *, bullet: bool, parents: tuple[str, ...] = ()) -> None:
        levels = sorted(self.headings)
        names = tuple(self.headings[k][1] for k in levels)
        where = self.headings[levels[-1]][0] if levels else 0
        self.blocks.append(Block(line, names, text, where, bullet=bullet, parents=parents))

    def heading(self, line: int, level: int, text: str) -> None:
        self.headings = {k: v for k, v in self.headings.items() if k < level}
        if level > 1:  # the title names the file, which the path already does
            self.headings[level] = (line, text)

    def paragraph(self, line: int, content: str) -> None:
        parts = content.splitlines()
        if self.items and self.items[-1] is None:
            # CommonMark continues a bullet with any line that follows it ("lazy" continuation); a
            # memory file means a line no further right than the bullet's marker as a paragraph of
            # its own, which ends the lists it is in.
            marker = self.item_indents[-1]
            lazy = next((k for k in range(1, len(parts)) if _indent(self.lines[line - 1 + k]) <= marker), 0)
            if lazy:
                self.paragraph(line, "\n".join(parts[:lazy]))
                self.items = [_ENDED] * len(self.items)
                self.paragraph(line + lazy, "\n".join(parts[lazy:]))
                return
        text = " ".join(part.strip() for part in parts)
        if not self.items or self.items[-1] is not None:  # outside a list, or not an item's first paragraph
            source = self.lines[line - 1 : line - 1 + len(parts)]
            if all(row.lstrip(" >").startswith("|") for row in source):
                self.table_rows_without_header(line, parts)
            else:
                self.add(line, text, bullet=False)
            return
        enclosing = [i for i in self.items[:-1] if i is not None and i != _ENDED]
        if enclosing:
            self.blocks[enclosing[-1]] = replace(self.blocks[enclosing[-1]], items=True)
        self.items[-1] = len(self.blocks)
        self.add(line, text, bullet=True, parents=tuple(self.blocks[i].text for i in enclosing))

    def table_rows_without_header(self, line: int, rows: list[str]) -> None:
        """Lines that look like table rows but make no table (no separator line): each row a block."""
        for k, row_line in enumerate(rows):
            cells = _cells(row_line)
            if all(set(c) <= set(":-") and c for c in cells):  # a separator line on its own
                continue
            if row := _table_row(cells, []):
                self.add(line + k, row, bullet=True)

    def code(self, token: Token, start: int, end: int) -> None:
        closing = self.lines[end - 1].lstrip(" >") if end - 1 > start - 1 else ""
        if end - start >= 1 and closing.startswith(token.markup):
            self.skips.append(Skip(start, "a code block"))
        else:  # never closed: everything below it was taken for code
            self.skips.append(Skip(start, f"a code block never closed: lines {start}-{end} left out"))

    def html(self, start: int, end: int, content: str) -> None:
        if not content.lstrip().startswith("<!--"):  # other HTML is text, as the author wrote it
            text = " ".join(part.strip() for part in content.splitlines() if part.strip())
            self.add(start, text, bullet=False)
        elif "-->" not in content:  # never closed: the lines below it would vanish without a word
            self.skips.append(Skip(start, f"a comment never closed: lines {start}-{end} left out"))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


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


def _front_matter_end(lines: list[str]) -> int:
    """How many lines the front matter (settings, not memories) takes at the top; 0 without one."""
    if lines and lines[0].strip() == "---":
        end = next((j for j in range(1, len(lines)) if lines[j].strip() == "---"), None)
        if end is not None:
            return end + 1
    return 0


def read_blocks(text: str) -> tuple[list[Block], list[Skip]]:
    """The blocks of a markdown document, and what was left out of it and why."""
    lines = text.splitlines()
    skipped = _front_matter_end(lines)
    # Blanked rather than cut, so that the parser's line maps stay the document's line numbers.
    source = "\n".join([""] * skipped + lines[skipped:])
    walk = _Walk(lines)
    tokens = _parser().parse(source)
    header: list[str] = []
    row: list[str] = []
    for i, token in enumerate(tokens):
        start = token.map[0] + 1 if token.map else 0
        end = token.map[1] if token.map else 0
        match token.type:
            case "heading_open":
                walk.heading(start, int(token.tag[1]), tokens[i + 1].content)
            case "paragraph_open":
                walk.paragraph(start, tokens[i + 1].content)
            case "list_item_open":
                walk.items.append(None)
                walk.item_indents.append(_indent(walk.lines[start - 1]))
            case "list_item_close":
                walk.items.pop()
                walk.item_indents.pop()
            case "fence":
                walk.code(token, start, end)
            case "html_block":
                walk.html(start, end, token.content)
            case "tr_open":
                row, row_line = [], start
            case "inline" if tokens[i - 1].type in ("th_open", "td_open"):
                row.append(token.content.strip())
            case "tr_close" if tokens[i - 1].type == "th_close":
                header = row
            case "tr_close":
                if text_of_row := _table_row(row, header):
                    walk.add(row_line, text_of_row, bullet=True)
            case "table_close":
                header = []
    return walk.blocks, walk.skips
