"""Train the pair judge: a cross-encoder fine-tuned from the all-MiniLM-L6-v2 weights memhub ships.

    python -m training.pair_judge                  # both stages, writes hub/conflicts/judge/pairmodel/
    python -m training.pair_judge --stage public   # stage 1 only, to a checkpoint folder
    python -m training.pair_judge --stage project  # stage 2 from the stage 1 checkpoint
    python -m training.pair_judge --device cuda    # the same recipe on a GPU (minutes, not hours)

The recipe (see hub/conflicts/judge/pairmodel/MODEL_CARD.md for the data's licenses and the numbers):
- stage 1, what contradiction is in general: the public pairs in ../shared/data/nli (SNLI dev and
  test, MultiNLI dev matched, counterfactual SNLI train, Breaking NLI, the Dialogue NLI sample's train
  file), each source capped (`PUBLIC`), `--public-epochs` passes. MultiNLI dev mismatched is never
  trained on: it is the general-domain measure. `--validate N` holds N MultiNLI matched pairs out of
  training and reports on them after each stage: the measure to choose a recipe by.
- stage 2, the owner's domain: the project's labelled personal-assistant pairs (conflict_pairs,
  update_pairs, update_pairs_fresh, the dev halves of judge_pairs_a/b, train_pairs_c to _g, written
  for training by helpers who saw no code and no test pair, and the labelled neighbours of
  train_pairs_neighbours and train_pairs_chat), with public pairs replayed
  so stage 1 is not forgotten. The test halves of judge_pairs_a/b, all of update_pairs_fresh2 and
  sibling_pairs are never trained on.

Labels: contradiction (a conflict), entailment (the same fact), neutral (anything else). The word
embedding matrix is frozen: it is the shipped embedding model's own, so the judge's file holds only
what training changed, quantised to int8 per output row.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data" / "nli"
DATA = REPO / "benchmarks" / "data"
OUT = REPO / "hub" / "conflicts" / "judge" / "pairmodel"
CHECKPOINT = Path("/tmp/memhub-pair-judge-stage1")
LABELS = ("contradiction", "entailment", "neutral")
VERDICT_LABEL = {"conflict": 0, "same": 1, "compatible": 2, "different_subject": 2}
SEED = 13
# SNLI and the two sets built from it (cad, breaking) describe one photo: two different things said of
# the same person read as a contradiction there, which is what the judge must not learn for memories.
# MultiNLI (many genres) and Dialogue NLI (persona facts, most of them compatible) are taken whole.
PUBLIC = {"snli": 4000, "mnli_matched": 10000, "cad": 4000, "breaking": 4000, "dnli": 9000}
MAX_TOKENS = 80

Pair = tuple[str, str, int]


def _nli(label: str) -> int | None:
    label = label.strip().lower()
    return {"contradiction": 0, "negative": 0, "entailment": 1, "positive": 1, "neutral": 2}.get(label)


def public_pairs(shared: Path = SHARED) -> dict[str, list[Pair]]:
    """The public training pairs by source; MultiNLI mismatched is left out."""
    out: dict[str, list[Pair]] = {}

    def keep(name: str, a: str, b: str, label: str) -> None:
        index = _nli(label)
        if index is not None and a.strip() and b.strip():
            out.setdefault(name, []).append((a.strip(), b.strip(), index))

    for name in ("snli_1.0_dev.csv", "snli_1.0_test.csv"):
        with (shared / "snli" / name).open(encoding="utf-8") as f:
            for row in csv.DictReader(f):
                keep("snli", row["sentence1"], row["sentence2"], row["label"])
    with (shared / "mnli" / "multinli_1.0_dev_matched.csv").open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            keep("mnli_matched", row["sentence1"], row["sentence2"], row["label"])
    with (shared / "cad" / "all_combined_train.tsv").open(encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            keep("cad", row["sentence1"], row["sentence2"], row["gold_label"])
    with (shared / "breaking" / "dataset.jsonl").open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            keep("breaking", row["sentence1"], row["sentence2"], row["gold_label"])
    with (shared / "dnli_sample" / "nli-train.txt").open(encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("</s>")
            if len(parts) == 3:
                keep("dnli", parts[0], parts[1], parts[2])
    return out


def _jsonl(path: Path) -> list[dict[str, object]]:
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def project_pairs(data: Path = DATA) -> list[Pair]:
    """The project's labelled pairs that may be trained on (never a frozen test half)."""
    rows = [
        *_jsonl(data / "conflict_pairs.jsonl"),
        *_jsonl(data / "update_pairs.jsonl"),
        *_jsonl(data / "update_pairs_fresh.jsonl"),
    ]
    for name in ("judge_pairs_a.jsonl", "judge_pairs_b.jsonl"):
        rows += [r for r in _jsonl(data / name) if r.get("split") == "dev"]
    for path in sorted(data.glob("train_pairs_*.jsonl")):
        rows += _jsonl(path)
    return [(str(r["a"]), str(r["b"]), VERDICT_LABEL[str(r["label"])]) for r in rows]


