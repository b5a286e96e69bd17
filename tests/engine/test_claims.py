# ruff: noqa: RUF001
"""Sentence splitting into claims and the check-required test (SPEC §1)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_app.engine.claims import (
    Sentence,
    asserted_statement,
    needs_grounding_check,
    split_claims,
    split_sentences,
    strip_list_marker,
)
from grounding_app.engine.offsets import OffsetError
from grounding_app.engine.types import (
    CODE,
    LEAD_IN,
    NO_CHECK_REASONS,
    TABLE_HEADER,
    TABLE_RULE,
)

LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def assert_tiles(text: str, sentences: list[Sentence]) -> None:
    """The splitter's contract: ordered spans of exact, stripped text in whitespace gaps."""
    data = text.encode("utf-8")
    pos = 0
    rebuilt = []
    for sentence in sentences:
        assert pos <= sentence.start < sentence.end <= len(data)
        gap = data[pos : sentence.start].decode("utf-8")
        assert gap == "" or gap.isspace(), (gap, sentence)
        assert data[sentence.start : sentence.end].decode("utf-8") == sentence.text
        assert sentence.text == sentence.text.strip()
        assert not any(char in LINE_BREAKS for char in sentence.text)
        rebuilt += [gap, sentence.text]
        pos = sentence.end
    tail = data[pos:].decode("utf-8")
    assert tail == "" or tail.isspace()
    assert "".join([*rebuilt, tail]) == text


def texts(text: str) -> list[str]:
    sentences = split_sentences(text)
    assert_tiles(text, sentences)
    return [s.text for s in sentences]


