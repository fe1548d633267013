"""Import benchmark: a generated workspace of 10,000 memory lines into a running `memhub up`.

    python -m benchmarks.import_workspace [--lines 10000]

1. Writes a workspace in the OpenClaw layout: daily files with sessions, MEMORY.md, project files,
   archival notes, per-chat context files, core.md and conflict logs.
2. Measures the ingest ceiling in this run: raw batched `Embedder.encode` of the same texts.
3. Starts `memhub up` (embedded Redis and store, one worker) in its own process and imports the
   workspace over HTTP with a progress bar, waiting until every event is stored.
Prints the time, events/s and their ratio to the ceiling: compare ratios, never a time against a constant.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from benchmarks.common import start_hub
from hub.embedding import Embedder
from hub.markdown import Layout, import_workspace
from hub.markdown.reader import read_workspace
from hub.settings import get_settings
from memhub_client import Memhub

ROOT = Path(__file__).resolve().parent.parent
# Shares of the memory lines per kind of file, roughly as an agent's workspace grows.
SHARES = {"daily": 0.6, "long_term": 0.1, "project": 0.1, "archival": 0.1, "chat": 0.07, "core": 0.01}
DAILY_SECTIONS = ["Decisions made", "Tasks completed", "Promote?"]


FIRST = [
    "Noa",
    "Amir",
    "Dana",
    "Yossi",
    "Maya",
    "Avi",
    "Eli",
    "Tamar",
    "Omer",
    "Shira",
    "Itai",
    "Lior",
    "Ruth",
    "Daniel",
    "Gil",
    "Hila",
    "Ido",
    "Yael",
    "Ben",
    "Michal",
    "Oren",
    "Tali",
    "Asaf",
    "Keren",
]
LAST = [
    "Levi",
    "Cohen",
    "Katz",
    "Mizrahi",
    "Peretz",
    "Biton",
    "Friedman",
    "Shapiro",
    "Azoulay",
    "Dahan",
    "Ben-David",
    "Segal",
    "Golan",
    "Weiss",
    "Ohana",
    "Amar",
    "Klein",
    "Rosen",
    "Hadad",
    "Baruch",
]
TEMPLATES = [
    "{p} prefers meetings on {day} after {h}:00 and asks for the agenda a day ahead",
    "{p} is allergic to {food} and carries medication when eating out",
    "{p} lent the {thing} to a neighbour in {place} and wants it back before {day}",
    "{p} pays the {bill} bill of {n} shekels on the {d}th of every month",
    "{p}'s {relation} lives in {place} and visits every other {day}",
    "{p} booked a table for {k} at a restaurant in {place} for {day} at {h}:30",
    "{p} switched the {bill} provider to save about {n} shekels a year",
    "{p} runs {k} kilometres on {day} mornings along the promenade in {place}",
    "{p} asked to be reminded about the {thing} warranty, which ends in month {k}",
    "{p} studies {topic} on {day} evenings and has an exam in month {k}",
    "{p} keeps the spare {thing} key with the {relation} in {place}",
    "{p} decided to sell the old {thing} online for about {n} shekels",
    "{p} drives the kids to {topic} practice in {place} every {day} at {h}:15",
    "{p} does not drink coffee after {h}:00 because it keeps them awake",
    "{p}'s favourite dish is {food} from a small place in {place}",
    "{p} wants the {thing} repaired before the guests from {place} arrive",
]
FILL = {
    "day": ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"],
    "food": [
        "peanuts",
        "sesame",
        "shellfish",
        "kiwi",
        "gluten",
        "lactose",
        "eggs",
        "soy",
        "hummus",
        "shakshuka",
    ],
    "thing": [
        "bicycle",
        "laptop",
        "guitar",
        "camera",
        "tent",
        "scooter",
        "drill",
        "ladder",
        "projector",
        "kayak",
    ],
    "place": ["Haifa", "Tel Aviv", "Jerusalem", "Eilat", "Netanya", "Modiin", "Rehovot", "Herzliya", "Acre"],
    "bill": ["electricity", "water", "internet", "phone", "gas", "insurance", "gym", "parking"],
    "relation": ["sister", "brother", "mother", "father", "cousin", "grandmother", "uncle", "best friend"],
    "topic": ["piano", "football", "chess", "swimming", "judo", "ballet", "coding", "painting"],
}


def sentences(count: int, seed: int = 11) -> list[str]:
    """Distinct memories of 12-20 words about 480 people: few share a person and a template."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        values = {key: rng.choice(options) for key, options in FILL.items()}
        person = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        text = rng.choice(TEMPLATES).format(
            p=person,
            h=rng.randint(7, 21),
            n=rng.randint(2, 90) * 10,
            d=rng.randint(1, 28),
            k=rng.randint(2, 12),
            **values,
        )
        found[text] = None
    return list(found)


