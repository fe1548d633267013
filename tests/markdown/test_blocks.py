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


def test_a_nested_bullet_knows_the_bullets_it_sits_under() -> None:
    blocks, _ = read_blocks(
        "## Family\n- Noa's kids:\n  - Maya\n    - allergic to kiwi\n\n  - Itai\n- Dana lives in Haifa\n"
        "  - since 2020\nA paragraph ends the list.\n  - not nested in anything\n"
    )
    assert [(b.text, b.parents, b.items) for b in blocks] == [
        ("Noa's kids:", (), True),
        ("Maya", ("Noa's kids:",), True),
        ("allergic to kiwi", ("Noa's kids:", "Maya"), False),
        ("Itai", ("Noa's kids:",), False),  # a blank line between items does not end the list
        ("Dana lives in Haifa", (), True),
        ("since 2020", ("Dana lives in Haifa",), False),
        ("A paragraph ends the list.", (), False),
        ("not nested in anything", (), False),
    ]


def test_a_table_row_is_read_with_its_header() -> None:
    blocks, _ = read_blocks(
        "| Person | Birthday | City |\n|---|---|---|\n| Dana | 14 July | Haifa |\n| Amir | | Tel Aviv |\n\n"
        "| Field | Value |\n|---|---|\n| Car | Mazda |\n\n| no | header |\n"
    )
    assert [b.text for b in blocks] == [
        "Person: Dana; Birthday: 14 July; City: Haifa",
        "Person: Amir; City: Tel Aviv",
        "Car: Mazda",  # a header that says nothing more is left out
        "no: header",
    ]


def test_a_comment_or_code_block_never_closed_says_what_it_left_out() -> None:
    # Everything after an unclosed `<!--` was dropped without a word: two facts gone from a MEMORY.md.
    blocks, skips = read_blocks(
        "- kept\n<!-- TODO: tidy\n- [FACT] Noa is vegetarian.\n- [FACT] Maya plays piano.\n"
    )
    assert [b.text for b in blocks] == ["kept"]
    assert skips == [Skip(2, "a comment never closed: lines 2-4 left out")]

    blocks, skips = read_blocks("- kept\n```\nrclone sync\n- [FACT] after the fence\n")
    assert skips == [Skip(2, "a code block never closed: lines 2-4 left out")]
    # Closed ones are as before: a comment is the author's to hide, a code block is reported.
    blocks, skips = read_blocks("<!-- note -->\n- a\n```\nx\n```\n- b\n")
    assert ([b.text for b in blocks], skips) == (["a", "b"], [Skip(3, "a code block")])