SPLIT_CASES: list[tuple[str, str, list[str]]] = [
    # SPEC and API examples
    (
        "google-example",
        "Here is what I found. Titanic was directed by James Cameron.",
        ["Here is what I found.", "Titanic was directed by James Cameron."],
    ),
    (
        "film-half-right",
        "Titanic was directed by James Cameron. It starred Brad Pitt and Kate Winslet",
        ["Titanic was directed by James Cameron.", "It starred Brad Pitt and Kate Winslet"],
    ),
    (
        "film-1500",
        "Titanic was directed by James Cameron. It was based on the sinking of the RMS Titanic "
        "that led to the death of 1500 people.",
        [
            "Titanic was directed by James Cameron.",
            "It was based on the sinking of the RMS Titanic that led to the death of 1500 people.",
        ],
    ),
    (
        "fact-rms",
        "the maiden voyage of the R.M.S. Titanic; the pride of the White Star Line.",
        ["the maiden voyage of the R.M.S. Titanic; the pride of the White Star Line."],
    ),
    (
        "fact-1500",
        "It carried over 1,500 people to their death. It sank.",
        ["It carried over 1,500 people to their death.", "It sank."],
    ),
    # plain ASCII
    ("empty", "", []),
    ("whitespace-only", " \t\n\n  ", []),
    ("single-no-period", "Paris is big", ["Paris is big"]),
    ("three", "One. Two! Three?", ["One.", "Two!", "Three?"]),
    ("padding", "  Hi.   There.  ", ["Hi.", "There."]),
    ("no-space-no-split", "Hello.World is a name.", ["Hello.World is a name."]),
    ("lowercase-after-period", "It was 5 p.m. and late.", ["It was 5 p.m. and late."]),
    ("interrobang-run", "Really?! Yes.", ["Really?!", "Yes."]),
    # text written in lower case: a plain word or number before "." ends the sentence
    (
        "lower-case-summary",
        "she was shot in 2012. she survived.",
        ["she was shot in 2012.", "she survived."],
    ),
    (
        "lower-case-chat",
        "it was good. i liked it. did you?",
        ["it was good.", "i liked it.", "did you?"],
    ),
    (
        "lower-case-names",
        "malala was shot. muhammadu buhari met her.",
        ["malala was shot.", "muhammadu buhari met her."],
    ),
    ("lower-after-eg", "fruit, e.g. apples and pears.", ["fruit, e.g. apples and pears."]),
    ("lower-after-et-al", "Smith et al. found it.", ["Smith et al. found it."]),
    ("lower-after-approx", "it took approx. five hours.", ["it took approx. five hours."]),
    ("lower-after-acronym", "the U.S. army left.", ["the U.S. army left."]),
    ("lower-after-initial", "by j. k. rowling.", ["by j. k. rowling."]),
    ("lower-after-unit", "it weighs 5 lbs. and more.", ["it weighs 5 lbs. and more."]),
    ("lower-after-one-letter", "plan b. was it.", ["plan b. was it."]),
    ("lower-after-list-number", "steps: 1. mix 2. bake", ["steps: 1. mix 2. bake"]),
    ("lower-after-quote", 'he said "go." and left.', ['he said "go." and left.']),
    ("lowercase-after-bang", "Wow! that is big.", ["Wow! that is big."]),
    # a bare "!" after a word in lower case ends the sentence; a name carries it
    (
        "lower-case-exclamation",
        "la la land is a great movie! do you enjoy musicals?",
        ["la la land is a great movie!", "do you enjoy musicals?"],
    ),
    ("lower-case-exclamations", "i love it!! it is big.", ["i love it!!", "it is big."]),
    (
        "spaced-exclamation",
        "i love huskies ! they pull sleds .",
        ["i love huskies !", "they pull sleds ."],
    ),
    ("brand-exclamation", "Yahoo! shares rose.", ["Yahoo! shares rose."]),
    ("brand-exclamation-lower", "the Jeopardy! host left.", ["the Jeopardy! host left."]),
    ("quoted-exclamation", '"help!" she cried.', ['"help!" she cried.']),
    ("interrobang-lower", "what?! no way.", ["what?! no way."]),
    ("question-lower", "have you seen it? it won.", ["have you seen it? it won."]),
    ("ellipsis-lower", "He waited... and waited.", ["He waited... and waited."]),
    ("ellipsis-upper", "He waited... Then he left.", ["He waited...", "Then he left."]),
    ("ellipsis-char", "He waited… Then he left.", ["He waited…", "Then he left."]),
    ("quote-closer", 'He said "Go." Then left.', ['He said "Go."', "Then left."]),
    ("question-in-quote", 'She asked "Why?" He shrugged.', ['She asked "Why?"', "He shrugged."]),
    (
        "paren-closer",
        "He left (see Fig. 3). Then he came back.",
        ["He left (see Fig. 3).", "Then he came back."],
    ),
    ("markdown-bold", "**Paris.** It is big.", ["**Paris.**", "It is big."]),
    ("comma-after-abbrev", "Fruit, etc., is good.", ["Fruit, etc., is good."]),
    (
        "digit-starts-next",
        "It opened in 1997. 2001 was later.",
        ["It opened in 1997.", "2001 was later."],
    ),
    # abbreviations, initials, acronyms
    ("dr", "Dr. Smith is here. He is kind.", ["Dr. Smith is here.", "He is kind."]),
    (
        "titles",
        "Mr. and Mrs. Smith met Prof. Jones and Gen. Lee.",
        ["Mr. and Mrs. Smith met Prof. Jones and Gen. Lee."],
    ),
    (
        "st-then-the",
        "He lived on Main St. The house was red.",
        ["He lived on Main St.", "The house was red."],
    ),
    ("st-louis", "He met Gen. Lee in St. Louis.", ["He met Gen. Lee in St. Louis."]),
    ("title-never-splits", "They met Prof. The Great.", ["They met Prof. The Great."]),
    ("eg", "Fruit, e.g. Apples, is good.", ["Fruit, e.g. Apples, is good."]),
    ("ie", "The capital, i.e. Paris, is big.", ["The capital, i.e. Paris, is big."]),
    ("vs", "Kramer vs. Kramer won. It was 1979.", ["Kramer vs. Kramer won.", "It was 1979."]),
    ("rms", "The R.M.S. Titanic sank in 1912.", ["The R.M.S. Titanic sank in 1912."]),
    (
        "initials",
        "J. K. Rowling wrote it. It sold well.",
        ["J. K. Rowling wrote it.", "It sold well."],
    ),
    ("initial-then-A", "J. A. Smith wrote it.", ["J. A. Smith wrote it."]),
    ("initial-then-starter", "He took vitamin C. It helped.", ["He took vitamin C.", "It helped."]),
    ("us-army", "The U.S. Army won.", ["The U.S. Army won."]),
    (
        "us-then-the",
        "He moved to the U.S. The next year he left.",
        ["He moved to the U.S.", "The next year he left."],
    ),
    ("uk-end", "She lives in the U.K.", ["She lives in the U.K."]),
    ("phd-then-he", "She has a Ph.D. He does not.", ["She has a Ph.D.", "He does not."]),
    (
        "pm-then-it",
        "It opened at 5 p.m. It closed at 9 p.m.",
        ["It opened at 5 p.m.", "It closed at 9 p.m."],
    ),
    (
        "etc-then-the",
        "Apples, pears, etc. The list goes on.",
        ["Apples, pears, etc.", "The list goes on."],
    ),
    ("inc-then-name", "Apple Inc. Tim Cook is the CEO.", ["Apple Inc. Tim Cook is the CEO."]),
    ("co-then-it", "He founded Ford Motor Co. It grew.", ["He founded Ford Motor Co.", "It grew."]),
    ("fig-digit", "See Fig. 3 for details. It helps.", ["See Fig. 3 for details.", "It helps."]),
    ("no-digit", "It was No. 1 for weeks.", ["It was No. 1 for weeks."]),
    ("no-word", "The answer is no. The film lost.", ["The answer is no.", "The film lost."]),
    (
        "month-day",
        "It opened on Dec. 19, 1997. It was a hit.",
        ["It opened on Dec. 19, 1997.", "It was a hit."],
    ),
    ("approx", "It cost approx. 200 million dollars.", ["It cost approx. 200 million dollars."]),
    (
        "mt-st",
        "Mt. Everest and St. Louis are far apart.",
        ["Mt. Everest and St. Louis are far apart."],
    ),
    # numbers, URLs, files, e-mail
    ("decimal", "It is 3.5 metres. Next one.", ["It is 3.5 metres.", "Next one."]),
    ("thousands-comma", "About 1,500 died. Few lived.", ["About 1,500 died.", "Few lived."]),
    (
        "thousands-dot",
        "Etwa 1.500 starben. Wenige lebten.",
        ["Etwa 1.500 starben.", "Wenige lebten."],
    ),
    ("url-path", "See example.com/a.b for more.", ["See example.com/a.b for more."]),
    ("url-then-period", "see www.x.org. Next", ["see www.x.org.", "Next"]),
    ("file-name", "Open report.final.pdf now. Done.", ["Open report.final.pdf now.", "Done."]),
    ("email", "Mail bob.smith@example.com today.", ["Mail bob.smith@example.com today."]),
    (
        "email-end",
        "Mail bob.smith@example.com. Then wait.",
        ["Mail bob.smith@example.com.", "Then wait."],
    ),
    # other scripts
    ("hebrew", "שלום עולם. זה משפט שני.", ["שלום עולם.", "זה משפט שני."]),
    ("arabic", "مرحبا بالعالم. هذه جملة ثانية.", ["مرحبا بالعالم.", "هذه جملة ثانية."]),
    ("arabic-question", "هل هذا صحيح؟ نعم.", ["هل هذا صحيح؟", "نعم."]),
    ("russian", "Это Москва. Она большая.", ["Это Москва.", "Она большая."]),
    ("russian-lower", "Это Москва. она большая.", ["Это Москва.", "она большая."]),
    ("hindi-danda", "यह दिल्ली है। यह बड़ा है।", ["यह दिल्ली है।", "यह बड़ा है।"]),
    ("cjk", "東京は日本の首都です。人口は多い。", ["東京は日本の首都です。", "人口は多い。"]),
    ("cjk-fullwidth", "本当？はい！そうです。", ["本当？", "はい！", "そうです。"]),
    ("cjk-with-spaces", "東京です。 人口は多い。", ["東京です。", "人口は多い。"]),
    ("cjk-quote-glued", "「行く。」と言った。次です。", ["「行く。」と言った。", "次です。"]),
    ("cjk-quote-end", "他说：「好。」「走吧。」", ["他说：「好。」", "「走吧。」"]),
    ("cjk-then-abbrev", "東京です。Dr. Smith came.", ["東京です。", "Dr. Smith came."]),
    ("cjk-halfwidth", "ﾃｽﾄ｡ﾃｽﾄ｡", ["ﾃｽﾄ｡", "ﾃｽﾄ｡"]),
    # emoji, ZWJ, combining marks
    ("emoji", "I love 🍕. It is 🔥!", ["I love 🍕.", "It is 🔥!"]),
    ("emoji-start", "Great news! 🎉 Next one.", ["Great news!", "🎉 Next one."]),
    (
        "zwj-family",
        "👨\u200d👩\u200d👧 is a family. Next one.",
        ["👨\u200d👩\u200d👧 is a family.", "Next one."],
    ),
    ("zwj-end", "It is a flag 🏳️\u200d🌈. Next one.", ["It is a flag 🏳️\u200d🌈.", "Next one."]),
    ("combining", "Café\u0301 is here. Next one.", ["Café\u0301 is here.", "Next one."]),
    ("combining-after-period", "Is it.\u0301 Next.", ["Is it.\u0301 Next."]),
    # line breaks, lists, headings
    ("newline", "First line\nSecond line", ["First line", "Second line"]),
    ("crlf-blank", "One.\r\n\r\nTwo.", ["One.", "Two."]),
    ("unicode-line-sep", "One\u2028Two\u2029Three", ["One", "Two", "Three"]),
    ("nbsp-gap", "One.\u00a0Two.", ["One.", "Two."]),
    ("heading", "## Titanic\nIt sank in 1912.", ["## Titanic", "It sank in 1912."]),
    (
        "bullets",
        "Facts:\n- Paris is big.\n* London is bigger. It rains.\n• Rome\n+ Oslo",
        ["Facts:", "- Paris is big.", "* London is bigger.", "It rains.", "• Rome", "+ Oslo"],
    ),
    (
        "numbered",
        "1. Paris is big.\n2) London is bigger.\na) Rome is old.\n10. Oslo.",
        ["1. Paris is big.", "2) London is bigger.", "a) Rome is old.", "10. Oslo."],
    ),
    (
        "numbered-inline",
        "1. Paris is big. 2. London is bigger.",
        ["1. Paris is big.", "2. London is bigger."],
    ),
    ("numbered-indented", "  3. Paris is big.\n   iv. Rome.", ["3. Paris is big.", "iv. Rome."]),
    (
        "letter-item",
        "A. The first option.\nB. The second.",
        ["A. The first option.", "B. The second."],
    ),
    ("paren-number", "(1) Paris is big. It is old.", ["(1) Paris is big.", "It is old."]),
    ("blank-lines", "\n\nOne.\n\n\nTwo.\n", ["One.", "Two."]),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in SPLIT_CASES], ids=[i for i, _, _ in SPLIT_CASES]
)
def test_split_table(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


OFFSET_CASES: list[tuple[str, str, list[tuple[int, int]]]] = [
    (
        "google-example",
        "Here is what I found. Titanic was directed by James Cameron.",
        [(0, 21), (22, 60)],
    ),
    ("hebrew", "שלום עולם. זה משפט שני.", [(0, 18), (19, 40)]),
    ("emoji", "I love 🍕. It is 🔥!", [(0, 12), (13, 24)]),
    ("cjk", "東京は日本の首都です。人口は多い。", [(0, 33), (33, 51)]),
    ("zwj", "👨\u200d👩\u200d👧 ok. Go.", [(0, 22), (23, 26)]),
    ("leading-gap", "  Hi.\n\nשלום.", [(2, 5), (7, 16)]),
]


@pytest.mark.parametrize(
    ("text", "spans"), [(t, s) for _, t, s in OFFSET_CASES], ids=[i for i, _, _ in OFFSET_CASES]
)
def test_split_byte_offsets(text: str, spans: list[tuple[int, int]]) -> None:
    sentences = split_sentences(text)
    assert [(s.start, s.end) for s in sentences] == spans
    assert_tiles(text, sentences)


def test_sentence_is_frozen_value() -> None:
    sentence = split_sentences("Hi there.")[0]
    assert sentence == Sentence(0, 9, "Hi there.")
    with pytest.raises(AttributeError):
        sentence.start = 1  # type: ignore[misc]


def test_split_rejects_lone_surrogates() -> None:
    with pytest.raises(OffsetError, match="lone surrogate"):
        split_sentences("Bad \ud800 text.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1. Paris is big.", "Paris is big."),
        ("- Paris is big.", "Paris is big."),
        ("* Paris", "Paris"),
        ("• Paris", "Paris"),
        ("+ Paris", "Paris"),
        ("2) Paris", "Paris"),
        ("a) Paris", "Paris"),
        ("(iv) Paris", "Paris"),
        ("## Titanic", "Titanic"),
        ("> - Quoted item", "Quoted item"),
        ("Paris is big.", "Paris is big."),
        ("3.5 metres", "3.5 metres"),
        ("-5 degrees", "-5 degrees"),
        ("#hashtag", "#hashtag"),
        ("- ", ""),
        ("A) Paris", "Paris"),
        ("iv. Rome", "Rome"),
        ("J. K. Rowling wrote it.", "J. K. Rowling wrote it."),
        ("A. Lincoln was president.", "A. Lincoln was president."),
    ],
    ids=[
        "number-dot", "dash", "star", "bullet", "plus", "number-paren", "letter-paren",
        "roman-paren", "heading", "quote-and-dash", "none", "decimal", "negative",
        "hashtag", "marker-only", "upper-letter-paren", "roman-dot", "initials-kept",
        "upper-letter-dot-kept",
    ],
)  # fmt: skip
def test_strip_list_marker(text: str, expected: str) -> None:
    assert strip_list_marker(text) == expected


