"""One row per counter: an integer that expires.

gunicorn's workers are separate processes, so a counter in a worker's memory lets every
worker allow the whole limit; a row in the database is seen by all of them, on one
machine or many, without a service beside the database.
"""

from __future__ import annotations

from django.db import models


class SharedCounter(models.Model):
    key = models.CharField(max_length=250, primary_key=True)
    count = models.BigIntegerField(default=0)
    expires = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key} = {self.count}"
