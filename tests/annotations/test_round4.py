"""Label Studio tab, round 4 (issue 32): the labeling interface shown with a Copy
button, and the marker label only where the tasks use it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils.html import escape

from grounding_app.annotations import exports
from grounding_app.annotations.models import LabelingProject
from tests.annotations.conftest import client_for

pytestmark = pytest.mark.django_db


def test_the_label_studio_tab_shows_the_interface_to_copy(
    make_project: Callable[..., LabelingProject], lead: Any
) -> None:
    project = make_project()
    page = client_for(lead).get(f"/annotations/{project.pk}/label-studio/").content.decode()
    config = exports.label_studio_config(project)
    assert escape(config) in page
    assert 'data-copy-from="ls-config"' in page


def test_the_interface_offers_no_marker_label_the_tasks_do_not_use(
    make_project: Callable[..., LabelingProject],
) -> None:
    assert "To label" not in exports.label_studio_config(make_project())
    assert "To label" in exports.label_studio_config(make_project(blind=True))
