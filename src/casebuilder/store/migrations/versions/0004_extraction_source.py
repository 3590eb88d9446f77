"""Extraction runs record the source facts they read

Revision ID: 0004_extraction_source
Revises: 0003_analyst_decisions
Create Date: 2026-11-30 01:10:53.939368
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_extraction_source"
down_revision = "0003_analyst_decisions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("extraction_runs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("source_sha256", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("extraction_runs", schema=None) as batch_op:
        batch_op.drop_column("source_sha256")
