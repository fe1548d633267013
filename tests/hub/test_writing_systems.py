"""Hebrew, Arabic and CJK words read by BM25: the same word found again in the forms people write it."""

import pytest

from hub.sparse import SparseEncoder
from hub.writing_systems import arabic_stem, for_bm25, hebrew_stem


@pytest.fixture(scope="module")
def sparse() -> SparseEncoder:
    return SparseEncoder()


def shared_terms(sparse: SparseEncoder, document: str, query: str) -> set[int]:
    return set(sparse.document(document).indices) & set(sparse.query(query).indices)


def test_text_in_other_scripts_passes_unchanged() -> None:
    for text in (
        "Netanel finishes work at 18:00 on Tuesdays",
        "La reunión se movió al jueves",
        "Ünïcödé café",
    ):
        assert for_bm25(text) == text


@pytest.mark.parametrize(
    ("word", "stem"),
    [("הבית", "בית"), ("ובבית", "בית"), ("לבית", "בית"), ("בית", "בית"), ("כלב", "כלב"), ("שמחה", "מחה")],
)
def test_hebrew_prefix_letters_are_stripped_while_three_letters_remain(word: str, stem: str) -> None:
    assert hebrew_stem(word) == stem


@pytest.mark.parametrize(
    ("document", "query"),
    [
        ("נתנאל עובד בבית החולים איכילוב", "איפה בית החולים"),  # a prefix letter in the memory
        ("הגן נסגר בארבע", "מתי נסגר גן הילדים"),  # the article
        ("נוֹעָה שָׁרָה בַּמַּקְהֵלָה", "נועה במקהלה"),  # niqqud in the memory, none in the question
        ('התור אצל ד"ר לוי', "ד״ר לוי"),  # an acronym's quote marks, ASCII against gershayim
        ("ذهب نتنائيل إلى المكتبة", "مكتبة"),  # the Arabic article
        ("الْكِتَابُ عَلَى الطَّاوِلَةِ", "الكتاب"),  # harakat
        ("我住在北京的朝阳区", "北京"),  # Chinese without spaces
        ("東京に住んでいる", "東京"),  # Japanese
        ("서울에서 일합니다", "서울"),  # Korean with a particle
    ],
)
def test_a_word_is_found_again_in_the_forms_people_write_it(
    sparse: SparseEncoder, document: str, query: str
) -> None:
    assert shared_terms(sparse, document, query)


def test_the_exact_form_outranks_a_word_that_only_shares_its_stem(sparse: SparseEncoder) -> None:
    query = {i: w for i, w in zip(*(lambda v: (v.indices, v.values))(sparse.query("הבית")), strict=True)}

    def score(text: str) -> float:
        doc = sparse.document(text)
        return sum(w * query.get(i, 0.0) for i, w in zip(doc.indices, doc.values, strict=True))

    assert score("הבית שלנו") > score("בית שלנו") > 0


def test_arabic_light_stem() -> None:
    assert arabic_stem("والكتاب") == "كتاب"
    assert arabic_stem("بالمدرسه") == "مدرس"
    assert arabic_stem("كتب") == "كتب"
