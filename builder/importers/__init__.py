"""Importers: turn other tools' evaluation outputs into buzzprobe runs."""
