"""Probing a model: versioned prompts, an OpenAI-compatible client, resumable runs."""
