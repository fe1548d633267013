"""Train the model that reads secrets said in words (`hub/stated_secrets.py`).

    python -m training.secret_detector        # writes hub/secret_model/ (weights.npz, config.json)
    python -m training.secret_detector --cv   # held-out refusals per threshold; writes nothing
    python -m training.secret_detector --halves   # each blind half learned from, held out, as screened

Data, each value-shaped token of a sentence one example for the tokens' classifier, and each phrase of words
given as something one for the phrases' (`hub.stated_secrets.candidates`; a phrase is a secret's only where
the secret is a phrase too):
- `tests/data/secrets_i18n.jsonl`, every split but the blind ones (`BLIND`): the secret's value is an
  example of its kind, every other token of any sentence is `none`;
- `training/data/secrets_train.jsonl`, secrets and look-alikes in the nine languages from thirty
  writers (`writer`: terse, relay, clerk, ...), the same way;
- `tests/data/secrets_corpus.jsonl`, the English secrets and look-alikes, the same way;
- real chat as look-alikes: the messages of REALTALK's odd-numbered conversations
  (`../shared/data/realtalk/`, read, not copied); the even ones measure false refusals;
- the project's own memories measure false refusals too, never learned from (`own_memories`): the
  retrieval set's memories, a week of a daily log and the chat conversations the pair judge learns from.
A multinomial logistic regression (scikit-learn, lbfgs, needed here only: the hub reads the weights
with numpy), secrets weighted 3 to 1 against `none`.

`--cv` holds out each writer of the training sentences and each split of the labelled set in turn,
trains on the rest, and prints per threshold how many held-out secrets the model refuses (and names
with their kind), how many held-out look-alikes it refuses, and how many messages of REALTALK's even
conversations and of the project's own memories any of those models refuses, and the model trained on
everything: the measure `THRESHOLD` is chosen on (tokens only).

`--halves` holds out each half of the labelled set written blind that the model learns from (fresh4 on),
trains both classifiers on the rest, and screens the half as the hub does (`hub.secrets.find_secrets`,
rules and model), per threshold for phrases, and screens the guard texts with those models and with the
model trained on everything: the measure `PHRASE_THRESHOLD` is chosen on.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from hub.stated_secrets import (
    FOLDER,
    NONE,
    THRESHOLD,
    WIDTH,
    StatedSecretModel,
    candidates,
    features,
    is_phrase,
    readable,
)

REPO = Path(__file__).resolve().parent.parent
LABELLED = REPO / "tests" / "data" / "secrets_i18n.jsonl"
TRAIN = REPO / "training" / "data" / "secrets_train.jsonl"
CORPUS = REPO / "tests" / "data" / "secrets_corpus.jsonl"
RETRIEVAL = REPO / "benchmarks" / "data" / "retrieval"
DAILY = REPO / "benchmarks" / "data" / "daily_week" / "memory" / "daily"
CHATS = REPO / "training" / "data"
# Halves written blind and not trained on: each measures a change once and is then spent (docs/secrets.md
# says which are). Spent halves up to fresh19 joined the training data; those since stay out, because
# learning from them has each time made the shipped model refuse a REALTALK message (docs/secrets.md).
BLIND = frozenset(
    {"fresh20", "fresh21", "fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28"}
    | {"fresh29", "fresh30", "fresh31", "fresh32"}
)
# The kinds people say in words; keys and tokens with a provider's shape are the rules' alone.
STATED = frozenset(
    {"pin", "password", "passphrase", "access_code", "card_security_code", "bank_login", "recovery_codes"}
)
# The first half written blind after the model existed: fresh3 measured the rules alone, and its misses
# were then read to mend them, so it is no held-out measure of the model.
FIRST_MODEL_HALF = 4
THRESHOLDS = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))

Sentence = tuple[str, str | None, str | None]  # text, the secret's value, its kind
Item = tuple[str, int, int, str]  # text, start, end, value


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _sentence(row: dict[str, object]) -> Sentence:
    secret = row["label"] == "secret"
    return str(row["text"]), str(row["value"]) if secret else None, str(row["kind"]) if secret else None


def grouped() -> list[tuple[str, Sentence]]:
    """Every training sentence with its group: a split of the labelled set, a writer of the training
    sentences ("writer:terse"), "corpus" or "realtalk"."""
    from benchmarks.realtalk import conversation_files, load

    out: list[tuple[str, Sentence]] = []
    out += [(str(row["split"]), _sentence(row)) for row in _rows(LABELLED) if row["split"] not in BLIND]
    out += [(f"writer:{row['writer']}", _sentence(row)) for row in _rows(TRAIN)]
    for row in _rows(CORPUS):
        value, kind = row.get("value"), row.get("kind")
        if kind and kind not in STATED:
            continue
        out.append(("corpus", (str(row["text"]), str(value) if value else None, str(kind) if kind else None)))
    for path in conversation_files()[0::2]:
        out += [("realtalk", (message.text, None, None)) for message in load(path).messages]
    return out


def own_memories() -> list[str]:
    """Texts the hub stores that hold no secret, of the kinds agents write: the retrieval set's facts, log
    lines and chat turns, a daily log's lines and chat messages. A log line opening with a host or a ticket
    is as much a look-alike as a number in a sentence."""
    from hub.markdown.blocks import read_blocks
    from hub.markdown.entries import parse_entry

    texts = [str(row["text"]) for path in sorted(RETRIEVAL.glob("*memories.jsonl")) for row in _rows(path)]
    for path in sorted(DAILY.glob("*.md")):
        # The lines as `memhub import` reads them: no headings, no list marks or boxes. Not
        # `read_workspace` itself, which screens each line with the model this measures.
        blocks, _ = read_blocks(path.read_text(encoding="utf-8"))
        texts += [entry.text for block in blocks if (entry := parse_entry(block.text, dated=False)).text]
    texts += [
        str(row["text"]) for path in sorted(CHATS.glob("chat_conversations*.jsonl")) for row in _rows(path)
    ]
    return texts


def _guards() -> tuple[list[str], int]:
    """What no threshold may refuse: REALTALK's even conversations' messages, then the project's own
    memories; and how many of the texts are messages."""
    from benchmarks.realtalk import conversation_files, load

    chat = [m.text for path in conversation_files()[1::2] for m in load(path).messages]
    return chat + own_memories(), len(chat)


def _guarded(refused: Sequence[int], texts: int, messages: int) -> str:
    """How many of the guard texts refused (their indices) are messages, and how many memories."""
    ours = sum(index >= messages for index in refused)
    return f"{len(refused) - ours}/{messages} {ours}/{texts - messages}"


def sentences() -> list[Sentence]:
    return [sentence for _, sentence in grouped()]


def _is_secret(token: str, value: str | None, kind: str | None) -> bool:
    if value is None or kind is None:
        return False
    if is_phrase(token) and not is_phrase(value):
        return False  # a clause that holds a PIN is not the PIN: its token is
    return token in value or value in token


def examples(data: Sequence[Sentence], phrases: bool = False) -> tuple[list[Item], list[str]]:
    """Each candidate of the sentences, the tokens or the phrases (`is_phrase`), with its label."""
    items, labels = [], []
    for text, value, kind in data:
        for start, end, token in candidates(text):
            if is_phrase(token) != phrases:
                continue
            items.append((text, start, end, token))
            labels.append(kind if kind and _is_secret(token, value, kind) else NONE)
    return items, labels


def _matrix(items: Sequence[Item]) -> Any:  # a scipy CSR matrix: scipy has no types
    from scipy.sparse import csr_matrix

    rows = [features(*item) for item in items]
    return csr_matrix(
        (
            np.fromiter((v for row in rows for v in row.values()), dtype=np.float64),
            np.fromiter((c for row in rows for c in row), dtype=np.int64),
            np.cumsum([0] + [len(row) for row in rows]),
        ),
        shape=(len(rows), WIDTH),
    )


def _fit(matrix: Any, labels: Sequence[str] | np.ndarray) -> Any:
    from sklearn.linear_model import LogisticRegression

    weights = {kind: 1.0 if kind == NONE else 3.0 for kind in set(labels)}
    return LogisticRegression(C=4.0, max_iter=300, class_weight=weights).fit(matrix, labels)


def _read(data: Sequence[Sentence]) -> tuple[list[Item], list[int], list[bool]]:
    """The tokens the hub's model reads in each sentence (`readable`, phrases left out): items, the
    sentence of each, and whether each is (part of) the sentence's secret."""
    items, owner, secret = [], [], []
    for index, (text, value, kind) in enumerate(data):
        # Tokens only: phrases of words have a threshold of their own, chosen by `--halves`.
        for start, end, token in (found for found in readable(text) if not is_phrase(found[2])):
            items.append((text, start, end, token))
            owner.append(index)
            secret.append(_is_secret(token, value, kind))
    return items, owner, secret


