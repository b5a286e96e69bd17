"""The labeling page in Debian's chromium: keyboard only, drafts across a reload, submit;
adjudication on the agreement page; and the README screenshots (slow: `-m slow`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from grounding_app.annotations import agreement
from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import add_items, create_project
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.annotations.models import Assignment, LabelingProject
from grounding_app.common.importing import CheckedItem, ItemSource, ModelClaim
from grounding_app.engine import Fact, needs_grounding_check, split_sentences
from tests.browser.conftest import Session
from tests.browser.shots import fits, shows

pytestmark = pytest.mark.django_db(transaction=True)

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"

CURIE_FACTS = (
    Fact(
        "Maria Salomea Skłodowska, later known as Marie Curie, was born on 7 November 1867 "
        "in Warsaw, then part of the Russian Empire. She moved to Paris in 1891 to study "
        "physics and mathematics at the Sorbonne.",
        {"title": "Encyclopedia entry", "uri": "https://example.org/curie"},
    ),
    Fact(
        "In 1903 Marie Curie shared the Nobel Prize in Physics with Pierre Curie and Henri "
        "Becquerel. In 1911 she won the Nobel Prize in Chemistry for the discovery of "
        "polonium and radium.",
        {"title": "Nobel Prize facts"},
    ),
    Fact(
        "Curie died on 4 July 1934 at a sanatorium in Passy, Haute-Savoie, of aplastic "
        "anaemia, probably caused by her long exposure to radiation. In 1906 she became the "
        "first woman to be a professor at the University of Paris.",
        {"title": "Biography", "author": "Science museum"},
    ),
)
CURIE_ANSWER = (
    "Here is a short summary. Marie Curie was born in Warsaw in 1867. She won the Nobel "
    "Prize in Physics in 1903, together with Pierre Curie and Henri Becquerel. In 1911 she "
    "received a second Nobel Prize, in Chemistry, for discovering polonium and radium. She "
    "was the first woman to teach at the Sorbonne. Curie died in 1934 in Paris of leukemia."
)
# The model's verdict per checked sentence, in order: (score, cited facts).
CURIE_MODEL = ((0.97, (0,)), (0.93, (1,)), (0.9, (1,)), (0.55, ()), (0.12, ()))


def checked_item(
    answer: str,
    facts: tuple[Fact, ...],
    model: tuple[tuple[float, tuple[int, ...]], ...],
    external_id: str,
) -> CheckedItem:
    """An item with chosen model verdicts on the engine's own sentences (no engine run)."""
    verdicts = iter(model)
    claims = []
    for index, sentence in enumerate(split_sentences(answer)):
        if not needs_grounding_check(sentence.text):
            claims.append(
                ModelClaim(
                    index, sentence.start, sentence.end, sentence.text, False, "no_check", None, ()
                )
            )
            continue
        score, cited = next(verdicts)
        verdict = "supported" if score >= 0.6 else "unsupported"
        claims.append(
            ModelClaim(
                index, sentence.start, sentence.end, sentence.text, True, verdict, score, cited
            )
        )
    return CheckedItem(ItemSource(answer, facts, external_id, "demo"), tuple(claims))


def curie_project(lead: Any, annotators: list[Any], **settings: Any) -> LabelingProject:
    project = create_project(
        lead,
        name="Biographies · support check",
        instructions="Judge each sentence against the facts only, not against what you know.",
        extra_labels=["Partially supported"],
        annotators=annotators,
        **settings,
    )
    add_items(
        project,
        [
            checked_item(CURIE_ANSWER, CURIE_FACTS, CURIE_MODEL, "curie-1"),
            checked_item(CURIE_ANSWER, CURIE_FACTS, CURIE_MODEL, "curie-2"),
        ],
    )
    return project


def label_page(session: Session, project: LabelingProject) -> Page:
    page = session.page
    session.goto(project.get_absolute_url())
    page.get_by_role("button", name="Start labeling").click()
    page.wait_for_selector(".claim-card.is-focused")
    return page


def claim(page: Page, number: int) -> Any:
    return page.locator(f"#claim-{number}")


def has_classes(locator: Any, classes: str) -> None:
    """Wait until the element holds every one of the classes (in any order)."""
    for name in classes.split():
        expect(locator).to_have_class(re.compile(rf"(^|\s){re.escape(name)}(\s|$)"))


def saved(page: Page) -> None:
    expect(page.locator("#save-status")).to_have_text("All changes saved")


def watch_console(page: Page) -> list[str]:
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    return problems


