"""Stored reviews whose claims the LLM judge decided or fell back on, built as the engine
stores them (`checked_by`, `llm_judge`), for the review page's tests and screenshots."""

from __future__ import annotations

from grounding_app.engine import CheckRequest, CheckResponse, CitedChunk, Claim, Fact, utf8_len
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.reviews import services
from grounding_app.reviews.models import Review

FACTS = (
    Fact(
        "Titanic is a 1997 American epic romantic disaster movie. It was directed, written, "
        "and co-produced by James Cameron. It stars Kate Winslet and Leonardo DiCaprio.",
        {"title": "Titanic (1997 film)"},
    ),
    Fact(
        "טיטאניק הוא סרט אמריקאי משנת 1997. את הסרט ביים, כתב והפיק ג'יימס קמרון.",
        {"title": "טיטאניק"},
    ),
)

# (claim, checked_by, stored llm_judge note, score, the passage of a fact it cites or None)
Sentence = tuple[str, str, str | None, float, str | None]

ENGLISH: tuple[Sentence, ...] = (
    (
        "Titanic was directed by James Cameron.",
        "llm_judge",
        None,
        1.0,
        "It was directed, written, and co-produced by James Cameron.",
    ),
    ("It starred Brad Pitt and Kate Winslet.", "llm_judge", None, 0.0, None),
    (
        "It was released in 1997.",
        "verifier",
        "fell back: timeout",
        0.62,
        "Titanic is a 1997 American epic romantic disaster movie.",
    ),
    ("It won eleven Academy Awards.", "verifier", "fell back: http 429", 0.41, None),
    (
        "Kate Winslet starred in it.",
        "verifier",
        None,
        0.91,
        "It stars Kate Winslet and Leonardo DiCaprio.",
    ),
)
HEBREW: tuple[Sentence, ...] = (
    (
        "טיטאניק הוא סרט אמריקאי משנת 1997.",
        "llm_judge",
        None,
        1.0,
        "טיטאניק הוא סרט אמריקאי משנת 1997.",
    ),
    ("את הסרט ביים ג'יימס קמרון ובראד פיט.", "verifier", "fell back: timeout", 0.52, None),
    ("בסרט מככבים קייט וינסלט ולאונרדו דיקפריו.", "llm_judge", None, 0.0, None),
)


def llm_judged_review(user: object, sentences: tuple[Sentence, ...] = ENGLISH) -> Review:
    """A saved review of `sentences`, each claim judged as its row says."""
    answer = " ".join(s[0] for s in sentences)
    claims, chunks = [], []
    for text, checked_by, note, score, passage in sentences:
        start = utf8_len(answer[: answer.index(text)])
        cites: tuple[int, ...] = ()
        if passage is not None:
            fact = next(i for i, f in enumerate(FACTS) if passage in f.text)
            cites = (len(chunks),)
            chunks.append(CitedChunk(passage, fact, dict(FACTS[fact].attributes)))
        language = "en" if text.isascii() else "he"
        claims.append(
            Claim(
                start,
                start + utf8_len(text),
                text,
                True,
                cites,
                score,
                language,
                checked_by,
                llm_judge=note,
            )
        )
    request = CheckRequest(answer, FACTS, 0.6, True)
    response = CheckResponse(
        tuple(claims), tuple(chunks), sum(s[3] for s in sentences) / len(sentences)
    )
    return services.save_review(
        user,
        grounded_from_check(request, response),
        source_format=Review.Format.MANUAL,
        request=request,
        engine_checked=True,
    )