def cross_validate() -> None:
    data = grouped()
    train_items: list[Item] = []
    train_labels: list[str] = []
    train_group: list[str] = []
    for group, sentence in data:
        items, kinds = examples([sentence])
        train_items += items
        train_labels += kinds
        train_group += [group] * len(items)
    matrix, labels, groups = _matrix(train_items), np.array(train_labels), np.array(train_group)
    held = [g for g in dict.fromkeys(group for group, _ in data) if g not in {"corpus", "realtalk"}]
    chat, messages = _guards()
    chat_items, chat_of, _ = _read([(text, None, None) for text in chat])
    chat_matrix, chat_owner = _matrix(chat_items), np.array(chat_of, dtype=np.int64)
    print(
        f"{len(train_items)} tokens; held out in turn: {', '.join(held)};"
        f" {messages} REALTALK messages, {len(chat) - messages} own memories"
    )
    # Per held-out sentence: its best secret score, and the best score of its secret named with its kind.
    score: list[float] = []
    named: list[float] = []
    is_secret: list[bool] = []
    chat_score = np.zeros((len(held), len(chat)))
    for fold, group in enumerate(held):
        model = _fit(matrix[groups != group], labels[groups != group])
        none = list(model.classes_).index(NONE)
        out = [sentence for g, sentence in data if g == group]
        items, owner, secret = _read(out)
        best, kind_best = np.zeros(len(out)), np.zeros(len(out))
        if items:
            probs = model.predict_proba(_matrix(items))
            for index, hit, row in zip(owner, secret, probs, strict=True):
                p = 1.0 - row[none]
                best[index] = max(best[index], p)
                row = row.copy()
                row[none] = -1.0
                if hit and model.classes_[int(row.argmax())] == out[index][2]:
                    kind_best[index] = max(kind_best[index], p)
        np.maximum.at(chat_score[fold], chat_owner, 1.0 - model.predict_proba(chat_matrix)[:, none])
        score += list(best)
        named += list(kind_best)
        kept = np.array([sentence[1] is not None for sentence in out], dtype=bool)
        is_secret += list(kept)
        print(
            f"  {group:16} at {THRESHOLD}: secrets {np.sum(best[kept] >= THRESHOLD)}/{kept.sum()},"
            f" look-alikes {np.sum(best[~kept] >= THRESHOLD)}/{(~kept).sum()}",
            flush=True,
        )
    scores, names, secrets = np.array(score), np.array(named), np.array(is_secret)
    chat_any = chat_score.max(axis=0)
    # The model that ships learns from every writer: a fold without the one that teaches log lines is no model
    # anyone runs, and the guard texts are never learned from, so the shipped model's refusals are held out too.
    full = _fit(matrix, labels)
    chat_full = np.zeros(len(chat))
    np.maximum.at(
        chat_full, chat_owner, 1.0 - full.predict_proba(chat_matrix)[:, list(full.classes_).index(NONE)]
    )
    print(
        "\nthreshold  secrets refused (named)   look-alikes refused   REALTALK messages / own memories refused:"
    )
    print(" " * 61 + "by any held-out model   by the model on all")
    for t in THRESHOLDS:
        print(
            f"  {t:.2f}     {np.sum(scores[secrets] >= t):4}/{secrets.sum()} ({np.sum(names[secrets] >= t):4})"
            f"        {np.sum(scores[~secrets] >= t):3}/{(~secrets).sum()}"
            f"              {_guarded(np.flatnonzero(chat_any >= t).tolist(), len(chat), messages):21}"
            f"   {_guarded(np.flatnonzero(chat_full >= t).tolist(), len(chat), messages)}"
        )


