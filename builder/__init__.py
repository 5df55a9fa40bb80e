"""buzzprobe: static-site reports for LLM benchmark probes."""

__version__ = "0.1.0"
