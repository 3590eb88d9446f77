"""Stored incidents keep their point (for "within km of"); PostGIS where the server has it

Revision ID: 0012_incident_points
Revises: 0011_item_restrictions
Create Date: 2026-12-03 14:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_incident_points"
down_revision = "0011_item_restrictions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("stored_incidents", schema=None) as batch_op:
        batch_op.add_column(sa.Column("lat", sa.Double(), nullable=True))
        batch_op.add_column(sa.Column("lon", sa.Double(), nullable=True))
        batch_op.create_index(batch_op.f("ix_stored_incidents_lat"), ["lat"], unique=False)
    # The stored points are filled by the next refresh: the listing code changed, so the
    # stored incidents are rebuilt (resolution/stored.py rules_digest).
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        available = bind.execute(sa.text(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'postgis'")).first()
        if available:
            # Creating an extension needs a privilege a team's role may lack: then the
            # portable query is used (resolution/spatial.py), and nothing else changes.
            with bind.begin_nested() as attempt:
                try:
                    bind.execute(sa.text("CREATE EXTENSION IF NOT EXISTS postgis"))
                except sa.exc.DBAPIError:
                    attempt.rollback()


def downgrade() -> None:
    with op.batch_alter_table("stored_incidents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_stored_incidents_lat"))
        batch_op.drop_column("lon")
        batch_op.drop_column("lat")
