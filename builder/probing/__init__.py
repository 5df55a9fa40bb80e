"""The probing engine: an OpenAI-compatible client, the resumable runner, protocols."""