def _swapped(pairs: Sequence[Pair]) -> list[Pair]:
    """Contradiction and unrelatedness read the same either way round; entailment does not."""
    return [(b, a, label) for a, b, label in pairs if label != 1]


def _batches(pairs: Sequence[Pair], size: int, rng: random.Random) -> Iterator[Sequence[Pair]]:
    """Shuffled batches of pairs of similar length: padding is most of the cost on a CPU."""
    order = list(pairs)
    rng.shuffle(order)
    window = size * 50
    batches = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lambda p: len(p[0]) + len(p[1]))
        batches += [chunk[i : i + size] for i in range(0, len(chunk), size)]
    rng.shuffle(batches)
    yield from batches


def train(
    pairs: Sequence[Pair],
    *,
    start: Path,
    out: Path,
    epochs: float,
    lr: float,
    batch: int = 32,
    seed: int = SEED,
    device: str = "cpu",
    validation: Sequence[Pair] = (),
) -> None:
    import torch
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
        get_linear_schedule_with_warmup,
    )

    torch.manual_seed(seed)
    rng = random.Random(seed)
    tokenizer = AutoTokenizer.from_pretrained(str(start))
    model = AutoModelForSequenceClassification.from_pretrained(
        str(start),
        num_labels=3,
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    model.to(device)
    steps = int(len(pairs) * epochs / batch)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trainable, lr=lr, weight_decay=0.01)
    schedule = get_linear_schedule_with_warmup(optimiser, int(0.1 * steps), steps)
    model.train()
    done, seen, started, loss_sum = 0, 0, time.perf_counter(), 0.0
    while done < steps:
        for chunk in _batches(pairs, batch, rng):
            labels = torch.tensor([label for _, _, label in chunk], device=device)
            loss = model(**_encoded(tokenizer, chunk, device), labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
            done, seen, loss_sum = done + 1, seen + len(chunk), loss_sum + float(loss.detach())
            if done % 50 == 0 or done == steps:
                rate = seen / (time.perf_counter() - started)
                print(f"step {done}/{steps}  loss {loss_sum / 50:.3f}  {rate:.0f} pairs/s", flush=True)
                loss_sum = 0.0
            if done >= steps:
                break
    if validation:
        print(f"held out ({len(validation)} pairs): {validate(model, tokenizer, validation, device)}")
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))


def _encoded(tokenizer: Any, chunk: Sequence[Pair], device: str) -> Any:
    """A batch of pairs as the model reads them, on `device`."""
    return tokenizer(
        [a for a, _, _ in chunk],
        [b for _, b, _ in chunk],
        truncation=True,
        max_length=MAX_TOKENS,
        padding=True,
        return_tensors="pt",
    ).to(device)


