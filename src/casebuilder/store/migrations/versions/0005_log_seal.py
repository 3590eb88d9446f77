"""The log state keeps the Merkle frontier and the seal of the last unit of work

Revision ID: 0005_log_seal
Revises: 0004_extraction_source
Create Date: 2026-12-01 09:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_log_seal"
down_revision = "0004_extraction_source"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("log_state", schema=None) as batch_op:
        batch_op.add_column(sa.Column("frontier", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("seal", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("log_state", schema=None) as batch_op:
        batch_op.drop_column("seal")
        batch_op.drop_column("frontier")