CHECK_CASES: list[tuple[str, bool]] = [
    # a line that only introduces the code or list after it (before a colon only)
    ("To list them in Python:", False),
    ("To install it with pip:", False),
    ("You can query them with SQL:", False),
    ("Run this command:", False),
    ("Run the following in a terminal:", False),
    ("For example:", False),
    ("Here's how to do it:", False),
    ("Here is the code to list them:", False),
    ("The output is:", False),
    ("To list them in Python.", True),
    ("This command runs daily to back up the database.", True),
    ("Python 3.12 removed distutils:", True),
    ("Paris has three famous museums:", True),
    ("To reach Paris from London, take the Eurostar:", True),
    # nothing checkable
    ("Here is what I found.", False),
    ("Hi!", False),
    ("Hello there.", False),
    ("Thanks for asking.", False),
    ("Thank you so much!", False),
    ("Hope this helps!", False),
    ("I hope this helps.", False),
    ("Let me know if you have other questions.", False),
    ("Let me know if you need anything else.", False),
    ("Feel free to ask if you have any other questions.", False),
    ("Here's a summary:", False),
    ("Here’s a summary:", False),
    ("Here is a brief overview of the film:", False),
    ("Here's what I found about Titanic:", False),
    ("Sure!", False),
    ("Certainly.", False),
    ("Great question.", False),
    ("That's a great question!", False),
    ("Based on the sources, here is the answer:", False),
    ("Sure, here is what I found.", False),
    ("I found the following information:", False),
    ("I'm not sure.", False),
    ("I’m not sure.", False),
    ("I don't know.", False),
    ("I cannot answer that.", False),
    ("Sorry, but I don't know.", False),
    ("What year was Titanic released?", False),
    ("Who directed it？", False),
    ("Really?!", False),
    ('Is it "Titanic?"', False),
    ("—", False),
    ("**", False),
    ("🍕🔥", False),
    ("...", False),
    ("Yes.", False),
    ("## Summary", False),
    ("- Thank you!", False),
    ("Bonjour !", False),
    ("Merci beaucoup.", False),
    ("ありがとうございます。", False),
    ("谢谢！", False),
    ("תודה רבה.", False),
    ("هل هذا صحيح؟", False),
    # reactions to the other side of a conversation
    ("That's awesome!", False),
    ("that ' s awesome !", False),
    ("That sounds great!", False),
    ("I agree!", False),
    ("Me too!", False),
    ("I didn't know that!", False),
    ("i didn ' t know that !", False),
    ("Wow!", False),
    ("How interesting.", False),
    # checkable
    ("Titanic was directed by James Cameron.", True),
    ("It won 11 Oscars.", True),
    ("Paris is the capital of France.", True),
    ("I think it was released in 1997.", True),
    ("I'm not sure, but it was released in 1997.", True),
    ("It starred Brad Pitt and Kate Winslet", True),
    ("1. Paris is big.", True),
    ("- It was released in 1997.", True),
    ("Here is the answer: Paris is the capital.", True),
    ("Here is a summary of the film that won 11 Oscars in 1998.", True),
    ("According to the sources, Paris is the capital.", True),
    ("Sure, Paris is the capital of France.", True),
    ("Hello Kitty is a Japanese character.", True),
    ("Thanks to the treaty, the war ended in 1918.", True),
    ("Great Britain is an island.", True),
    ("It is 1997.", True),
    ("שלום עולם.", True),
    ("東京は日本の首都です。", True),
    ("Paris est la capitale de la France.", True),
    ("42", True),
    # a liking of the speaker's own, an opinion of the world, news after a reaction
    ("I love steak!", True),
    ("la la land is a great movie!", True),
    ("That's great news: the bridge opened in 1937.", True),
    ("That is a great movie.", True),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    CHECK_CASES,
    ids=[f"{i:02d}-{'check' if e else 'skip'}" for i, (_, e) in enumerate(CHECK_CASES)],
)
def test_needs_grounding_check(text: str, expected: bool) -> None:
    assert needs_grounding_check(text) is expected


