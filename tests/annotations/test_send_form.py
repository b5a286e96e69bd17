"""The review page's "Send to labeling project" makes the user choose the project (issue
44, item 19): it preselected the newest, and reviews went to the wrong project unseen."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from grounding_app.annotations.items import create_project
from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.reviews import services

pytestmark = pytest.mark.django_db


def _form(lead: Any, projects: int) -> str:
    for n in range(projects):
        create_project(lead, name=f"Project {n}")
    review = services.check_and_save(lead, CheckRequest("Paris is in France.", (Fact("Paris"),)))
    client = Client()
    client.force_login(lead)
    page = client.get(review.get_absolute_url()).content.decode()
    form = re.search(r'<form class="send-to-project".*?</form>', page, flags=re.S)
    assert form is not None
    return form[0]


def test_no_radio_is_chosen_for_the_user(fake_engine: GroundingEngine, lead: Any) -> None:
    form = _form(lead, 2)
    assert form.count('type="radio"') == 2 and form.count(" required") == 2
    assert "checked" not in form


def test_the_list_opens_on_an_empty_choice(fake_engine: GroundingEngine, lead: Any) -> None:
    form = _form(lead, 6)
    options = re.findall(r"<option([^>]*)>([^<]*)</option>", form)
    assert options[0] == (' value=""', "Choose a project…")
    assert len(options) == 7 and not any("selected" in attrs for attrs, _ in options)
    assert "<select" in form and " required>" in form
