"""Verifier page, round 4 (issue 32): it says where claims in other languages go, and a
switch asks for confirmation first, naming the languages the new verifier reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_page_says_other_languages_go_to_word_matching_and_switching_asks(
    admin_client: Client, verifiers: dict[str, Path]
) -> None:
    page = admin_client.get("/verifiers/").content.decode()
    assert "in any other language are judged by word matching" in page
    forms = re.findall(r'<form [^>]*action="/verifiers/switch/"[^>]*>', page)
    assert len(forms) == 2
    for form in forms:
        assert "data-confirm=" in form and "word matching" in form, form
