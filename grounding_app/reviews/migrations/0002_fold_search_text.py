"""Fold the search text of reviews saved before search ignored case and accents.

New reviews are saved folded (`services._search_text`) and queries are folded the same
way, so older rows must be folded too or an accented word in them would never match.
There is no way back to the original text, and none is needed: it is rebuilt from the
review only for search, so the reverse step leaves the folded text as it is.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

from grounding_app.reviews.folding import fold

BATCH = 500


def fold_search_text(apps: Any, schema_editor: Any) -> None:
    """In batches by primary key: SQLite gives no isolation between a read still being
    iterated and writes to the same table."""
    reviews = apps.get_model("reviews", "Review")._base_manager
    last = 0
    while batch := list(reviews.filter(pk__gt=last).order_by("pk").only("search_text")[:BATCH]):
        for review in batch:
            review.search_text = fold(review.search_text)
        reviews.bulk_update(batch, ["search_text"])
        last = batch[-1].pk


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(fold_search_text, migrations.RunPython.noop, elidable=True),
    ]
