"""Retrieval on real conversations (REALTALK), through a started `memhub up`, as agents use it.

    python -m benchmarks.realtalk [--conversations 10] [--limit 50] [--model PATH]

REALTALK (../shared/data/realtalk; not shipped, read from there): ten real two-person messaging
conversations, each about three weeks long, with questions whose evidence names messages.

1. `memhub up` starts in its own process (embedded Redis and store, its own workers).
2. Each conversation's messages are published over HTTP, as one agent that logs a chat publishes
   them: "Speaker: text", the time it was said, `nature="message"`, the message before it in its
   session as its `context`, one project per conversation.
3. Every question is asked through `POST /v1/search` within its conversation's project, with
   `limit` 50 and again with 10: recall@5/10/25/50 and MRR (at 50) by question category, and how
   many answers' first hits changed with the limit asked for.
4. In the same run, in this process, the naive baselines over the same messages: the raw model
   (dense), BM25 with the hub's own tokens and IDF over the conversation, and their plain RRF (k 60,
   equal weights), each ranking every message of the conversation.

Conversations 1, 3, 5, 7 and 9 are for tuning (`dev`); 2, 4, 6, 8 and 10 are a frozen `test` split,
reported and never read one by one.

Evidence: a question's `evidence` lists message `dia_id`s; 188 of the 1,742 are malformed. Every
"D<session>:<turn>" found in an entry counts ("D5:3." and "D5:12;D5:16" give their ids), a range
"D12:3-D12:5" gives each message in it, and an id that names no published message (an empty message,
a typo such as "D17;39") is dropped. A question left with no evidence is not asked.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import benchmark_parser, start_hub, wait_for_events
from hub.embedding import Embedder
from hub.settings import get_settings
from hub.sparse import SparseEncoder
from memhub_client import Memhub

REALTALK = Path(__file__).resolve().parents[2] / "shared" / "data" / "realtalk"
KS = (5, 10, 25, 50)
RRF_K = 60
AGENT = "chat-logger"
CONTEXT_CHARS = 2_000  # the most an event's context may hold
_ID = re.compile(r"D(\d+):(\d+)")
_RANGE = re.compile(r"D(\d+):(\d+)\s*-\s*D(\d+):(\d+)")


@dataclass(frozen=True)
class Message:
    dia_id: str
    speaker: str
    text: str
    when: datetime
    context: str | None

    @property
    def line(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: frozenset[str]


@dataclass
class Conversation:
    name: str
    messages: list[Message] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def project(self) -> str:
        return self.name.lower()

    @property
    def split(self) -> str:
        """Odd-numbered conversations are for tuning (`dev`); even-numbered ones are a frozen `test`."""
        return "dev" if int(self.name.split("_")[1]) % 2 else "test"


def conversation_files(count: int = 10) -> list[Path]:
    """REALTALK's conversations in order; none found is an error, not an empty measure."""
    found = sorted(REALTALK.glob("Chat_*.json"), key=lambda p: int(p.name.split("_")[1]))[:count]
    if not found:
        raise FileNotFoundError(f"no REALTALK conversations in {REALTALK}: it reads ../shared/data/realtalk")
    return found


def evidence_ids(entries: Sequence[str]) -> set[str]:
    """Every message id an `evidence` list names, ranges expanded (see the module docstring)."""
    found: set[str] = set()
    for entry in entries:
        for s1, t1, s2, t2 in _RANGE.findall(entry):
            if s1 == s2 and int(t1) <= int(t2):
                found.update(f"D{s1}:{turn}" for turn in range(int(t1), int(t2) + 1))
        found.update(f"D{s}:{t}" for s, t in _ID.findall(entry))
    return found


def load(path: Path) -> Conversation:
    """A conversation's non-empty messages in order, each with the one before it in its session as
    context, and its questions with the evidence that names published messages."""
    data = json.loads(path.read_text(encoding="utf-8"))
    conversation = Conversation(path.stem)
    sessions = sorted(
        (k for k in data if k.startswith("session_") and isinstance(data[k], list)),
        key=lambda k: int(k.split("_")[1]),
    )
    for key in sessions:
        before: str | None = None
        for raw in data[key]:
            text = str(raw.get("clean_text") or "").strip()
            if not text:
                continue
            when = datetime.strptime(raw["date_time"], "%d.%m.%Y, %H:%M:%S").astimezone()
            message = Message(str(raw["dia_id"]), str(raw["speaker"]), text, when, before)
            conversation.messages.append(message)
            before = message.line[:CONTEXT_CHARS]
    published = {m.dia_id for m in conversation.messages}
    for qa in data.get("qa", []):
        evidence = evidence_ids([str(e) for e in qa.get("evidence", [])]) & published
        if evidence:
            conversation.questions.append(
                Question(str(qa["question"]), int(qa["category"]), frozenset(evidence))
            )
    return conversation


