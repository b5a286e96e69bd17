from __future__ import annotations

import json
from io import StringIO

from django.core.management import call_command

from grounding_app.metrics import reliability_bins
from grounding_app.rendering.charts import reliability_svg


def test_report_prints_ece_per_judge_and_writes_svg(tmp_path):
    data = tmp_path / "dev.jsonl"
    data.write_text(
        "".join(
            json.dumps({"id": f"x{i}", "facts": [], "claim": "c", "label": i % 2}) + "\n"
            for i in range(4)
        )
    )
    predictions = tmp_path / "pred.jsonl"
    rows = [
        {"id": f"x{i}", "supported": bool(i % 2), "score": s, "judge": judge}
        for judge, scores in {"a": [0.1, 0.9, 0.2, 0.8], "b": [0.5, 0.5, 0.5, 0.5]}.items()
        for i, s in enumerate(scores)
    ]
    predictions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = StringIO()
    svg = tmp_path / "r.svg"
    call_command("calibration_report", str(predictions), str(data), "--svg", str(svg), stdout=out)
    assert out.getvalue().splitlines() == ["a: n=4 ECE=0.1500", "b: n=4 ECE=0.0000"]
    assert svg.read_text().startswith("<svg") and "ECE 0.150" in svg.read_text()


def test_chart_text_is_escaped():
    bins = reliability_bins([1, 0], [0.9, 0.1])
    svg = reliability_svg({"<script>": bins}, "a & <b>")
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "a &amp; &lt;b&gt;" in svg
