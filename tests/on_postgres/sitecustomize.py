"""Loaded by every Python process a test run starts (the suite puts this folder on PYTHONPATH):
once casebuilder's case module is imported, it notes which test opened a case database, and,
when the suite runs on PostgreSQL, gives new case homes a database of their own on the test
server (see postgres_cases.py). Outside a test run the folder is not on the path."""

from __future__ import annotations

import os

if os.environ.get("CASEBUILDER_TEST_DATABASE") == "postgresql" or \
        os.environ.get("CASEBUILDER_TEST_DATABASE_LOG"):
    import postgres_cases

    postgres_cases.patch_when_imported()
