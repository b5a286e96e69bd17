"""Plain Python the apps share, below all of them and free of Django.

Code that two apps use lives here rather than in the app that wrote it first, so that
no app has to import another one sideways or upwards: the stored form of a grounded
answer (`serialize`), items checked from JSONL lines (`importing`, used by labeling
projects and batch jobs), the parse of a posted id (`numbers`) and the sweeper thread
of the Celery workers (`sweeper`, for batch and traces). It imports only
`engine` and `formats` (tests/test_architecture.py holds the layer order).
"""
