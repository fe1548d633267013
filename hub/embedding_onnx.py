"""The embedding model run by ONNX Runtime: the vectors torch gives, in less time.

On a CPU most of torch's time for a short text goes to dispatching the model's operators one by
one; ONNX Runtime runs the same graph, fused, with little of that. The whole sentence-transformers
pipeline (transformer, pooling, any projection) is exported once per model into a cache folder, and
used only where it gives the model's own vectors on probe texts, so any model sentence-transformers
loads may be tried: one that cannot be exported, or that disagrees, keeps torch.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import onnxruntime
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

# Texts the export must embed as torch does: scripts, lengths and padding within one batch.
PROBES = (
    "Dana moved the dentist appointment to Tuesday at 16:30",
    "ok",
    "נתנאל מסיים לעבוד ב-18:00 ביום חמישי",
    "Lucía ya no trabaja allí, ahora está en una clínica de Madrid",
    "Reminder: the quarterly report for the garden project is due next Friday; "
    "Omer still owes the photos, the receipts and the budget table, and the client asked twice.",
)
# Largest difference allowed between a coordinate of torch's unit vector and the export's.
TOLERANCE = 1e-4
EXPORT_VERSION = "1"  # part of the cache key: a change to how the export is made makes a new file


def default_cache_dir() -> Path:
    """Where exports are kept unless MEMHUB_MODEL_CACHE_DIR says otherwise: the user's cache folder."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memhub" / "models"


class OnnxPipeline:
    """A sentence-transformers model's pipeline as one ONNX Runtime session; its rows are unit length."""

    def __init__(self, model: SentenceTransformer, session: onnxruntime.InferenceSession) -> None:
        self.model = model
        self.session = session
        self.inputs = [node.name for node in session.get_inputs()]

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        # Longest first, as sentence-transformers does: texts of like length share a batch's padding.
        order = np.argsort([-len(text) for text in texts], kind="stable")
        batches = []
        for start in range(0, len(texts), batch_size):
            features = self.model.preprocess([texts[i] for i in order[start : start + batch_size]])
            batches.append(self.session.run(None, {name: features[name].numpy() for name in self.inputs})[0])
        matrix = np.empty((len(texts), batches[0].shape[1]), dtype=np.float32)
        matrix[order] = np.concatenate(batches)  # back in the order the texts came in
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        out: np.ndarray = matrix / np.clip(norms, 1e-12, None)
        return out


def cache_key(folder: Path, weights_sha256: str) -> str:
    """The weights' hash with the model's configuration: the same weights pooled otherwise export anew."""
    digest = hashlib.sha256(f"{EXPORT_VERSION} {weights_sha256}\n".encode())
    for config in sorted(p for p in folder.rglob("*.json") if p.is_file()):
        digest.update(config.relative_to(folder).as_posix().encode() + b"\n" + config.read_bytes())
    return digest.hexdigest()[:32]


def load_onnx(
    model: SentenceTransformer,
    *,
    key: str,
    cache_dir: Path,
    threads: int | None,
) -> OnnxPipeline | None:
    """The model as an ONNX Runtime session, exported into `cache_dir` if not there yet; None (torch
    stays) where it cannot be exported or does not give torch's vectors."""
    expected = model.encode(
        list(PROBES), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    path = cache_dir / f"{key}.onnx"
    if path.is_file():
        pipeline = _checked(model, path, threads, expected)
        if pipeline is not None:
            return pipeline
        log.warning("embedding model: the export at %s is not usable; exporting it again", path)
    started = time.perf_counter()
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(suffix=".onnx.tmp", dir=cache_dir)
        cached = True
    except OSError:  # a cache this process may not write: export for this process only
        handle, name = tempfile.mkstemp(suffix=".onnx.tmp")
        cached = False
    os.close(handle)
    written = Path(name)
    try:
        _export(model, written)
        pipeline = _checked(model, written, threads, expected)
        if pipeline is None:
            return None
        if cached:
            written.replace(path)  # atomic: two processes exporting at once leave one whole file
        log.info("embedding model: exported to ONNX in %.1f s (%s)", time.perf_counter() - started, path)
        return pipeline
    except Exception as exc:  # any model may be tried; one that will not export keeps torch
        log.warning("embedding model: no ONNX export (%s: %s); running it on torch", type(exc).__name__, exc)
        return None
    finally:
        written.unlink(missing_ok=True)


def _checked(
    model: SentenceTransformer, path: Path, threads: int | None, expected: np.ndarray
) -> OnnxPipeline | None:
    try:
        pipeline = OnnxPipeline(model, _session(path, threads))
        # Together (padded to the longest) and one by one (a query), as the graph may have been
        # traced through a branch taken for one shape of input only.
        together = pipeline.encode(list(PROBES), batch_size=len(PROBES))
        alone = np.vstack([pipeline.encode([probe]) for probe in PROBES])
    except Exception as exc:  # a truncated or foreign file: export again
        log.warning("embedding model: cannot run %s (%s: %s)", path, type(exc).__name__, exc)
        return None
    difference = max(float(np.abs(got - expected).max()) for got in (together, alone))
    if difference > TOLERANCE:
        log.warning(
            "embedding model: the ONNX export differs from torch by %.2g; running it on torch", difference
        )
        return None
    return pipeline


def _session(path: Path, threads: int | None) -> onnxruntime.InferenceSession:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads or 0  # 0: one per physical core
    options.inter_op_num_threads = 1
    # Idle threads sleep instead of spinning: between a server's queries a spinning pool holds the
    # cores that the rest of the hub (its workers, its background process) needs at that moment.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _export(model: SentenceTransformer, path: Path) -> None:
    import torch

    features = model.preprocess(list(PROBES[:2]))
    names = [name for name, value in features.items() if isinstance(value, torch.Tensor)]

    class Pipeline(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors: torch.Tensor) -> Any:
            return self.model(dict(zip(names, tensors, strict=True)))["sentence_embedding"]

    axes = {name: {0: "batch", 1: "tokens"} for name in names}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on Python branches it fixed for these shapes
        torch.onnx.export(
            Pipeline().eval(),
            tuple(features[name] for name in names),
            str(path),
            input_names=names,
            output_names=["sentence_embedding"],
            dynamic_axes={**axes, "sentence_embedding": {0: "batch"}},
            opset_version=17,
            dynamo=False,
        )