# A question that presupposes a statement asserts it, and that statement is checked.
ASSERTED_CASES = [
    ("Did you know that the DC in DC Comics stands for Detective Comics?",
     "the DC in DC Comics stands for Detective Comics."),
    ("did you know Mr. Jackson was the first announcer?", "Mr. Jackson was the first announcer."),
    ("Hi, did you know Mr. Jackson was the first announcer?",
     "Mr. Jackson was the first announcer."),
    ("Do you know that Chrome is a free browser ?", "Chrome is a free browser."),
    ("Did you realise that it opened in 1937?", "it opened in 1937."),
    ("Did you hear that the bridge was closed?", "the bridge was closed."),
    ("Have you heard that the bridge was closed?", "the bridge was closed."),
    ("Were you aware that bees can see ultraviolet light?", "bees can see ultraviolet light."),
    ("yes, it is. did you know that the cables are 2.7 inches wide?",
     "yes, it is. the cables are 2.7 inches wide."),
    ("Goldendoodles are called designer dogs, do you like them?",
     "Goldendoodles are called designer dogs."),
    ("It was about Odette and her story , what about you ?", "It was about Odette and her story."),
    ("The film won 11 Oscars, right?", "The film won 11 Oscars."),
    ("- Did you know that it won 11 Oscars?", "it won 11 Oscars."),
    # questions that only ask
    ("Do you know what area code it was invented for?", None),
    ("Hello, do you know what area code it was invented for?", None),
    ("Do you know any ancient Roman amphitheatres in Croatia?", None),
    ("Did you know about the sequel?", None),
    ("Were you aware of the terms of the war?", None),
    ("Do you know him?", None),
    ("Do you know the way to San Jose?", None),
    ("Is it true that the bridge was closed?", None),
    ("So, how did you feel about the ending?", None),
    ("Hello, yes I did. What is your favourite player?", None),
    ("What was your favourite part?", None),
    ("Who won, the home side or the visitors?", None),
    ("Oh yeah. I have. Have you?", None),
    ("Who said that Paris was the capital, do you know?", None),
    # not a question: returned as it is
    ("Titanic was directed by James Cameron.", "Titanic was directed by James Cameron."),
    ("Did you know that?", None),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), ASSERTED_CASES)
