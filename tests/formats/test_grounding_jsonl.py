from __future__ import annotations

import json

import pytest

from grounding_app.formats.grounding_jsonl import DatasetError, parse_example, read_examples


def test_reads_the_shared_schema(tmp_path):
    line = {
        "id": "x1",
        "source": "fib",
        "facts": [{"text": "A fact.", "attributes": {"doc_id": "d"}}],
        "claim": "A claim.",
        "label": 1,
    }
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(line) + "\n\n" + json.dumps({**line, "label": None}) + "\n")
    first, second = read_examples(path)
    assert first.facts[0].attributes == {"doc_id": "d"} and first.label == 1
    assert second.label is None and second.source == "fib"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not JSON"),
        ("[]", "expected an object"),
        ('{"facts": 3, "claim": "c"}', "'facts' must be a list"),
        ('{"facts": [{"text": 1}], "claim": "c"}', "facts[0].text"),
        ('{"facts": [{"text": "t", "attributes": []}], "claim": "c"}', "facts[0].attributes"),
        ('{"facts": [], "claim": 5}', "'claim' must be a string"),
        ('{"facts": [], "claim": "c", "label": 2}', "'label' must be 0, 1"),
    ],
)
def test_bad_lines_name_the_problem(line, message):
    with pytest.raises(DatasetError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_example(line, "f.jsonl:1")
