"""Counters every process shares through the database (rate limits without Redis)."""