def publish(hub: Memhub, conversation: Conversation) -> list[str]:
    """The conversation's messages, 500 to a request; their event ids."""
    events = [
        {
            "text": m.line,
            "agent": AGENT,
            "channel": "whatsapp",
            "scope": "project",
            "project": conversation.project,
            "occurred_at": m.when.isoformat(),
            "nature": "message",
            "context": m.context,
            "source": f"{conversation.name}#{m.dia_id}",
        }
        for m in conversation.messages
    ]
    ids: list[str] = []
    for start in range(0, len(events), 500):
        ids += hub.publish_many(events[start : start + 500])
    return ids


def scores(ranked: Sequence[str], evidence: frozenset[str]) -> dict[str, float]:
    """recall@k for each k, and the reciprocal rank of the first evidence message (0 past the list)."""
    out = {f"r@{k}": len(evidence & set(ranked[:k])) / len(evidence) for k in KS}
    first = next((i for i, dia in enumerate(ranked) if dia in evidence), None)
    out["mrr"] = 0.0 if first is None else 1.0 / (first + 1)
    return out


def rrf(*rankings: Sequence[str]) -> list[str]:
    fused: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for rank, dia in enumerate(ranking):
            fused[dia] += 1.0 / (RRF_K + rank + 1)
    return sorted(fused, key=lambda d: -fused[d])


class Naive:
    """Dense, BM25 and RRF rankings of every message of one conversation."""

    def __init__(self, conversation: Conversation, embedder: Embedder, sparse: SparseEncoder) -> None:
        self.ids = [m.dia_id for m in conversation.messages]
        lines = [m.line for m in conversation.messages]
        self.vectors = embedder.encode(lines, batch_size=get_settings().encode_batch_size)
        self.embedder = embedder
        self.sparse = sparse
        docs = [sparse.document(line) for line in lines]
        df: dict[int, int] = defaultdict(int)
        for doc in docs:
            for index in set(doc.indices):
                df[index] += 1
        n = len(docs)
        # The IDF the store applies to the sparse vector (its `idf` modifier).
        self.idf = {i: float(np.log(1 + (n - f + 0.5) / (f + 0.5))) for i, f in df.items()}
        self.docs = [dict(zip(d.indices, d.values, strict=True)) for d in docs]

    def rankings(self, question: str) -> dict[str, list[str]]:
        query = np.asarray(self.embedder.encode_one(question), dtype=np.float32)
        dense = [self.ids[i] for i in np.argsort(-(self.vectors @ query), kind="stable")]
        terms = self.sparse.query(question)
        bm25 = np.array(
            [
                sum(
                    self.idf.get(t, 0.0) * w * doc.get(t, 0.0)
                    for t, w in zip(terms.indices, terms.values, strict=True)
                )
                for doc in self.docs
            ]
        )
        sparse = [self.ids[i] for i in np.argsort(-bm25, kind="stable") if bm25[i] > 0]
        return {"dense": dense, "bm25": sparse, "naive rrf": rrf(dense, sparse)}


def table(results: dict[str, list[tuple[str, int, dict[str, float]]]]) -> None:
    """Each ranking's means over all questions, by split, and by category."""
    columns = [f"r@{k}" for k in KS] + ["mrr"]
    groups: list[tuple[str, Any]] = [("all", lambda split, category: True)]
    groups += [(split, lambda s, c, split=split: s == split) for split in ("dev", "test")]
    categories = sorted({category for rows in results.values() for _, category, _ in rows})
    groups += [(f"cat {n}", lambda s, c, n=n: c == n) for n in categories]
    print(f"\n{'':<16}{'':>6}" + "".join(f"{c:>8}" for c in columns))
    for name, rows in results.items():
        for i, (label, keep) in enumerate(groups):
            chosen = [scored for split, category, scored in rows if keep(split, category)]
            if not chosen:
                continue
            means = [100 * statistics.fmean(s[c] for s in chosen) for c in columns]
            print(f"{name if i == 0 else '':<16}{label:>6}" + "".join(f"{m:>8.1f}" for m in means))


