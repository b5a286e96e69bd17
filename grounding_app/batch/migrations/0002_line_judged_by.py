"""Each checked line keeps how many of its claims each judge checked, per language
(`BatchLine.judged_by`), so a job's page counts word-matched claims without reading
every result. Lines already stored in the shape that names each claim's judge (result
version 3) are counted here; older lines say nothing of it and count as none."""

from django.db import migrations, models

BATCH = 500


def count_stored(apps, schema_editor):
    BatchLine = apps.get_model("batch", "BatchLine")
    changed = []
    lines = BatchLine.objects.filter(result__version=3).only("pk", "result")
    for line in lines.iterator(chunk_size=BATCH):
        judged = {}
        for candidate in (line.result or {}).get("candidates", []):
            for segment in candidate.get("segments", []):
                judge = segment.get("checked_by")
                if judge:
                    by_language = judged.setdefault(judge, {})
                    language = segment.get("language") or ""
                    by_language[language] = by_language.get(language, 0) + 1
        if judged:
            line.judged_by = judged
            changed.append(line)
        if len(changed) >= BATCH:
            BatchLine.objects.bulk_update(changed, ["judged_by"])
            changed = []
    if changed:
        BatchLine.objects.bulk_update(changed, ["judged_by"])


class Migration(migrations.Migration):
    dependencies = [
        ("batch", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="batchline",
            name="judged_by",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="Checked claims per judge and language: {checked_by: {language: count}}.",
            ),
        ),
        migrations.RunPython(count_stored, migrations.RunPython.noop),
    ]
