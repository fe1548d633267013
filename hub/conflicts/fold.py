"""When one memory may be folded into another: only when its words add nothing, since they go with it."""

from __future__ import annotations

from hub.conflicts.tokens import content_words, first_sentence

# A restatement may say it in other words ("Dana doesn't eat meat" / "Dana is vegetarian"): at most
# this many content words the older memory lacks. The 52 restatements of benchmarks/data/
# conflict_pairs.jsonl add 0-3 such words. Of the 17 memories of benchmarks/data/retrieval the judge
# called the same as another (it reads first sentences only), 10 added 4-13, or a word after their
# first sentence, and are kept apart; the 7 still folded add at most one ("thanks 🙏", "He is").
PARAPHRASE_WORDS = 3


def adds_nothing(older: str, newer: str) -> bool:
    """Whether folding the text `newer` into `older` loses nothing: a few words of paraphrase at most,
    and no new word after its first sentence (the judges compare first sentences)."""
    known = content_words(older)
    rest = content_words(newer[len(first_sentence(newer)) :]) - known
    return not rest and len(content_words(newer) - known) <= PARAPHRASE_WORDS
