"""Mine the pairs the review asks the judge about in a chat log, from conversations written for training.

    python -m training.chat_pairs > /tmp/chat_pairs.jsonl

An agent that logs a chat and does not say its messages are messages leaves each one to be judged as
a statement against the close, older messages of the same chat. Most of those are greetings,
reactions and small talk that conflict with nothing, and the labelled sets hold few of them, so the
pair model read them as contradictions. `training/data/chat_conversations.jsonl` holds eight
two-person conversations of about three weeks each (1,553 messages), written for training by four
helpers who opened no file of the repository, each with some lasting facts that change among the
chatter. This pairs each message ("Speaker: text") with its closest *earlier* messages of the same
conversation (cosine from the review's floor, 0.45, up to near-identical), three each, shuffled,
unlabelled. Readers label them with `training/labelling_brief.md` (told that "I" is the speaker
and that messages stating nothing lasting conflict with nothing), without seeing the judge or any
test pair; the first 1,600 are `benchmarks/data/train_pairs_chat.jsonl`. REALTALK is never read: it
may be measured on, not trained on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from training.neighbour_pairs import FLOOR, IDENTICAL, PER_STATEMENT, cosines, numbered, write
from training.pair_judge import _jsonl

CONVERSATIONS = Path(__file__).parent / "data" / "chat_conversations.jsonl"


def mine(limit: int, seed: int = 55) -> list[dict[str, object]]:
    from hub.embedding import load_embedder
    from hub.settings import Settings

    embedder = load_embedder(Settings())
    chats: dict[str, list[dict[str, object]]] = defaultdict(list)
    for row in _jsonl(CONVERSATIONS):
        chats[str(row["conv"])].append(row)
    out: list[dict[str, object]] = []
    for conv, messages in chats.items():
        messages.sort(key=lambda m: int(str(m["i"])))
        texts = [f"{m['speaker']}: {m['text']}" for m in messages]
        cosine = cosines(embedder, texts)
        for i in range(1, len(messages)):
            taken = 0
            for j in np.argsort(-cosine[i, :i]):
                similarity = float(cosine[i, j])
                if similarity < FLOOR or taken >= PER_STATEMENT:
                    break
                if similarity >= IDENTICAL or texts[i] == texts[j]:
                    continue
                out.append(
                    {
                        "a": texts[j],
                        "b": texts[i],
                        "a_at": messages[j]["at"],
                        "b_at": messages[i]["at"],
                        "conv": conv,
                        "similarity": round(similarity, 3),
                    }
                )
                taken += 1
    return numbered(out, limit, seed, "ch")


def main(argv: Sequence[str] | None = None) -> None:
    write(mine, __doc__, 1600, argv)


if __name__ == "__main__":
    main()
