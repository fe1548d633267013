import pytest

from hub.sparse import CONTEXT_WEIGHT, SparseEncoder
from hub.store.base import SparseVec


@pytest.fixture(scope="module")
def sparse() -> SparseEncoder:
    return SparseEncoder()


def weights(vector: SparseVec) -> dict[int, float]:
    return dict(zip(vector.indices, vector.values, strict=True))


def test_context_words_count_less_than_the_texts_own(sparse: SparseEncoder) -> None:
    text, context = (
        "Netanel: make it 17:30",
        "assistant: Reminder Thursday 16:30 to collect the dry cleaning?",
    )
    told, bare, alone = (
        weights(v) for v in (sparse.document(text, context), sparse.document(text), sparse.document(context))
    )
    # The text's words weigh what they weigh alone (a context does not dilute them), plus their weight
    # in the context, at CONTEXT_WEIGHT, where it says them too.
    assert {i: told[i] for i in bare} == pytest.approx(
        {i: bare[i] + CONTEXT_WEIGHT * alone.get(i, 0.0) for i in bare}
    )
    # A word only the context has counts CONTEXT_WEIGHT of what it would in a text of its own.
    only_context = alone.keys() - bare.keys()
    assert only_context and {i: told[i] for i in only_context} == pytest.approx(
        {i: CONTEXT_WEIGHT * alone[i] for i in only_context}
    )
    assert told.keys() == bare.keys() | alone.keys()


def test_no_context_is_the_text_alone(sparse: SparseEncoder) -> None:
    text = "Renewed the Skoda's insurance with Migdal"
    assert sparse.document(text, None) == sparse.document(text) == sparse.document(text, "")
