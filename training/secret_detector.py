"""Train the model that reads secrets said in words (`hub/stated_secrets.py`).

    python -m training.secret_detector      # writes hub/secret_model/ (weights.npz, config.json)

Data, each value-shaped token of a sentence one example (`hub.stated_secrets.candidates`):
- `tests/data/secrets_i18n.jsonl`, every split but the blind ones (`BLIND`): the secret's value is an
  example of its kind, every other token of any sentence is `none`;
- `tests/data/secrets_corpus.jsonl`, the English secrets and look-alikes, the same way;
- real chat as look-alikes: the messages of REALTALK's odd-numbered conversations
  (`../shared/data/realtalk/`, read, not copied); the even ones measure false refusals.
A multinomial logistic regression (scikit-learn, lbfgs, needed here only: the hub reads the weights
with numpy), secrets weighted 3 to 1 against `none`.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hub.stated_secrets import FOLDER, NONE, WIDTH, candidates, features

REPO = Path(__file__).resolve().parent.parent
LABELLED = REPO / "tests" / "data" / "secrets_i18n.jsonl"
CORPUS = REPO / "tests" / "data" / "secrets_corpus.jsonl"
BLIND = frozenset({"fresh4", "fresh5"})
# The kinds people say in words; keys and tokens with a provider's shape are the rules' alone.
STATED = frozenset(
    {"pin", "password", "passphrase", "access_code", "card_security_code", "bank_login", "recovery_codes"}
)

Sentence = tuple[str, str | None, str | None]  # text, the secret's value, its kind


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def sentences() -> list[Sentence]:
    from benchmarks.realtalk import conversation_files, load

    out: list[Sentence] = []
    for row in _rows(LABELLED):
        if row["split"] in BLIND:
            continue
        secret = row["label"] == "secret"
        out.append(
            (str(row["text"]), str(row["value"]) if secret else None, str(row["kind"]) if secret else None)
        )
    for row in _rows(CORPUS):
        value, kind = row.get("value"), row.get("kind")
        if kind and kind not in STATED:
            continue
        out.append((str(row["text"]), str(value) if value else None, str(kind) if kind else None))
    for path in conversation_files()[0::2]:
        out += [(message.text, None, None) for message in load(path).messages]
    return out


def examples(data: Sequence[Sentence]) -> tuple[list[tuple[str, int, int, str]], list[str]]:
    items, labels = [], []
    for text, value, kind in data:
        for start, end, token in candidates(text):
            secret = value is not None and kind is not None and (token in value or value in token)
            items.append((text, start, end, token))
            labels.append(kind if secret and kind else NONE)
    return items, labels


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=FOLDER)
    args = parser.parse_args(argv)
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    items, labels = examples(sentences())
    print(f"{len(items)} tokens: {dict(Counter(labels))}")
    kinds = sorted(set(labels))
    weights = {kind: 1.0 if kind == NONE else 3.0 for kind in kinds}
    model = LogisticRegression(C=4.0, max_iter=300, class_weight=weights)
    rows = [features(*item) for item in items]
    matrix = csr_matrix(
        (
            [v for row in rows for v in row.values()],
            [c for row in rows for c in row],
            np.cumsum([0] + [len(row) for row in rows]),
        ),
        shape=(len(rows), WIDTH),
    )
    model.fit(matrix, labels)
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out / "weights.npz",
        coef=model.coef_.astype(np.float16),
        intercept=model.intercept_.astype(np.float32),
    )
    (args.out / "config.json").write_text(json.dumps({"kinds": list(model.classes_)}, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
