"""Shared typed values used by every stage (times, partial dates, references)."""
