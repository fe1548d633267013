"""The background process of `memhub up`: the same model work as in-process, niced, gone with the hub."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import numpy as np
import pytest

from hub.background import BackgroundProcess
from hub.conflicts.judge.pairmodel import PairModel
from hub.embedding import Embedder
from hub.settings import Settings
from tests.helpers import alive

TEXTS = ["Dana moved the design sync to Wednesday", "the spare tent is in the garage", "Yoni likes tea"]
PAIRS = [("Dana works until 18:00", "Dana works until 20:00"), ("Yoni likes tea", "Yoni enjoys tea")]


@pytest.fixture(scope="module")
def background() -> Iterator[BackgroundProcess]:
    process = BackgroundProcess(Settings(background_niceness=7))
    yield process
    process.close()


def test_it_computes_what_the_models_compute_in_process(
    background: BackgroundProcess, embedder: Embedder, pair_model: PairModel
) -> None:
    background.wait_ready(embedder.identity)
    encoder = background.embedder(embedder)

    assert np.allclose(encoder.encode(TEXTS), embedder.encode(TEXTS), atol=1e-5)
    assert encoder.encode_one(TEXTS[0]) == embedder.encode_one(TEXTS[0])
    assert np.allclose(
        background.pair_model().probabilities(PAIRS), pair_model.probabilities(PAIRS), atol=1e-5
    )


def test_it_runs_at_the_niceness_settings_give(background: BackgroundProcess) -> None:
    pid = background.call(os.getpid)

    assert pid != os.getpid()
    assert os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0) + 7


def test_its_torch_threads_wait_passively_and_the_hubs_environment_is_left_alone(
    background: BackgroundProcess, embedder: Embedder
) -> None:
    background.wait_ready(embedder.identity)

    assert background.call(os.getenv, "OMP_WAIT_POLICY") == "PASSIVE"
    assert os.getenv("OMP_WAIT_POLICY") is None


def test_a_background_process_that_died_is_replaced(
    background: BackgroundProcess, embedder: Embedder
) -> None:
    first = background.call(os.getpid)
    os.kill(first, signal.SIGKILL)

    vectors = background.embedder(embedder).encode(TEXTS)

    assert background.call(os.getpid) != first
    assert np.allclose(vectors, embedder.encode(TEXTS), atol=1e-5)


def test_it_exits_when_the_hub_is_killed_outright() -> None:
    hub = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, time\n"
            "from hub.background import BackgroundProcess\n"
            "from hub.settings import Settings\n"
            "background = BackgroundProcess(Settings(judge='rules'))\n"
            "print(background.call(os.getpid), flush=True)\n"
            "time.sleep(600)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert hub.stdout is not None
    child = int(hub.stdout.readline())
    assert alive(child)

    hub.kill()
    hub.wait()
    deadline = time.monotonic() + 10
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)

    assert not alive(child)
