"""Resolution: analysts' decisions on incidents

Revision ID: 0003_analyst_decisions
Revises: 0002_extraction
Create Date: 2026-11-30 00:27:20.032891
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_analyst_decisions"
down_revision = "0002_extraction"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyst_decisions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("action", sa.String(length=20), nullable=False),
        sa.Column("incident_id", sa.String(length=40), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("at", sa.String(length=32), nullable=False),
        sa.Column("entry_seq", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_analyst_decisions")),
    )
    with op.batch_alter_table("analyst_decisions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_analyst_decisions_incident_id"), ["incident_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("analyst_decisions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_analyst_decisions_incident_id"))

    op.drop_table("analyst_decisions")