def validate(model: Any, tokenizer: Any, pairs: Sequence[Pair], device: str) -> str:
    """Accuracy and contradiction-against-the-rest F1 on held-out pairs."""
    import torch

    model.eval()
    predicted: list[int] = []
    with torch.inference_mode():
        for start in range(0, len(pairs), 128):
            chunk = pairs[start : start + 128]
            predicted += model(**_encoded(tokenizer, chunk, device)).logits.argmax(dim=-1).tolist()
    model.train()
    gold = [label for _, _, label in pairs]
    hits = sum(p == g for p, g in zip(predicted, gold, strict=True))
    tp = sum(p == g == 0 for p, g in zip(predicted, gold, strict=True))
    found, real = predicted.count(0), gold.count(0)
    f1 = 2 * tp / max(found + real, 1)
    return f"accuracy {hits / len(pairs):.3f}  contradiction F1 {f1:.3f}"


def stage_public(
    public: dict[str, list[Pair]], caps: dict[str, int] | None, *, held_out: int = 0, seed: int = SEED
) -> tuple[list[Pair], list[Pair]]:
    """Stage 1's pairs (every public source, each capped at its number of pairs where `caps` says),
    and the MultiNLI matched pairs held out of them to validate on."""
    rng = random.Random(seed)
    pairs: list[Pair] = []
    validation: list[Pair] = []
    for name, rows in sorted(public.items()):
        rows = list(rows)
        rng.shuffle(rows)
        if name == "mnli_matched" and held_out:
            validation, rows = rows[:held_out], rows[held_out:]
        rows = rows[: caps[name]] if caps else rows
        print(f"{name}: {len(rows)} pairs {dict(Counter(LABELS[r[2]] for r in rows))}")
        pairs += rows
    return pairs, validation


def stage_project(public: dict[str, list[Pair]], replay: int, *, exclude: Sequence[Pair] = ()) -> list[Pair]:
    """Stage 2's pairs: the project's, both ways where symmetric, plus public replay (never a
    held-out pair)."""
    own = project_pairs()
    rng = random.Random(SEED + 1)
    # A statement says what it says: without these, word-for-word repeats read as contradictions.
    texts = sorted({t for a, b, _ in own for t in (a, b)})
    itself = [(t, t, 1) for t in rng.sample(texts, len(texts) // 4)]
    own = [*own, *_swapped(own), *itself]
    held_out = set(exclude)
    replayed = [p for rows in public.values() for p in rows if p not in held_out]
    rng.shuffle(replayed)
    print(f"project: {len(own)} pairs {dict(Counter(LABELS[r[2]] for r in own))}; replay {replay}")
    return [*own, *replayed[:replay]]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stage", choices=["all", "public", "project"], default="all")
    parser.add_argument("--replay", type=int, default=3000, help="public pairs replayed in stage 2")
    parser.add_argument("--checkpoint", type=Path, default=CHECKPOINT)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--device", default="cpu", help="torch device to train on: cpu, cuda")
    parser.add_argument("--public", choices=["capped", "all"], default="capped", help="stage 1's caps")
    parser.add_argument("--public-epochs", type=float, default=1.0, help="passes over stage 1's pairs")
    parser.add_argument("--project-epochs", type=float, default=2.0, help="passes over stage 2's pairs")
    parser.add_argument("--validate", type=int, default=0, help="MultiNLI matched pairs held out")
    parser.add_argument("--base", type=Path, help="the embedding model to start from (default: shipped)")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the public pairs' folder")
    args = parser.parse_args(argv)
    from training.quantise import export

    if args.base is None:
        from hub.embedding import default_model_path

        args.base = default_model_path()

    sources = public_pairs(args.shared)
    caps = None if args.public == "all" else PUBLIC
    public, held_out = stage_public(sources, caps, held_out=args.validate)
    if args.stage in ("all", "public"):
        train(
            public,
            start=args.base,
            out=args.checkpoint,
            epochs=args.public_epochs,
            lr=6e-5,
            device=args.device,
            validation=held_out,
        )
    if args.stage in ("all", "project"):
        final = args.checkpoint.with_name(args.checkpoint.name + "-project")
        train(
            stage_project(sources, args.replay, exclude=held_out),
            start=args.checkpoint,
            out=final,
            epochs=args.project_epochs,
            lr=3e-5,
            device=args.device,
            validation=held_out,
        )
        export(final, args.out)


if __name__ == "__main__":
    main()