def test_asserted_statement(text: str, expected: str | None) -> None:
    assert asserted_statement(text) == expected
    if text.rstrip().endswith("?"):
        assert needs_grounding_check(text) is (expected is not None)


# --- properties ------------------------------------------------------------------------

utf8_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)))

FRAGMENTS = [
    "Paris is big.", "It won 11 Oscars!", "Why?", "Dr. Smith came.", "e.g. apples",
    "the U.S. The end.", "R.M.S. Titanic", "J. K. Rowling", "3.5", "1,500", "1.500",
    "example.com/a.b", "www.x.org.", "Wait...", "…", "?!", '"Go."', "(see Fig. 3).",
    "- ", "* ", "• ", "1. ", "2) ", "a) ", "## ", "שלום עולם.", "東京です。", "人口は多い",
    "🍕", "👨\u200d👩\u200d👧", "e\u0301", "。", "」", "「", ".", "!", "A.", "I.", "etc.",
    "No.", "p.m.", "Inc.", "St.",
]  # fmt: skip
SEPARATORS = ["", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\u00a0", "\u2028", " \n "]

mixed_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.sampled_from(SEPARATORS), utf8_text),
    max_size=30,
).map("".join)


@given(utf8_text)
def test_spans_tile_arbitrary_text(text: str) -> None:
    assert_tiles(text, split_sentences(text))


