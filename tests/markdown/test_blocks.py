"""Markdown into blocks: bullets, paragraphs and tables under their headings; code left out."""

from hub.markdown.blocks import Block, Skip, read_blocks

DOCUMENT = """---
agent: tali
---
# Title

Intro paragraph
that wraps.

## Section — 09:40

- first bullet
  continued here
  - nested bullet
1. numbered

### Inner

> quoted line

| Field | Value |
|---|---|
| Car | Mazda |

```
password = hunter2
```

<!-- a comment
over lines -->
---
## Next
* star bullet
"""


def test_blocks_carry_their_line_and_headings() -> None:
    blocks, skips = read_blocks(DOCUMENT)
    section, inner = ("Section — 09:40",), ("Section — 09:40", "Inner")
    assert [(b.line, b.headings, b.text, b.bullet) for b in blocks] == [
        (6, (), "Intro paragraph that wraps.", False),
        (11, section, "first bullet continued here", True),
        (13, section, "nested bullet", True),
        (14, section, "numbered", True),
        (18, inner, "quoted line", False),
        (22, inner, "Car: Mazda", True),
        (32, ("Next",), "star bullet", True),
    ]
    assert skips == [Skip(24, "a code block")]


def test_two_sections_with_one_name_are_told_apart_by_their_line() -> None:
    blocks, _ = read_blocks("## Same\n- a\n## Same\n- b\n")
    assert [b.heading_line for b in blocks] == [1, 3]
    assert blocks[0] == Block(2, ("Same",), "a", 1)
