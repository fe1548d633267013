"""The pair judge's model: a cross-encoder fine-tuned from the embedding model memhub ships.

`training/pair_judge.py` trains it and writes this folder: `config.json` and `weights.safetensors`
(int8 per output row, with the word embeddings left out: they are the embedding model's own, read
from it here). MODEL_CARD.md says what it was trained on and how well it does.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hub.embedding import ModelIntegrityError, check_weights, default_model_path

FOLDER = Path(__file__).parent
WEIGHTS = FOLDER / "weights.safetensors"
LABELS = ("contradiction", "entailment", "neutral")
WORD_EMBEDDINGS = "bert.embeddings.word_embeddings.weight"
MAX_TOKENS = 80
BATCH = 32


class PairScorer(Protocol):
    """What the pair judge asks: a `PairModel`, or `memhub up`'s, run in a process of its own."""

    @property
    def vocabulary(self) -> frozenset[str]: ...

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray: ...


class PairModel:
    """Reads two statements and gives P(contradiction, entailment, neutral). One per process."""

    def __init__(
        self,
        *,
        embedding_model: Path | None = None,
        weights: Path = WEIGHTS,
        expected_sha256: str | None = None,
        threads: int | None = None,
    ) -> None:
        recorded = weights.with_suffix(".sha256")
        if expected_sha256 is None and recorded.is_file():
            expected_sha256 = recorded.read_text().split()[0]
        if expected_sha256 is not None or not weights.is_file():
            check_weights(
                weights,
                expected_sha256 or "",
                setting="MEMHUB_JUDGE_MODEL_SHA256",
                missing="train it with python -m training.pair_judge",
            )
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from safetensors.torch import load_file
        from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

        if threads:
            torch.set_num_threads(threads)
        base = embedding_model or default_model_path()
        self._torch = torch
        self.tokenizer: Any = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
        self.vocabulary = vocabulary(base)
        config = BertConfig.from_json_file(str(weights.parent / "config.json"))
        torch.manual_seed(0)  # the model is built before its weights are loaded: nothing random stays
        self.model: Any = BertForSequenceClassification(config)
        state = _dequantised(load_file(str(weights)))
        state[WORD_EMBEDDINGS] = load_file(str(base / "model.safetensors"))[
            "embeddings.word_embeddings.weight"
        ]
        missing, unexpected = self.model.load_state_dict(state, strict=False)
        if unexpected or [m for m in missing if not m.endswith("position_ids")]:
            raise ModelIntegrityError(f"{weights} does not fit its config: {missing or unexpected}")
        self.model.eval()  # type: ignore[no-untyped-call]

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Rows of P(contradiction, entailment, neutral), one per (premise, hypothesis) pair."""
        out = np.zeros((len(pairs), len(LABELS)), dtype=np.float32)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        torch = self._torch
        with torch.inference_mode():
            for start in range(0, len(order), BATCH):
                chunk = order[start : start + BATCH]
                enc = self.tokenizer(
                    [pairs[i][0] for i in chunk],
                    [pairs[i][1] for i in chunk],
                    truncation=True,
                    max_length=MAX_TOKENS,
                    padding=True,
                    return_tensors="pt",
                )
                logits = self.model(**enc).logits
                out[chunk] = torch.softmax(logits, dim=-1).numpy()
        return out


@lru_cache(maxsize=4)
def vocabulary(base: Path | None = None) -> frozenset[str]:
    """The words the embedding model knows whole (a language it was not trained on splits into word
    pieces): what a judge can read at all."""
    path = (base or default_model_path()) / "vocab.txt"
    return frozenset(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def _dequantised(tensors: dict[str, Any]) -> dict[str, Any]:
    state = {}
    for name, value in tensors.items():
        if name.endswith(".int8"):
            base = name.removesuffix(".int8")
            state[base] = value.float() * tensors[f"{base}.scale"][:, None]
        elif not name.endswith(".scale"):
            state[name] = value
    return state