@settings(max_examples=200)
@given(mixed_text)
def test_spans_tile_mixed_text(text: str) -> None:
    sentences = split_sentences(text)
    assert_tiles(text, sentences)
    non_blank_lines = [line for line in text.splitlines() if line.strip()]
    assert len(sentences) >= len(non_blank_lines)


@given(mixed_text)
def test_each_sentence_is_a_fixed_point(text: str) -> None:
    # A sentence split out of an answer is one sentence on its own, too.
    for sentence in split_sentences(text):
        alone = split_sentences(sentence.text)
        assert [s.text for s in alone] == [sentence.text]


@given(mixed_text)
def test_needs_grounding_check_is_total(text: str) -> None:
    for sentence in split_sentences(text):
        assert isinstance(needs_grounding_check(sentence.text), bool)
        assert isinstance(strip_list_marker(sentence.text), str)


# --- speed -----------------------------------------------------------------------------


def test_split_100kb_answer_is_fast() -> None:
    base = (
        "Dr. Smith said the R.M.S. Titanic carried 1,500 people, e.g. crew and 3.5 tonnes "
        "of mail from example.com/a.b to the U.S. Army in Jan. 1912 — שלום 東京 🍕 "
    )
    sentence = (base * 4)[:490].rstrip() + " end."
    answer = " ".join([sentence] * 200)
    assert len(answer) > 95_000
    started = time.perf_counter()
    sentences = split_sentences(answer)
    elapsed = time.perf_counter() - started
    assert len(sentences) == 200
    assert elapsed < 0.5


# --- Markdown structure: tables, code and lists (`split_claims`) ------------------------