def test_label_an_item_with_the_keyboard_only(
    open_session: Callable[..., Session], make_user: Callable[..., Any]
) -> None:
    session = open_session(role="annotator", name="ann")
    project = curie_project(make_user("reviewer", "lead"), [session.user])
    page = label_page(session, project)
    problems = watch_console(page)
    keys = page.keyboard
    has_classes(claim(page, 1), "claim-card is-focused")
    expect(page.locator("#item-progress-text")).to_have_text("0 / 6 claims")

    keys.press("3")  # claim 1: no check needed, and on to claim 2
    has_classes(claim(page, 2), "claim-card is-focused")
    keys.press("c")  # cite fact 1 for claim 2
    has_classes(page.locator("#fact-1"), "fact-card is-focused is-cited is-model-cited")
    keys.press("1")
    keys.press("f")  # fact 2, cited for claim 3
    keys.press("c")
    keys.press("1")
    keys.press("ArrowDown")  # claim 4 -> 5 with the arrow keys
    keys.press("ArrowUp")
    keys.press("j")
    has_classes(claim(page, 5), "claim-card is-focused")
    keys.press("Shift+F")  # back to fact 1
    keys.press("F")  # and around to fact 3
    has_classes(page.locator("#fact-3"), "fact-card is-focused")
    keys.press("c")
    keys.press("4")  # "Partially supported"
    keys.press("k")  # back to claim 5 to leave a note
    keys.press("n")
    page.keyboard.type("Sorbonne = University of Paris?")
    keys.press("Escape")
    has_classes(claim(page, 5), "claim-card is-labeled is-focused")
    keys.press("j")
    keys.press("2")  # claim 6: unsupported
    keys.press("u")  # undo that
    expect(claim(page, 6).locator("input[value='unsupported']")).not_to_be_checked()
    keys.press("ArrowDown")  # back to claim 4, still unlabeled
    keys.press("k")
    keys.press("k")
    has_classes(claim(page, 4), "claim-card is-focused")
    keys.press("1")
    saved(page)
    expect(page.locator("#item-progress-text")).to_have_text("5 / 6 claims")

    # Submitting with a claim left is refused on the page, and says which.
    keys.press("Control+Enter")
    expect(page.locator("#save-status")).to_have_text("1 claim needs a label first")
    has_classes(claim(page, 6), "claim-card is-focused")

    # Everything so far lives on the server: a reload shows it all again.
    page.reload()
    page.wait_for_selector(".claim-card.is-focused")
    has_classes(claim(page, 6), "claim-card is-focused")  # the first open claim
    expect(claim(page, 1).locator("input[value='no_check']")).to_be_checked()
    expect(claim(page, 2).locator("input[type='checkbox'][value='0']")).to_be_checked()
    expect(claim(page, 3).locator("input[type='checkbox'][value='1']")).to_be_checked()
    expect(claim(page, 5).locator("input[value='partially_supported']")).to_be_checked()
    expect(claim(page, 5).locator("input[type='checkbox'][value='2']")).to_be_checked()
    expect(claim(page, 5).locator("textarea")).to_have_value("Sorbonne = University of Paris?")
    expect(page.locator("#item-progress-text")).to_have_text("5 / 6 claims")

    keys.press("2")
    keys.press("Control+Enter")
    expect(page.locator(".messages")).to_contain_text("Submitted. Here is the next item.")
    first = Assignment.objects.get(annotator=session.user, status=Assignment.Status.SUBMITTED)
    labels = {
        label.claim.index: (label.label, label.cited_facts, label.note)
        for label in first.labels.select_related("claim")
    }
    assert labels == {
        0: ("no_check", [], ""),
        1: ("supported", [0], ""),
        2: ("supported", [1], ""),
        3: ("supported", [], ""),
        4: ("partially_supported", [2], "Sorbonne = University of Paris?"),
        5: ("unsupported", [], ""),
    }
    assert problems == []
    session.no_xss()


def test_submit_waits_for_drafts_in_flight(
    open_session: Callable[..., Session], make_user: Callable[..., Any]
) -> None:
    """A label given just before Ctrl+Enter is still being saved as a draft: the submit
    waits for it, so no draft reaches the server after the item was submitted (a 409,
    shown as an error on a slow server or a busy machine)."""
    session = open_session(role="annotator", name="quick")
    project = curie_project(make_user("reviewer", "lead"), [session.user])
    page = label_page(session, project)
    problems = watch_console(page)
    drafts: list[str] = []

    def slow(route: Any) -> None:
        drafts.append(route.request.url)
        page.wait_for_timeout(400)  # the draft is answered late
        route.continue_()

    page.route("**/draft/", slow)
    for _ in range(6):
        page.keyboard.press("1")  # supported, and on to the next claim
    page.keyboard.press("Control+Enter")
    expect(page.locator(".messages")).to_contain_text(
        "Submitted. Here is the next item.", timeout=15_000
    )
    assert len(drafts) == 6
    assert problems == []
    first = Assignment.objects.get(annotator=session.user, status=Assignment.Status.SUBMITTED)
    assert sorted(label.label for label in first.labels.all()) == ["supported"] * 6