def fit(data: Sequence[Sentence]) -> tuple[Any, Any]:
    """The two classifiers, for tokens and for phrases, fitted on the sentences' candidates."""
    (tokens, token_labels), (phrases, phrase_labels) = examples(data), examples(data, phrases=True)
    return _fit(_matrix(tokens), token_labels), _fit(_matrix(phrases), phrase_labels)


def save(folder: Path, tokens: Any, phrases: Any) -> None:
    """Write the fitted classifiers where `hub.stated_secrets.StatedSecretModel.load` reads them."""
    folder.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        folder / "weights.npz",
        coef=tokens.coef_.astype(np.float16),
        intercept=tokens.intercept_.astype(np.float32),
        phrase_coef=phrases.coef_.astype(np.float16),
        phrase_intercept=phrases.intercept_.astype(np.float32),
    )
    kinds = {"kinds": list(tokens.classes_), "phrase_kinds": list(phrases.classes_)}
    (folder / "config.json").write_text(json.dumps(kinds, indent=2) + "\n")


def held_out_halves() -> None:
    """Each half written blind that the model learns from, held out in turn, measured as the hub screens
    (rules and model, `hub.secrets.find_secrets`), per threshold for phrases of words; and the guard texts
    screened by those models and by the model trained on everything, the one that ships."""
    from unittest.mock import patch

    from benchmarks.secrets_i18n import load as labelled
    from benchmarks.secrets_i18n import named
    from hub import stated_secrets
    from hub.secrets import find_secrets

    data, rows = grouped(), labelled()
    numbered = ((g, re.fullmatch(r"fresh(\d+)", g)) for g in dict.fromkeys(group for group, _ in data))
    held = [g for g, number in numbered if number and int(number[1]) >= FIRST_MODEL_HALF]
    chat, messages = _guards()
    counts = {t: Counter[str]() for t in THRESHOLDS}
    chat_refused: dict[float, set[int]] = {t: set() for t in THRESHOLDS}
    print(
        f"held out in turn: {', '.join(held)}; {messages} REALTALK messages, {len(chat) - messages} own memories",
        flush=True,
    )

    def screened(fitted: StatedSecretModel, threshold: float) -> Any:
        """`find_secrets` with `fitted`'s phrases read from `threshold`."""
        phrases = replace(fitted.phrases, threshold=threshold)
        return patch.object(stated_secrets, "model", return_value=replace(fitted, phrases=phrases))

    def guards_refused(fitted: StatedSecretModel) -> dict[float, list[int]]:
        """The guard texts `fitted` refuses, per phrase threshold. A text a threshold leaves alone, every
        higher one leaves alone too (the rules and tokens do not depend on it): only those refused at the
        last, lower threshold are screened again."""
        refused, out = list(range(len(chat))), {}
        for t in THRESHOLDS:
            with screened(fitted, t):
                refused = [i for i in refused if find_secrets(chat[i], said=True)]
            out[t] = refused
        return out

    for group in held:
        fitted = _loaded(fit([sentence for g, sentence in data if g != group]))
        for t in THRESHOLDS:
            with screened(fitted, t):
                count = counts[t]
                for row in (row for row in rows if row["split"] == group):
                    refused = bool(find_secrets(row["text"], said=True))
                    if row["label"] == "secret":
                        count["secrets"] += 1
                        count["refused"] += refused
                        count["named"] += refused and named(row)
                        count["passphrases"] += row["kind"] == "passphrase"
                        count["passphrases named"] += row["kind"] == "passphrase" and refused and named(row)
                    else:
                        count["look-alikes"] += 1
                        count["look-alikes refused"] += refused
        for t, refused in guards_refused(fitted).items():
            chat_refused[t].update(refused)
        print(f"  {group} done", flush=True)
    shipped = guards_refused(_loaded(fit([sentence for _, sentence in data])))
    print(f"\nphrase threshold (tokens at {THRESHOLD}): secrets refused (named), passphrases named,")
    print(
        "look-alikes refused, REALTALK messages / own memories refused by any held-out model, by the model on all"
    )
    for t in THRESHOLDS:
        c = counts[t]
        print(
            f"  {t:.2f}  {c['refused']:4}/{c['secrets']} ({c['named']:4})"
            f"  {c['passphrases named']:3}/{c['passphrases']}"
            f"  {c['look-alikes refused']:3}/{c['look-alikes']}"
            f"  {_guarded(sorted(chat_refused[t]), len(chat), messages):21}"
            f"  {_guarded(shipped[t], len(chat), messages)}"
        )


def _loaded(classifiers: tuple[Any, Any]) -> StatedSecretModel:
    """The fitted classifiers read back as the hub reads the shipped weights (float16), not as
    scikit-learn holds them."""
    with tempfile.TemporaryDirectory() as folder:
        save(Path(folder), *classifiers)
        return StatedSecretModel.load(Path(folder))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=FOLDER)
    parser.add_argument("--cv", action="store_true", help="print held-out refusals per threshold")
    parser.add_argument(
        "--halves", action="store_true", help="print each blind half's, held out, as screened"
    )
    args = parser.parse_args(argv)
    if args.cv:
        cross_validate()
        return
    if args.halves:
        held_out_halves()
        return
    data = sentences()
    for name, phrases in (("tokens", False), ("phrases", True)):
        print(f"{name}: {dict(Counter(examples(data, phrases)[1]))}")
    save(args.out, *fit(data))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
