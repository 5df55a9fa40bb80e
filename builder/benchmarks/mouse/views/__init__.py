"""Mouse's tables and chart (views over computed facts)."""
