"""Evidence locker: items, origins, derivations, intake failures, custody log, checkpoints.

Revision ID: 0001_evidence_locker
Revises:
Create Date: 2026-11-29 23:32:54.070167
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_evidence_locker"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "case_info",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("public_key_sha256", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_case_info")),
    )
    op.create_table(
        "checkpoints",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tree_size", sa.Integer(), nullable=False),
        sa.Column("root", sa.String(length=64), nullable=False),
        sa.Column("time", sa.String(length=32), nullable=False),
        sa.Column("public_key_sha256", sa.String(length=64), nullable=False),
        sa.Column("signature", sa.Text(), nullable=False),
        sa.Column("timestamp_token", sa.LargeBinary(), nullable=True),
        sa.Column("record", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_checkpoints")),
    )
    op.create_table(
        "custody_events",
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("leaf_hash", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("time", sa.String(length=32), nullable=False),
        sa.Column("entry", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_custody_events")),
    )
    with op.batch_alter_table("custody_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_custody_events_action"), ["action"], unique=False)

    op.create_table(
        "intake_failures",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("source_path", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("at", sa.String(length=32), nullable=False),
        sa.Column("entry_seq", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_intake_failures")),
    )
    op.create_table(
        "items",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("sha512", sa.String(length=128), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("media_type", sa.String(length=120), nullable=True),
        sa.Column("format", sa.String(length=40), nullable=True),
        sa.Column("parse_status", sa.String(length=16), nullable=False),
        sa.Column("parse_error", sa.Text(), nullable=True),
        sa.Column("parse_tool", sa.String(length=120), nullable=True),
        sa.Column("metadata", sa.JSON(), nullable=True),
        sa.Column("text_item_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("entry_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["text_item_id"], ["items.id"], name=op.f("fk_items_text_item_id_items")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_items")),
        sa.UniqueConstraint("sha256", name=op.f("uq_items_sha256")),
    )
    op.create_table(
        "log_state",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("tree_size", sa.Integer(), nullable=False),
        sa.Column("byte_length", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_log_state")),
    )
    op.create_table(
        "derivations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("derived_item_id", sa.Integer(), nullable=False),
        sa.Column("source_item_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("tool", sa.String(length=120), nullable=False),
        sa.Column("tool_version", sa.String(length=60), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("entry_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["derived_item_id"], ["items.id"], name=op.f("fk_derivations_derived_item_id_items")
        ),
        sa.ForeignKeyConstraint(
            ["source_item_id"], ["items.id"], name=op.f("fk_derivations_source_item_id_items")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_derivations")),
        sa.UniqueConstraint(
            "derived_item_id", "source_item_id", "kind", name=op.f("uq_derivations_derived_item_id")
        ),
    )
    with op.batch_alter_table("derivations", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_derivations_derived_item_id"), ["derived_item_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_derivations_source_item_id"), ["source_item_id"], unique=False
        )

    op.create_table(
        "origins",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("relation", sa.String(length=20), nullable=False),
        sa.Column("source_path", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("parent_item_id", sa.Integer(), nullable=True),
        sa.Column("source_mtime", sa.String(length=32), nullable=True),
        sa.Column("received_at", sa.String(length=32), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("collection", sa.JSON(), nullable=True),
        sa.Column("sidecar_item_id", sa.Integer(), nullable=True),
        sa.Column("entry_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"], name=op.f("fk_origins_item_id_items")),
        sa.ForeignKeyConstraint(
            ["parent_item_id"], ["items.id"], name=op.f("fk_origins_parent_item_id_items")
        ),
        sa.ForeignKeyConstraint(
            ["sidecar_item_id"], ["items.id"], name=op.f("fk_origins_sidecar_item_id_items")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_origins")),
    )
    with op.batch_alter_table("origins", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_origins_item_id"), ["item_id"], unique=False)
        batch_op.create_index("ix_origins_parent", ["parent_item_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("origins", schema=None) as batch_op:
        batch_op.drop_index("ix_origins_parent")
        batch_op.drop_index(batch_op.f("ix_origins_item_id"))

    op.drop_table("origins")
    with op.batch_alter_table("derivations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_derivations_source_item_id"))
        batch_op.drop_index(batch_op.f("ix_derivations_derived_item_id"))

    op.drop_table("derivations")
    op.drop_table("log_state")
    op.drop_table("items")
    op.drop_table("intake_failures")
    with op.batch_alter_table("custody_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_custody_events_action"))

    op.drop_table("custody_events")
    op.drop_table("checkpoints")
    op.drop_table("case_info")
