"""Adapting a verifier to a team's labels, as the Verifier page runs it (a function, in
its Celery job) and the lab's `manage.py adapt_verifier` too.

`run.adapt` reads and checks the labels (`labels`), trains (`train`, on pairs cut by
`windows`), calibrates (`calibrate`), measures through the engine (`measure`) and writes
the model card (`card`). Plain Python beside Django: the training packages (the `train`
extra) are imported only when a run trains.
"""

from __future__ import annotations

from grounding_app.verifiers.adapt.options import DATA, AdaptError, Options
from grounding_app.verifiers.adapt.run import Result, adapt, summary

__all__ = ["DATA", "AdaptError", "Options", "Result", "adapt", "summary"]