def write_workspace(root: Path, lines: int) -> int:
    """A workspace with `lines` memory lines; returns how many lines its files have in all."""
    texts = iter(sentences(lines))
    files: dict[str, list[str]] = {}

    def take(count: int) -> list[str]:
        return [next(texts) for _ in range(count)]

    counts = {kind: int(lines * share) for kind, share in SHARES.items()}
    counts["conflicts"] = lines - sum(counts.values())
    day = date(2026, 1, 1)
    left = counts["daily"]
    while left > 0:  # two sessions a day, ten lines each
        page = [f"# {day.isoformat()}"]
        for clock in ("09:30", "18:45"):
            page += ["", f"## Session Summary — {clock}", "", f"- {take(1)[0]}"]
            for section in DAILY_SECTIONS:
                page += ["", f"### {section}", ""] + [f"- {t}" for t in take(3)]
        files[f"memory/daily/{day.isoformat()}.md"] = page
        left -= 20
        day += timedelta(days=1)
    files["MEMORY.md"] = ["# MEMORY.md", "", "## Facts", ""] + [
        f"- [FACT] {t}" for t in take(counts["long_term"])
    ]
    for kind, folder in (
        ("project", "memory/projects/project-{}.md"),
        ("archival", "memory/archival/reference/note-{}.md"),
    ):
        items = take(counts[kind])
        for n in range(0, len(items), 50):
            files[folder.format(n // 50)] = ["# Notes", "", "## Details", ""] + [
                f"- {t}" for t in items[n : n + 50]
            ]
    chat = take(counts["chat"])
    for n in range(0, len(chat), 100):
        files[f"memory/whatsapp/groups/group-{n // 100}@g.us/context.md"] = ["# Group", ""] + [
            f"- {t}" for t in chat[n : n + 100]
        ]
    files["memory/core.md"] = ["# Core memory", "", "## Quick Reference", ""] + [
        f"- {t}" for t in take(counts["core"])
    ]
    for n, text in enumerate(take(counts["conflicts"])):
        day = date(2026, 6, 1) + timedelta(days=n // 20)
        page = files.setdefault(f"memory/conflicts/{day.isoformat()}.md", [f"# Conflicts {day.isoformat()}"])
        page += ["", f"## Conflict {n}", "", f"- Now: {text}", "- Resolution: confirmed with the owner."]
    total = 0
    for path, page in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("\n".join(page) + "\n", encoding="utf-8")
        total += len(page)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=10_000, help="memory lines in the workspace")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="memhub-import-bench-") as tmp:
        workspace = Path(tmp) / "workspace"
        total = write_workspace(workspace, args.lines)
        started = time.perf_counter()
        reading = read_workspace(workspace, layout=Layout(), agent="bench")
        read_seconds = time.perf_counter() - started
        texts = [e.text for e in reading.events]
        print(
            f"workspace: {len(texts)} memory lines ({total} lines in {reading.files} files); "
            f"read and screened in {read_seconds:.1f} s"
        )

        embedder = Embedder(expected_sha256=get_settings().model_sha256)
        embedder.encode(texts[:64])  # warm-up
        started = time.perf_counter()
        embedder.encode(texts, batch_size=get_settings().encode_batch_size)
        ceiling = len(texts) / (time.perf_counter() - started)
        print(f"ingest ceiling: raw batched encode {ceiling:.0f} sentences/s")
        del embedder  # the hub process loads its own

        process, url = start_hub(Path(tmp) / "data")
        try:
            with Memhub(url, agent="bench", timeout=120.0) as hub:
                report = import_workspace(workspace, hub=hub, progress=True, timeout=3_600)
        finally:
            process.terminate()
            process.wait(60)
        rate = len(texts) / report.seconds
        print(report.summary(examples=5))
        print(
            f"import: {len(texts)} events in {report.seconds:.1f} s = {rate:.0f} events/s, "
            f"{rate / ceiling:.2f} of the raw encode ceiling"
        )


if __name__ == "__main__":
    main()
