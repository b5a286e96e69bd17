"""The claim verifier: a cross-encoder that reads (claim in context, evidence), the bundled
MiniLM or a Hugging Face classifier brought as a directory."""
