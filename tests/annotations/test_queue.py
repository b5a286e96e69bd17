"""Handing out items: never twice to one annotator, never past k, even when requests race."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.labels import skip
from grounding_app.annotations.models import Assignment, Item, LabelingProject
from tests.annotations.conftest import label_all

pytestmark = pytest.mark.django_db


def test_next_gives_a_new_item_and_resumes_the_open_one(
    project: LabelingProject, annotators: list[Any]
) -> None:
    ann = annotators[0]
    first = next_assignment(project, ann)
    assert first is not None and first.slot == 0
    assert next_assignment(project, ann) == first  # resumes, no second item
    label_all(first)
    second = next_assignment(project, ann)
    assert second is not None and second.item != first.item


def test_items_closest_to_k_come_first(project: LabelingProject, annotators: list[Any]) -> None:
    ann, bob, _ = annotators
    a = next_assignment(project, ann)
    b = next_assignment(project, bob)
    assert a is not None and b is not None
    assert b.item == a.item and b.slot == 1  # depth first: finish items to k


def test_no_item_past_k_and_none_twice(
    make_project: Callable[..., LabelingProject], annotators: list[Any], make_user: Any
) -> None:
    project = make_project(count=2, overlap=2)
    extra = make_user("annotator", "dan")
    project.annotators.add(extra)
    seen: dict[Any, list[int]] = {}
    for user in [*annotators, extra]:
        seen[user] = []
        while (a := next_assignment(project, user)) is not None:
            seen[user].append(a.item_id)
            label_all(a)
    for items in seen.values():
        assert len(items) == len(set(items))
    per_item = Counter(i for items in seen.values() for i in items)
    assert per_item == {item.pk: 2 for item in project.items.all()}


def test_skip_frees_the_slot_and_never_returns(
    make_project: Callable[..., LabelingProject], annotators: list[Any]
) -> None:
    project = make_project(count=1, overlap=1)
    ann, bob, _ = annotators
    a = next_assignment(project, ann)
    assert a is not None
    assert next_assignment(project, bob) is None  # the only slot is taken
    skip(a)
    a.refresh_from_db()
    assert (a.status, a.slot) == (Assignment.Status.SKIPPED, None)
    assert next_assignment(project, ann) is None  # never offered again
    b = next_assignment(project, bob)
    assert b is not None and b.slot == 0


def test_lowering_k_stops_handing_out(project: LabelingProject, annotators: list[Any]) -> None:
    ann, bob, cat = annotators
    for user in (ann, bob):
        a = next_assignment(project, user)
        assert a is not None
        label_all(a)
    project.overlap = 1
    project.save()
    a = next_assignment(project, cat)
    assert a is not None and a.item.position == 1  # item 0 already has two


def test_the_database_refuses_a_taken_slot_and_a_second_assignment(
    project: LabelingProject, annotators: list[Any]
) -> None:
    item = project.items.first()
    ann, bob, _ = annotators
    Assignment.objects.create(item=item, annotator=ann, slot=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(item=item, annotator=bob, slot=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(item=item, annotator=ann, slot=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(item=item, annotator=bob, slot=None)  # counted needs a slot


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_never_push_an_item_past_k(
    make_project: Callable[..., LabelingProject], make_user: Any
) -> None:
    """Eight annotators ask for items at the same moment, again and again, from threads.

    Each thread has its own database connection, so this is real concurrency on the
    database: on SQLite the IMMEDIATE transactions serialise, on PostgreSQL the row lock.
    """
    in_memory = connection.vendor == "sqlite" and connection.is_in_memory_db()
    assert not in_memory, "needs a file or server test database"
    project = make_project(count=6, overlap=3)
    people = [make_user("annotator", f"racer-{n}") for n in range(8)]
    project.annotators.add(*people)
    start = threading.Barrier(len(people))
    errors: list[str] = []
    taken: list[tuple[int, int]] = []

    def work(user: Any) -> None:
        try:
            for _ in range(len(people)):
                start.wait(timeout=30)  # every round, everyone asks at once
                assignment = next_assignment(project, user)
                if assignment is not None:
                    taken.append((assignment.item_id, user.pk))
                    label_all(assignment)
        except Exception as exc:  # the assertion below names it
            errors.append(repr(exc))
            start.abort()
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(user,)) for user in people]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert len(taken) == len(set(taken)), "an annotator got the same item twice"
    per_item = Counter(item for item, _ in taken)
    assert max(per_item.values()) <= 3
    counted = Counter(
        Assignment.objects.exclude(status=Assignment.Status.SKIPPED).values_list(
            "item_id", flat=True
        )
    )
    assert counted == {item.pk: 3 for item in Item.objects.filter(project=project)}
