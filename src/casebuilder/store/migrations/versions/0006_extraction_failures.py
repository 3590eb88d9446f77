"""Extraction failures are recorded, so the same rules do not try the same text for ever

Revision ID: 0006_extraction_failures
Revises: 0005_log_seal
Create Date: 2026-12-01 09:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_extraction_failures"
down_revision = "0005_log_seal"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "extraction_failures",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("text_item_id", sa.Integer(), nullable=False),
        sa.Column("extractor", sa.String(length=120), nullable=False),
        sa.Column("vocabulary_sha256", sa.String(length=64), nullable=False),
        sa.Column("gazetteer", sa.String(length=200), nullable=False),
        sa.Column("source_sha256", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("at", sa.String(length=32), nullable=False),
        sa.Column("entry_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"], ["items.id"], name=op.f("fk_extraction_failures_item_id_items")
        ),
        sa.ForeignKeyConstraint(
            ["text_item_id"], ["items.id"], name=op.f("fk_extraction_failures_text_item_id_items")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_extraction_failures")),
    )
    with op.batch_alter_table("extraction_failures", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_extraction_failures_item_id"), ["item_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("extraction_failures", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_extraction_failures_item_id"))

    op.drop_table("extraction_failures")
