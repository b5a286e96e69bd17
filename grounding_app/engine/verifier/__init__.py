"""The trained claim verifier: a MiniLM cross-encoder that reads (claim in context, evidence)."""
