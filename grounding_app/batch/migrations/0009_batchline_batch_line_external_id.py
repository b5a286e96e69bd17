from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("batch", "0008_llm_judge_usage"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="batchline",
            index=models.Index(
                fields=["job", "state", "external_id", "number"], name="batch_line_external_id"
            ),
        ),
    ]
