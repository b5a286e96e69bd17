"""Source policies: the agent search tool's settings (SPEC §3), checked against citations."""
