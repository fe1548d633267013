"""The embedding model on ONNX Runtime: torch's vectors, exported once, and torch wherever it cannot be."""

import logging
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest

from hub import embedding_onnx
from hub.embedding import Embedder, load_embedder
from hub.settings import Settings

# Not the export's probes: other scripts, a text longer than the model reads, repeated and empty words.
TEXTS = [
    "Rina's flight to Lisbon leaves at 06:40 from terminal 3",
    "Ярослав перенёс встречу с бухгалтером на пятницу",
    "تم تأجيل اجتماع المشروع إلى الأسبوع القادم",
    "会议改到星期三下午三点",
    "ok ok ok ok",
    " ".join(f"item {i} of the packing list for the camping trip" for i in range(120)),
    "Pedí cita con la dermatóloga para el 14 de marzo",
]


@pytest.fixture(scope="module")
def torch_embedder() -> Embedder:
    return Embedder(expected_sha256=Settings().model_sha256, runtime="torch")


def test_the_packaged_model_runs_on_onnx_and_gives_torchs_vectors_for_texts_it_was_not_checked_on(
    embedder: Embedder, torch_embedder: Embedder
) -> None:
    assert embedder.runtime == "onnx" and torch_embedder.runtime == "torch"
    batch, expected = embedder.encode(TEXTS, batch_size=3), torch_embedder.encode(TEXTS)
    assert batch.shape == expected.shape == (len(TEXTS), embedder.dimensions)
    assert np.abs(batch - expected).max() < 1e-4
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    for text, vector in zip(TEXTS, expected, strict=True):
        assert np.abs(np.asarray(embedder.encode_one(text)) - vector).max() < 1e-4
    # What a search does with them: the same order of every text against every other.
    assert (np.argsort(-(batch @ batch.T), axis=1) == np.argsort(-(expected @ expected.T), axis=1)).all()


def test_a_model_is_exported_once_and_found_again(tmp_path: Path) -> None:
    first = Embedder(cache_dir=tmp_path)
    [export] = tmp_path.glob("*.onnx")
    made = export.stat().st_mtime_ns
    second = Embedder(cache_dir=tmp_path)
    assert first.runtime == second.runtime == "onnx"
    assert list(tmp_path.iterdir()) == [export] and export.stat().st_mtime_ns == made


def test_a_damaged_export_is_made_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    Embedder(cache_dir=tmp_path)
    [export] = tmp_path.glob("*.onnx")
    export.write_bytes(export.read_bytes()[:1000])  # a disk that filled up mid-write
    with caplog.at_level(logging.WARNING, logger="hub.embedding_onnx"):
        again = Embedder(cache_dir=tmp_path)
    assert again.runtime == "onnx"
    assert export.stat().st_size > 1_000_000
    assert "exporting it again" in caplog.text


def test_a_users_model_with_a_projection_is_exported_with_it(second_model_path: Path, tmp_path: Path) -> None:
    on_onnx = Embedder(second_model_path, cache_dir=tmp_path)
    on_torch = Embedder(second_model_path, runtime="torch")
    assert on_onnx.runtime == "onnx" and on_onnx.dimensions == on_torch.dimensions == 128
    assert np.abs(on_onnx.encode(TEXTS) - on_torch.encode(TEXTS)).max() < 1e-4


def test_a_cache_folder_that_cannot_be_made_gets_an_export_for_this_process_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    scratch = set(Path(tempfile.gettempdir()).glob("*.onnx.tmp"))
    with caplog.at_level(logging.WARNING, logger="hub.embedding_onnx"):
        embedder = Embedder(cache_dir=blocked / "models")
    assert embedder.runtime == "onnx"
    assert len(embedder.encode(TEXTS[:2])) == 2
    assert list(tmp_path.iterdir()) == [blocked] and caplog.text == ""
    assert set(Path(tempfile.gettempdir()).glob("*.onnx.tmp")) <= scratch  # its export left nothing


def test_an_export_that_disagrees_with_torch_is_not_used_and_not_kept(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    torch_embedder: Embedder,
) -> None:
    # No tolerance: any export differs from torch in the last bits, as a faulty one would by more.
    monkeypatch.setattr(embedding_onnx, "TOLERANCE", -1.0)
    with caplog.at_level(logging.WARNING, logger="hub.embedding_onnx"):
        fallen_back = Embedder(cache_dir=tmp_path)
    assert fallen_back.runtime == "torch"
    assert "running it on torch" in caplog.text
    assert list(tmp_path.iterdir()) == []
    assert np.array_equal(fallen_back.encode(TEXTS), torch_embedder.encode(TEXTS))


def test_the_settings_choose_the_runtime_and_where_exports_are_kept(tmp_path: Path) -> None:
    assert load_embedder(Settings(model_runtime="torch")).runtime == "torch"
    assert load_embedder(Settings(model_cache_dir=tmp_path)).runtime == "onnx"
    assert len(list(tmp_path.glob("*.onnx"))) == 1


def test_searches_from_many_threads_at_once_get_each_their_own_vector(
    embedder: Embedder, torch_embedder: Embedder
) -> None:
    # The API encodes each search's query in the thread that serves it, one session for them all.
    expected = torch_embedder.encode(TEXTS)
    wrong: list[str] = []

    def search(offset: int) -> None:
        for i in range(20):
            at = (offset + i) % len(TEXTS)
            try:
                vector = np.asarray(embedder.encode_one(TEXTS[at]))
            except Exception as exc:  # a thread's exception would not fail the test by itself
                wrong.append(f"{TEXTS[at]}: {exc!r}")
                continue
            if np.abs(vector - expected[at]).max() > 1e-4:
                wrong.append(TEXTS[at])

    threads = [threading.Thread(target=search, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_its_threads_sleep_between_encodes_instead_of_spinning(embedder: Embedder) -> None:
    assert embedder.onnx is not None
    options = embedder.onnx.session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