def main() -> None:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--conversations", type=int, default=10, help="conversations of the 10")
    parser.add_argument("--limit", type=int, default=50, help="hits asked for (the largest k)")
    parser.add_argument("--split", choices=["dev", "test"], help="ask only this split's questions")
    parser.add_argument("--no-baselines", action="store_true", help="skip the naive rankings (when tuning)")
    parser.add_argument("--small-limit", type=int, default=10, help="a second, smaller limit to compare with")
    parser.add_argument(
        "--mode", default="hybrid", choices=["hybrid", "dense", "sparse"], help="the hub's search mode"
    )
    parser.add_argument(
        "--model",
        help="the embedding model (MEMHUB_MODEL) for the hub and the naive baselines; default: the shipped one",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        help="keep the hub's data here, and reuse it if a run already filled it (re-ranking only)",
    )
    args = parser.parse_args()
    conversations = [load(p) for p in conversation_files(args.conversations)]
    messages = sum(len(c.messages) for c in conversations)
    questions = sum(len(c.questions) for c in conversations)
    print(
        f"REALTALK: {len(conversations)} conversations, {messages} messages, {questions} questions with evidence"
    )

    results: dict[str, list[tuple[str, int, dict[str, float]]]] = defaultdict(list)
    changed = {k: 0 for k in KS if k <= args.small_limit}
    latencies: list[float] = []
    asked_questions = 0
    with tempfile.TemporaryDirectory(prefix="memhub-realtalk-") as tmp:
        data = args.keep or Path(tmp) / "data"
        filled = data / "realtalk-published"
        reuse = filled.exists() and filled.read_text() == str(args.conversations)
        process, url = start_hub(data, [f"MEMHUB_MODEL={args.model}"] if args.model else [])
        try:
            with Memhub(url, agent=AGENT, timeout=120.0) as hub:
                if not reuse:
                    started = time.monotonic()
                    ids = [i for c in conversations for i in publish(hub, c)]
                    published = time.monotonic() - started
                    settled_at = time.monotonic()
                    failed = wait_for_events(hub, ids, poll=5, progress=True)
                    waited = time.monotonic() - settled_at
                    print(
                        f"published {len(ids)} messages in {published:.0f} s; all stored and reviewed "
                        f"{waited:.0f} s later ({failed} not stored)"
                    )
                    filled.write_text(str(args.conversations))
                conflicts = list(hub.all_conflicts())
                print(f"conflicts recorded between messages: {len(conflicts)}")
                for c in conversations:
                    if args.split and c.split != args.split:
                        continue
                    for q in c.questions:
                        asked = time.perf_counter()
                        hits = hub.search(q.text, project=c.project, limit=args.limit, mode=args.mode)
                        latencies.append(time.perf_counter() - asked)
                        ranked = _dia_ids(hits)
                        results["memhub (API)"].append((c.split, q.category, scores(ranked, q.evidence)))
                        small = _dia_ids(
                            hub.search(q.text, project=c.project, limit=args.small_limit, mode=args.mode)
                        )
                        for k in changed:
                            changed[k] += ranked[:k] != small[:k]
                        asked_questions += 1
        finally:
            process.terminate()
            process.wait(60)

    embedder = Embedder(args.model) if args.model else Embedder(expected_sha256=get_settings().model_sha256)
    sparse = SparseEncoder()
    for c in [] if args.no_baselines else conversations:
        if args.split and c.split != args.split:
            continue
        naive = Naive(c, embedder, sparse)
        for q in c.questions:
            for name, ranking in naive.rankings(q.text).items():
                results[name].append((c.split, q.category, scores(ranking, q.evidence)))
    table(results)
    p95 = float(np.percentile(latencies, 95)) * 1000
    print(
        f"\nsearch over HTTP (limit {args.limit}): p50 {statistics.median(latencies) * 1000:.0f} ms, p95 {p95:.0f} ms"
    )
    for k, count in changed.items():
        print(
            f"first {k} hits differ between limit {args.limit} and {args.small_limit}: {count} of {asked_questions} questions"
        )


def _dia_ids(hits: Sequence[Any]) -> list[str]:
    """The messages the hits are, in order (the source names the message first published as it)."""
    return [(h.source or h.id).rsplit("#", 1)[-1] for h in hits]


if __name__ == "__main__":
    main()
