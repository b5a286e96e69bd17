"""Offline tooling: datasets, training, evaluation. Never imported by a request."""
