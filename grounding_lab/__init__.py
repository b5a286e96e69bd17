"""Offline tooling beside the app: datasets, training, evaluation, benchmarks, figures.

It may import `grounding_app`, never the reverse (tests/test_architecture.py); the app
lists it in INSTALLED_APPS by name when it is present, for its management commands.
"""