R, H, C, L = TABLE_RULE, TABLE_HEADER, CODE, LEAD_IN
FILMS = "| Film | Year |\n|---|---|\n| Titanic | 1997 |\n| Avatar | 2009 |"
# (answer, [(text, no_check_reason, reading, lead_in)]) for every piece, in order.
MARKDOWN_CASES: list[tuple[str, list[tuple[str, str | None, str | None, str]]]] = [
    (
        FILMS,
        [
            ("| Film | Year |", H, None, ""),
            ("|---|---|", R, None, ""),
            ("| Titanic | 1997 |", None, "film: Titanic; year: 1997", ""),
            ("| Avatar | 2009 |", None, "film: Avatar; year: 2009", ""),
        ],
    ),
    # No leading or trailing pipes; alignment rows; a missing cell and an empty one.
    (
        "Film | Year | Note\n:---: | ---: | :---\nTitanic | 1997\nAvatar | | big",
        [
            ("Film | Year | Note", H, None, ""),
            (":---: | ---: | :---", R, None, ""),
            ("Titanic | 1997", None, "film: Titanic; year: 1997", ""),
            ("Avatar | | big", None, "film: Avatar; note: big", ""),
        ],
    ),
    # Escaped pipes and inline code with an escaped pipe stay in their cell; emphasis,
    # links and backticks are read as rendered; sentence ends in a cell split nothing.
    (
        "| Op | Means |\n|---|---|\n"
        "| `a \\| b` | **either** a or b. See [docs](https://x.org/a). |",
        [
            ("| Op | Means |", H, None, ""),
            ("|---|---|", R, None, ""),
            (
                "| `a \\| b` | **either** a or b. See [docs](https://x.org/a). |",
                None,
                "op: a | b; means: either a or b. See docs.",
                "",
            ),
        ],
    ),
    # Headers are labels: capitalised words in lower case, acronyms and names kept.
    (
        "| Country | GDP | Head of State |\n|---|---|---|\n| France | $3.0T | Emmanuel Macron |",
        [
            ("| Country | GDP | Head of State |", H, None, ""),
            ("|---|---|---|", R, None, ""),
            (
                "| France | $3.0T | Emmanuel Macron |",
                None,
                "country: France; GDP: $3.0T; head of state: Emmanuel Macron",
                "",
            ),
        ],
    ),
    # An empty header cell: the cell alone; an all-empty row reads as nothing.
    (
        "| | 2024 |\n|---|---|\n| Revenue | $5M |\n| | |",
        [
            ("| | 2024 |", H, None, ""),
            ("|---|---|", R, None, ""),
            ("| Revenue | $5M |", None, "Revenue; 2024: $5M", ""),
            ("| | |", None, "", ""),
        ],
    ),
    # A lead-in sentence ending in a colon introduces the table's rows.
    (
        "Cameron directed these films:\n\n" + FILMS,
        [
            ("Cameron directed these films:", L, None, ""),
            ("| Film | Year |", H, None, "Cameron directed these films:"),
            ("|---|---|", R, None, "Cameron directed these films:"),
            (
                "| Titanic | 1997 |",
                None,
                "film: Titanic; year: 1997",
                "Cameron directed these films:",
            ),
            (
                "| Avatar | 2009 |",
                None,
                "film: Avatar; year: 2009",
                "Cameron directed these films:",
            ),
        ],
    ),
    # A table inside a list item, and a list whose lead-in is bold.
    (
        "**The films:**\n\n- Two of them:\n\n  | Film | Year |\n  |---|---|\n  | Titanic | 1997 |",
        [
            ("**The films:**", L, None, ""),
            ("- Two of them:", L, None, "**The films:**"),
            ("| Film | Year |", H, None, "Two of them:"),
            ("|---|---|", R, None, "Two of them:"),
            ("| Titanic | 1997 |", None, "film: Titanic; year: 1997", "Two of them:"),
        ],
    ),
    # A table that starts on a list item's own line keeps the marker in the header piece.
    (
        "- | a | b |\n  |---|---|\n  | 1 | 2 |",
        [
            ("- | a | b |", H, None, ""),
            ("|---|---|", R, None, ""),
            ("| 1 | 2 |", None, "a: 1; b: 2", ""),
        ],
    ),
    # Fenced code (backticks, tildes, unclosed) and indented code: one piece each.
    (
        "Run this:\n\n```python\nprint('Hi. There.')\n```\n\n"
        "Then:\n\n~~~\nls\n~~~\n\n    make all\n    make test",
        [
            ("Run this:", L, None, ""),
            ("```python\nprint('Hi. There.')\n```", C, None, ""),
            ("Then:", L, None, ""),
            ("~~~\nls\n~~~", C, None, ""),
            ("make all\n    make test", C, None, ""),
        ],
    ),
    (
        "Code:\n\n```\nunclosed. Fence.",
        [("Code:", L, None, ""), ("```\nunclosed. Fence.", C, None, "")],
    ),
    ("    indented = True", [("indented = True", C, None, "")]),
    # A list and its lead-in; a nested list takes its own; a sentence that does not end
    # in a colon introduces nothing.
    (
        "The cast includes:\n- Kate Winslet\n- Leonardo DiCaprio. He won later.\n"
        "  - Films:\n    - Titanic",
        [
            ("The cast includes:", L, None, ""),
            ("- Kate Winslet", None, None, "The cast includes:"),
            ("- Leonardo DiCaprio.", None, None, "The cast includes:"),
            ("He won later.", None, None, "The cast includes:"),
            ("- Films:", L, None, "The cast includes:"),
            ("- Titanic", None, None, "Films:"),
        ],
    ),
    (
        "Titanic was a hit.\n\n1. It won 11 Oscars.",
        [("Titanic was a hit.", None, None, ""), ("1. It won 11 Oscars.", None, None, "")],
    ),
    # Pipes that make no table (no rule row) and a rule row alone stay sentences.
    (
        "a | b\nc | d",
        [("a | b", None, None, ""), ("c | d", None, None, "")],
    ),
    # CRLF line ends.
    (
        "Films:\r\n\r\n| Film | Year |\r\n|---|---|\r\n| Titanic | 1997 |\r\n"
        "\r\n```\r\nx\r\n```\r\n",
        [
            ("Films:", L, None, ""),
            ("| Film | Year |", H, None, "Films:"),
            ("|---|---|", R, None, "Films:"),
            ("| Titanic | 1997 |", None, "film: Titanic; year: 1997", "Films:"),
            ("```\r\nx\r\n```", C, None, ""),
        ],
    ),
    # Multibyte text: byte spans (checked below) and readings.
    (
        "סרטים:\n\n| סרט | שנה |\n|---|---|\n| טיטאניק | 1997 |\n\nÉté 🎬 | Ünï\n--- | ---\nà | ü",
        [
            ("סרטים:", L, None, ""),
            ("| סרט | שנה |", H, None, "סרטים:"),
            ("|---|---|", R, None, "סרטים:"),
            ("| טיטאניק | 1997 |", None, "סרט: טיטאניק; שנה: 1997", "סרטים:"),
            ("Été 🎬 | Ünï", H, None, ""),
            ("--- | ---", R, None, ""),
            ("à | ü", None, "été 🎬: à; ünï: ü", ""),
        ],
    ),
]


