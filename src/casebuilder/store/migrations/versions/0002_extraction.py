"""Extraction: runs, incident mentions, claims.

Revision ID: 0002_extraction
Revises: 0001_evidence_locker
Create Date: 2026-11-30 00:24:25.420027
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_extraction"
down_revision = "0001_evidence_locker"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "extraction_runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("text_item_id", sa.Integer(), nullable=False),
        sa.Column("extractor", sa.String(length=120), nullable=False),
        sa.Column("vocabulary_sha256", sa.String(length=64), nullable=False),
        sa.Column("gazetteer", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("entry_seq", sa.Integer(), nullable=False),
        sa.Column("mention_count", sa.Integer(), nullable=False),
        sa.Column("claim_count", sa.Integer(), nullable=False),
        sa.Column("results_sha256", sa.String(length=64), nullable=False),
        sa.Column("current", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"], ["items.id"], name=op.f("fk_extraction_runs_item_id_items")
        ),
        sa.ForeignKeyConstraint(
            ["text_item_id"], ["items.id"], name=op.f("fk_extraction_runs_text_item_id_items")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_extraction_runs")),
    )
    with op.batch_alter_table("extraction_runs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_extraction_runs_item_id"), ["item_id"], unique=False)

    op.create_table(
        "incident_mentions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=40), nullable=False),
        sa.Column("situation", sa.Boolean(), nullable=False),
        sa.Column("categories", sa.JSON(), nullable=False),
        sa.Column("place_name", sa.Text(), nullable=False),
        sa.Column("place", sa.JSON(), nullable=True),
        sa.Column("lat", sa.Double(), nullable=True),
        sa.Column("lon", sa.Double(), nullable=True),
        sa.Column("date_start", sa.String(length=10), nullable=True),
        sa.Column("date_end", sa.String(length=10), nullable=True),
        sa.Column("date_precision", sa.String(length=12), nullable=True),
        sa.Column("date_expression", sa.Text(), nullable=True),
        sa.Column("date_basis", sa.String(length=20), nullable=True),
        sa.Column("char_start", sa.Integer(), nullable=False),
        sa.Column("char_end", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"], ["items.id"], name=op.f("fk_incident_mentions_item_id_items")
        ),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["extraction_runs.id"],
            name=op.f("fk_incident_mentions_run_id_extraction_runs"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_incident_mentions")),
    )
    with op.batch_alter_table("incident_mentions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_incident_mentions_item_id"), ["item_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_incident_mentions_key"), ["key"], unique=False)
        batch_op.create_index(batch_op.f("ix_incident_mentions_run_id"), ["run_id"], unique=False)

    op.create_table(
        "claims",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("mention_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("rule", sa.String(length=60), nullable=False),
        sa.Column("char_start", sa.Integer(), nullable=False),
        sa.Column("char_end", sa.Integer(), nullable=False),
        sa.Column("sentence_start", sa.Integer(), nullable=False),
        sa.Column("sentence_end", sa.Integer(), nullable=False),
        sa.Column("quote", sa.Text(), nullable=False),
        sa.Column("attributed_to", sa.Text(), nullable=False),
        sa.Column("speaker_role", sa.Text(), nullable=False),
        sa.Column("source_kind", sa.String(length=40), nullable=False),
        sa.Column("party", sa.String(length=40), nullable=True),
        sa.Column("verb", sa.String(length=60), nullable=False),
        sa.Column("evidentiality", sa.String(length=20), nullable=False),
        sa.Column("qualifiers", sa.JSON(), nullable=False),
        sa.Column("also_attributed", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"], name=op.f("fk_claims_item_id_items")),
        sa.ForeignKeyConstraint(
            ["mention_id"],
            ["incident_mentions.id"],
            name=op.f("fk_claims_mention_id_incident_mentions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_claims")),
    )
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_claims_kind"), ["kind"], unique=False)
        batch_op.create_index(batch_op.f("ix_claims_mention_id"), ["mention_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_claims_mention_id"))
        batch_op.drop_index(batch_op.f("ix_claims_kind"))

    op.drop_table("claims")
    with op.batch_alter_table("incident_mentions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_incident_mentions_run_id"))
        batch_op.drop_index(batch_op.f("ix_incident_mentions_key"))
        batch_op.drop_index(batch_op.f("ix_incident_mentions_item_id"))

    op.drop_table("incident_mentions")
    with op.batch_alter_table("extraction_runs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_extraction_runs_item_id"))

    op.drop_table("extraction_runs")
