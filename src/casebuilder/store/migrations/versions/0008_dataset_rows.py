"""Rows of imported datasets (incident, context or rejected), with their lines and byte spans

Revision ID: 0008_dataset_rows
Revises: 0007_second_digest_later
Create Date: 2026-12-01 18:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_dataset_rows"
down_revision = "0007_second_digest_later"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dataset_rows",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("line_end", sa.Integer(), nullable=False),
        sa.Column("byte_start", sa.BigInteger(), nullable=False),
        sa.Column("byte_end", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("rule", sa.String(length=120), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("mention_key", sa.String(length=40), nullable=True),
        sa.Column("facts", sa.JSON(), nullable=False),
        sa.Column("cells", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["extraction_runs.id"], name=op.f("fk_dataset_rows_run_id_extraction_runs")
        ),
        sa.ForeignKeyConstraint(
            ["item_id"], ["items.id"], name=op.f("fk_dataset_rows_item_id_items")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dataset_rows")),
    )
    with op.batch_alter_table("dataset_rows", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_dataset_rows_run_id"), ["run_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("dataset_rows", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_dataset_rows_run_id"))

    op.drop_table("dataset_rows")
