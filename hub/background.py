"""The workers' model work in a process of its own, at a lower OS priority than the API's searches.

`memhub up` serves searches and runs its workers in one process. torch's thread pool belongs to a
process, so a batch the ingest encodes, or the pair judge reading a review's pairs, holds the cores a
search's query encode needs, and no thread priority can put the search first. Run in a second
process, niced, that work yields the cores to a search by the OS scheduler's own rule.

The process only computes: it holds no store, no Redis connection and no lock, so either side
crashing loses nothing (the job that asked fails and is retried), and it exits when the hub does,
`kill -9` included.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from hub.embedding import Embedder, ModelIdentity, ModelIntegrityError, load_embedder
from hub.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")

# The models the background process has loaded (one process, one of each).
_loaded: dict[str, Any] = {}


def _start(settings: Settings, parent: int) -> None:
    """Runs first in the background process: lower its priority, then load the settings' models."""
    os.nice(settings.background_niceness)
    # Ctrl-C reaches the whole process group; the hub stops this process itself once its workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(parent,), name="memhub-exit-with-hub", daemon=True).start()
    # OpenMP reads this once, when torch loads: the pair judge's idle threads then sleep instead of
    # spinning on the cores the API's searches need (ONNX Runtime's sessions never spin: hub.embedding_onnx).
    if "torch" in sys.modules:
        log.warning("torch loaded before the background process set OMP_WAIT_POLICY; its threads will spin")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    _loaded["embedder"] = load_embedder(settings)
    if settings.judge != "rules":
        from hub.conflicts.judge.combined import load_pair_model

        _loaded["pair_model"] = load_pair_model(settings)


def _exit_with(parent: int) -> None:
    # A parent killed outright cannot stop its children; its child is handed to another parent then.
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def _identity() -> ModelIdentity:
    identity: ModelIdentity = _loaded["embedder"].identity
    return identity


def _encode(texts: list[str], batch_size: int) -> np.ndarray:
    vectors: np.ndarray = _loaded["embedder"].encode(texts, batch_size=batch_size)
    return vectors


def _probabilities(pairs: list[tuple[str, str]]) -> np.ndarray:
    probabilities: np.ndarray = _loaded["pair_model"].probabilities(pairs)
    return probabilities


class BackgroundProcess:
    """One process, started with the hub, that encodes the workers' batches and runs the pair judge."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._pool = self._new_pool()
        # Loading starts now, beside the API's own model load.
        self._ready = self._pool.submit(_identity)

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn: a forked copy of a process whose torch has started threads can hang in them.
        return ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start,
            initargs=(self._settings, os.getpid()),
        )

    def wait_ready(self, expected: ModelIdentity, *, timeout: float = 300.0) -> None:
        """Wait until the models are loaded, refusing a process whose embedding model is not `expected`."""
        try:
            identity = self._ready.result(timeout)
        except BrokenProcessPool as exc:
            raise RuntimeError(
                "memhub's background process could not load its models; see the lines above for why"
            ) from exc
        if identity != expected:
            raise ModelIntegrityError(
                f"the background process loaded {identity.describe()}, the API {expected.describe()}"
            )

    def call(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in the background process; once more in a new one if that one died."""
        pool = self._pool
        try:
            return pool.submit(function, *args).result()
        except BrokenProcessPool:
            with self._lock:
                if self._pool is pool:
                    log.warning("memhub's background process died; starting another")
                    self._pool = self._new_pool()
            return self._pool.submit(function, *args).result()

    def embedder(self, local: Embedder) -> BackgroundEmbedder:
        return BackgroundEmbedder(local=local, background=self)

    def pair_model(self) -> BackgroundPairModel:
        from hub.conflicts.judge.pairmodel import vocabulary

        return BackgroundPairModel(background=self, vocabulary=vocabulary())

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


@dataclass
class BackgroundEmbedder:
    """The hub's embedding model: one query at the caller's priority, batches in the background."""

    local: Embedder
    background: BackgroundProcess

    @property
    def identity(self) -> ModelIdentity:
        return self.local.identity

    @property
    def dimensions(self) -> int:
        return self.local.dimensions

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        if not texts:
            return self.local.encode(texts)
        return self.background.call(_encode, list(texts), batch_size)

    def encode_one(self, text: str) -> list[float]:
        return self.local.encode_one(text)


@dataclass
class BackgroundPairModel:
    """The pair judge's model, run in the background process."""

    background: BackgroundProcess
    vocabulary: frozenset[str]

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return self.background.call(_probabilities, list(pairs))
