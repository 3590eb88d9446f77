"""An item's SHA-512 may be recorded after its receipt

Revision ID: 0007_second_digest_later
Revises: 0006_extraction_failures
Create Date: 2026-12-01 11:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_second_digest_later"
down_revision = "0006_extraction_failures"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.alter_column("sha512", existing_type=sa.String(length=128), nullable=True)


def downgrade() -> None:
    # Items whose SHA-512 is still pending cannot go back to a schema that requires it.
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.alter_column("sha512", existing_type=sa.String(length=128), nullable=False)