def test_clicks_work_too_and_blind_mode_shows_no_model(
    open_session: Callable[..., Session], make_user: Callable[..., Any]
) -> None:
    session = open_session(role="annotator", name="bea")
    project = curie_project(make_user("reviewer", "lead"), [session.user], blind=True)
    page = label_page(session, project)
    problems = watch_console(page)
    expect(page.locator(".model-verdict")).to_have_count(0)
    expect(page.locator(".mark-model")).to_have_count(0)
    claim(page, 3).get_by_text("Unsupported").click()
    has_classes(claim(page, 3), "claim-card is-labeled is-focused")
    page.locator("#fact-2").click()  # cites fact 2 for the focused claim
    expect(claim(page, 3).locator("input[type='checkbox'][value='1']")).to_be_checked()
    page.locator(".ann-claim[data-claim-ref='6']").click()
    has_classes(claim(page, 6), "claim-card is-focused")
    saved(page)
    page.reload()
    expect(claim(page, 3).locator("input[value='unsupported']")).to_be_checked()
    assert problems == []


def test_adjudicate_in_the_browser(
    open_session: Callable[..., Session], make_user: Callable[..., Any]
) -> None:
    people = [make_user("annotator", name) for name in ("ann", "bob")]
    session = open_session(role="reviewer", name="lead")
    project = curie_project(session.user, people, overlap=2)
    for user, last in zip(people, ("unsupported", "supported"), strict=True):
        assignment = next_assignment(project, user)
        assert assignment is not None
        submit(
            assignment,
            {
                c.pk: ClaimState("no_check" if c.index == 0 else last)
                for c in assignment.item.claims.all()
            },
        )
    page = session.page
    problems = watch_console(page)
    session.goto(f"/annotations/{project.pk}/agreement/")
    expect(page.locator("svg.chart-reliability:visible")).to_be_visible()
    rows = page.locator("li.disagreement")
    expect(rows).to_have_count(5)
    first = rows.first
    first.locator("select").select_option("unsupported")
    first.get_by_role("button", name="Record").click()
    expect(page.locator("li.disagreement.is-resolved")).to_contain_text(
        "Saved · final: Unsupported"
    )
    assert problems == []
    session.no_xss()


# --- Screenshots for the README ------------------------------------------------------------

DEMO = [
    ("Titanic was directed by James Cameron.", "James Cameron directed Titanic (1997)."),
    ("Titanic won eleven Academy Awards.", "The film won 11 Academy Awards."),
    ("The Eiffel Tower was finished in 1889.", "The tower was completed in March 1889."),
    ("The Eiffel Tower is 500 metres tall.", "The tower is 330 metres tall."),
    ("Apollo 11 landed on the Moon in July 1969.", "Apollo 11 landed on 20 July 1969."),
    ("Neil Armstrong and Buzz Aldrin walked on the Moon.", "Armstrong and Aldrin walked on it."),
    ("Michael Collins also walked on the Moon.", "Collins stayed in lunar orbit."),
    ("The Great Wall is visible from the Moon.", "The wall is not visible from the Moon."),
    ("Penicillin was discovered by Alexander Fleming.", "Fleming discovered penicillin in 1928."),
    ("Fleming shared the 1945 Nobel Prize.", "Fleming, Chain and Florey shared it in 1945."),
    ("Mount Everest is 8,849 metres high.", "A 2020 survey measured 8,848.86 metres."),
    ("Everest was first climbed in 1955.", "Hillary and Tenzing reached it in 1953."),
    ("The Amazon is the largest rainforest.", "It is the largest tropical rainforest."),
    ("The Amazon river flows into the Pacific.", "The Amazon flows into the Atlantic."),
    ("Tokyo is the capital of Japan.", "Tokyo has been the capital since 1868."),
    ("Kyoto was the capital until 1868.", "Kyoto was the imperial capital for a millennium."),
    ("The Nile is about 6,650 km long.", "The Nile is about 6,650 kilometres long."),
    ("The Nile flows through nine countries.", "Its basin spans eleven countries."),
    ("Shakespeare wrote Hamlet around 1600.", "Hamlet was written around 1599 to 1601."),
    ("Shakespeare was born in London.", "He was born in Stratford-upon-Avon."),
    ("Light travels at about 300,000 km/s.", "The speed of light is 299,792 km/s."),
    ("Sound travels faster than light.", "Sound travels at about 343 m/s in air."),
    ("Venus is the hottest planet.", "Venus has the hottest surface of any planet."),
    ("Venus has two moons.", "Venus has no natural satellite."),
    ("DNA has a double-helix structure.", "Watson and Crick described the double helix."),
    ("The helix was described in 1963.", "Their paper appeared in 1953."),
    ("Honey never spoils if sealed.", "Sealed honey keeps for a very long time."),
    ("Bats are blind.", "Most bats see well and also use echolocation."),
    ("The Pacific is the largest ocean.", "The Pacific is the largest and deepest ocean."),
    ("Goldfish remember for three seconds.", "Goldfish remember things for months."),
]


