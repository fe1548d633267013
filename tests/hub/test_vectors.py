import numpy as np

from hub.embedding import Embedder
from hub.sparse import SparseEncoder
from hub.vectors import memory_points
from tests.store.conftest import make_memory


def test_each_sentence_gets_its_own_vector_and_a_plain_sentence_is_not_encoded_twice(
    embedder: Embedder,
) -> None:
    plain = make_memory("plain", "Omer works until 20:00 on Sundays")
    replied = make_memory("replied", "Make it 17:30 then", context="Rina: When should we meet on Friday?")
    long = make_memory("long", "Emi: I went skiing in Aspen last week. Then I flew to Miami for Art Basel.")
    points = memory_points([plain, replied, long], embedder, SparseEncoder())

    assert [p.memory.id for p in points] == [plain.id, replied.id, long.id]
    assert points[0].sentences is None
    assert np.allclose(points[0].sentence_rows, [embedder.encode_one(plain.text)], atol=1e-5)
    # Context is read with the whole message, not with its sentences.
    assert np.allclose(points[1].dense, embedder.encode_one(replied.indexed_text), atol=1e-5)
    assert np.allclose(points[1].sentence_rows, [embedder.encode_one(replied.text)], atol=1e-5)
    expected = [
        embedder.encode_one("Emi: I went skiing in Aspen last week."),
        embedder.encode_one("Then I flew to Miami for Art Basel."),
    ]
    assert np.allclose(points[2].sentence_rows, expected, atol=1e-5)
    assert points[2].sparse == SparseEncoder().document(long.text)
