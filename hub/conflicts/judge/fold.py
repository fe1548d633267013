"""When one memory may be folded into another: only when its words add nothing, since they go with it.

Both the write-time review and compaction fold by these rules, so a pair one folds the other would too.
"""

from __future__ import annotations

import re

from hub.conflicts.judge.tokens import content_words, first_sentence, tokenize
from hub.conflicts.judge.values import extract
from hub.models import Memory

# A restatement may say it in other words ("Dana doesn't eat meat" / "Dana is vegetarian"): at most
# this many content words the older memory lacks. The 52 restatements of benchmarks/data/
# conflict_pairs.jsonl add 0-3 such words. Of the 17 memories of benchmarks/data/retrieval the judge
# called the same as another (it reads first sentences only), 10 added 4-13, or a word after their
# first sentence, and are kept apart; the 7 still folded add at most one ("thanks 🙏", "He is").
PARAPHRASE_WORDS = 3
WORDS = re.compile(r"\w+")


def adds_nothing(older: str, newer: str) -> bool:
    """Whether folding the text `newer` into `older` loses nothing: a few words of paraphrase at most,
    no new name, and no new word after its first sentence (the judges compare first sentences)."""
    known = content_words(older)
    rest = content_words(newer[len(first_sentence(newer)) :]) - known
    return not rest and not _new_names(older, newer) and len(content_words(newer) - known) <= PARAPHRASE_WORDS


def _new_names(older: str, newer: str) -> set[str]:
    """Names in `newer` (as the judge reads them: places, people, brands) that `older` never says: a
    name is news even in a paraphrase ("... is Dr. Eli Gross; Dr. Shachar retired" against "Dr.
    Shachar is retiring")."""
    said = {token.low for token in tokenize(older)} | content_words(older)
    names, _ = extract(tokenize(newer), skip=set())
    return {key for value in names if value.kind == "name" for key in value.keys if key not in said}


def same_words(a: Memory, b: Memory) -> bool:
    """Whether the two say the same words in the same order (case and punctuation aside), with no
    structured claim either: the same statement, whatever the judge makes of it (short of a conflict).

    The judge calls two sentences with no subject it can read ("Always book the 7am train on
    Mondays") different subjects, even word for word. A structured claim names the subject, which
    the words may not ("Birthday is 14 July" of Dana and of Noa), so there the judge decides.
    """
    if a.subject or b.subject:
        return False
    return WORDS.findall(a.text.casefold()) == WORDS.findall(b.text.casefold())
