"""Restricted items (witness statements, identities): who restricted what, and why

Revision ID: 0011_item_restrictions
Revises: 0010_user_accounts
Create Date: 2026-12-03 13:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_item_restrictions"
down_revision = "0010_user_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "item_restrictions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("restricted", sa.Boolean(), nullable=False),
        sa.Column("kind", sa.String(length=60), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("at", sa.String(length=32), nullable=False),
        sa.Column("entry_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"],
                                name=op.f("fk_item_restrictions_item_id_items")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_item_restrictions")),
    )
    with op.batch_alter_table("item_restrictions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_item_restrictions_item_id"), ["item_id"],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table("item_restrictions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_item_restrictions_item_id"))
    op.drop_table("item_restrictions")