# Model scores for the true and the false demo claims, in order: a decent but imperfectly
# calibrated model, so the reliability diagram has something to show.
TRUE_SCORES = [
    0.97,
    0.94,
    0.91,
    0.88,
    0.86,
    0.83,
    0.79,
    0.76,
    0.72,
    0.69,
    0.65,
    0.61,
    0.57,
    0.46,
    0.28,
]
FALSE_SCORES = [
    0.03,
    0.06,
    0.09,
    0.13,
    0.16,
    0.21,
    0.24,
    0.27,
    0.34,
    0.38,
    0.42,
    0.53,
    0.62,
    0.74,
    0.88,
]


def demo_project(lead: Any, people: list[Any]) -> LabelingProject:
    """Thirty claims (every other one false) labeled by four people, some more careful."""
    rng = random.Random(5)
    project = create_project(
        lead,
        name="Trivia answers · March batch",
        instructions="Judge each sentence against the facts only.",
        extra_labels=["Partially supported"],
        overlap=4,
        annotators=people,
    )
    scores = {True: iter(TRUE_SCORES), False: iter(FALSE_SCORES)}
    items, truths = [], []
    for n, (claim_text, fact_text) in enumerate(DEMO):
        score = next(scores[n % 2 == 0])
        truth = "supported" if n % 2 == 0 else "unsupported"
        if n in (10, 17):
            truth = "partially_supported"
        model = ((score, (0,) if score >= 0.6 else ()),)
        items.append(checked_item(claim_text, (Fact(fact_text),), model, f"q-{n + 1}"))
        truths.append(truth)
    add_items(project, items)
    others = {"supported": "unsupported", "unsupported": "supported"}
    for person, care in zip(people, (0.98, 0.95, 0.93, 0.85), strict=True):
        while (assignment := next_assignment(project, person)) is not None:
            truth = truths[assignment.item.position]
            label = truth if rng.random() < care else others.get(truth, "supported")
            submit(
                assignment,
                {c.pk: ClaimState(label, (0,)) for c in assignment.item.claims.all()},
            )
    report = agreement.agreement(project)
    for d in report.disagreements[-2:]:
        agreement.adjudicate(d.claim, d.majority or "unsupported", lead)
    return project


@pytest.mark.slow
def test_screenshots(open_session: Callable[..., Session], make_user: Callable[..., Any]) -> None:
    IMG.mkdir(exist_ok=True)
    session = open_session(role="annotator", name="ann")
    lead = make_user("reviewer", "lena")
    project = curie_project(lead, [session.user, make_user("annotator", "bob")])
    page = session.page
    page.set_viewport_size({"width": 1360, "height": 1240})
    page.emulate_media(color_scheme="light")
    label_page(session, project)
    keys = page.keyboard
    for key in ("3", "c", "1", "f", "c", "1", "c", "1", "f", "n"):
        keys.press(key)
    page.keyboard.type("The facts say University of Paris; same thing?")
    keys.press("Escape")
    keys.press("c")
    saved(page)
    page.wait_for_timeout(400)
    # Four claims labeled by keys, the fifth focused with its note and the fact it cites.
    expect(page.locator("#item-progress-text")).to_have_text("4 / 6 claims")
    has_classes(claim(page, 5), "claim-card is-focused")
    expect(claim(page, 5).locator("textarea")).to_have_value(
        "The facts say University of Paris; same thing?"
    )
    has_classes(page.locator("#fact-3"), "fact-card is-cited")
    fits(page)
    page.screenshot(path=str(IMG / "annotate.png"))
    session.no_xss()

    people = [make_user("annotator", n) for n in ("ana", "ben", "chloe", "dev")]
    demo = demo_project(lead, people)
    lead_session = open_session(role="reviewer", name="lead-viewer")
    lead_page = lead_session.page
    lead_page.set_viewport_size({"width": 1360, "height": 1280})
    lead_page.emulate_media(color_scheme="light")
    lead_session.goto(f"/annotations/{demo.pk}/agreement/")
    lead_page.locator("svg.chart-reliability:visible").wait_for()
    lead_page.wait_for_timeout(300)
    # Agreement of the four annotators with each other and with the model, and its chart.
    expect(lead_page.locator("svg.chart-reliability:visible")).to_be_visible()
    shows(lead_page.locator("main"), "Krippendorff", "Cohen", "ana", "ben", "chloe", "dev")
    fits(lead_page)
    lead_page.screenshot(path=str(IMG / "agreement.png"))
    lead_session.no_xss()
