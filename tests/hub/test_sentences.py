from hub.sentences import MAX_SENTENCES, sentences


def test_a_text_of_several_sentences_is_split_at_their_ends() -> None:
    assert sentences("Emi: I went skiing in Aspen last week. It was great! Did you ever try it?") == [
        "Emi: I went skiing in Aspen last week.",
        "It was great!",
        "Did you ever try it?",
    ]


def test_one_sentence_is_the_text_itself() -> None:
    text = "Netanel finishes work at 18:00 on Tuesdays"
    assert sentences(text) == [text]


def test_an_abbreviation_or_a_short_reply_does_not_make_a_sentence_of_its_own() -> None:
    assert sentences("Dr. Levi is the family dentist, clinic on Herzl St.") == [
        "Dr. Levi is the family dentist, clinic on Herzl St."
    ]
    assert sentences("Haha! Yes. The dinner at Rina's is on Friday.") == [
        "Haha! Yes. The dinner at Rina's is on Friday."
    ]


def test_other_scripts_end_their_sentences_their_own_way() -> None:
    assert sentences("נתנאל עובד עד 20:00 בערב. הוא מסיים מוקדם בימי שלישי.") == [
        "נתנאל עובד עד 20:00 בערב.",
        "הוא מסיים מוקדם בימי שלישי.",
    ]
    assert sentences("東京に住んでいる。毎日電車で通勤します。") == [
        "東京に住んでいる。",
        "毎日電車で通勤します。",
    ]
    assert sentences("هل ستأتي إلى العشاء غدا؟ سأطبخ المقلوبة للجميع") == [
        "هل ستأتي إلى العشاء غدا؟",
        "سأطبخ المقلوبة للجميع",
    ]


def test_a_line_break_ends_a_sentence() -> None:
    assert sentences("Buy milk and eggs today\nCall the plumber about the leak") == [
        "Buy milk and eggs today",
        "Call the plumber about the leak",
    ]


def test_a_long_text_is_read_as_at_most_the_cap_with_the_rest_in_the_last() -> None:
    text = " ".join(f"Sentence number {i} says one thing." for i in range(MAX_SENTENCES + 4))
    split = sentences(text)
    assert len(split) == MAX_SENTENCES
    assert split[-1].startswith(f"Sentence number {MAX_SENTENCES - 1} ")
    assert split[-1].endswith(f"Sentence number {MAX_SENTENCES + 3} says one thing.")
