"""A second, smaller sentence-transformers model, built here from the packaged MiniLM: no download."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.embedding import Embedder

SECOND_DIMENSIONS = 128


@pytest.fixture(scope="session")
def second_model_path(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MiniLM with a fixed random projection to 128 dimensions: a model of another size and other weights,
    that still ranks sentences much as MiniLM does (a random projection keeps cosines close)."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Dense

    torch.manual_seed(31)
    projection = Dense(
        in_features=embedder.dimensions,
        out_features=SECOND_DIMENSIONS,
        bias=False,
        activation_function=torch.nn.Identity(),
    )
    path = tmp_path_factory.mktemp("models") / "minilm-128"
    SentenceTransformer(modules=[*embedder.model, projection], device="cpu").save(str(path))
    return path


@pytest.fixture(scope="session")
def second_embedder(second_model_path: Path) -> Embedder:
    return Embedder(second_model_path)