def assert_covers(text: str, pieces: list[Sentence]) -> None:
    """Byte spans in order, each exactly its text, whitespace between and around."""
    data = text.encode("utf-8")
    pos = 0
    for piece in pieces:
        assert pos <= piece.start < piece.end <= len(data)
        assert data[pos : piece.start].decode("utf-8").strip() == ""
        assert data[piece.start : piece.end].decode("utf-8") == piece.text
        pos = piece.end
    assert data[pos:].decode("utf-8").strip() == ""


@pytest.mark.parametrize(("text", "expected"), MARKDOWN_CASES)
def test_split_claims_reads_markdown(
    text: str, expected: list[tuple[str, str | None, str | None, str]]
) -> None:
    pieces = split_claims(text)
    assert_covers(text, pieces)
    assert [(p.text, p.no_check_reason, p.reading, p.lead_in) for p in pieces] == expected


def test_split_claims_byte_spans_are_exact() -> None:
    text = MARKDOWN_CASES[-1][0]
    spans = [(p.start, p.end) for p in split_claims(text)]
    # "סרטים:" is 11 bytes: each Hebrew letter 2; "É" and "Ü" 2, "🎬" 4.
    assert spans == [(0, 11), (13, 32), (33, 42), (43, 68), (70, 88), (89, 98), (99, 106)]


@pytest.mark.parametrize(
    "text",
    [
        "Titanic was directed by James Cameron. It won 11 Oscars.",
        "Line one.\nLine two!\n\nA third: with a colon.",
        "- a\n- b\n\n1. c",
        "a | b\nc | d",
    ],
)
def test_split_claims_is_split_sentences_without_structure(text: str) -> None:
    assert [(p.start, p.end, p.text) for p in split_claims(text)] == [
        (s.start, s.end, s.text) for s in split_sentences(text)
    ]


@given(st.text(alphabet="ab |-:`~*\\\n\r\t é🎬.", max_size=80))
@settings(max_examples=300, deadline=None)
def test_split_claims_covers_arbitrary_markdown(text: str) -> None:
    pieces = split_claims(text)
    assert_covers(text, pieces)
    assert all(p.no_check_reason in (None, *NO_CHECK_REASONS) for p in pieces)
