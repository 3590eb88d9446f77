"""Alembic migrations of the case database, one named file per schema change.

``HEAD`` names the newest revision; a test checks it against Alembic's own view so the fast
start-up path in :func:`casebuilder.store.database.ensure_schema` cannot drift.
"""

HEAD = "0012_incident_points"
