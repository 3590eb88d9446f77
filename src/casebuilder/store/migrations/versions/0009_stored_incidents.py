"""Incidents kept between commands: merge entries and blocks, incidents, members, state

Revision ID: 0009_stored_incidents
Revises: 0008_dataset_rows
Create Date: 2026-12-02 16:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_stored_incidents"
down_revision = "0008_dataset_rows"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "merge_entries",
        sa.Column("key", sa.String(length=40), nullable=False),
        sa.Column("mention_id", sa.Integer(), nullable=True),
        sa.Column("part", sa.String(length=40), nullable=False),
        sa.Column("candidate", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_merge_entries")),
    )
    with op.batch_alter_table("merge_entries", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_merge_entries_mention_id"), ["mention_id"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_merge_entries_part"), ["part"], unique=False)
    op.create_table(
        "merge_blocks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key", sa.String(length=40), nullable=False),
        sa.Column("area", sa.String(length=220), nullable=False),
        sa.Column("chunk", sa.Integer(), nullable=False),
        sa.Column("situation", sa.Boolean(), nullable=False),
        sa.Column("broad", sa.Boolean(), nullable=False),
        sa.Column("admin1", sa.String(length=200), nullable=False),
        sa.Column("row_lo", sa.Integer(), nullable=True),
        sa.Column("row_hi", sa.Integer(), nullable=True),
        sa.Column("col_lo", sa.Integer(), nullable=True),
        sa.Column("col_hi", sa.Integer(), nullable=True),
        sa.Column("bucket_lo", sa.Integer(), nullable=False),
        sa.Column("bucket_hi", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_merge_blocks")),
    )
    with op.batch_alter_table("merge_blocks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_merge_blocks_key"), ["key"], unique=False)
        batch_op.create_index("ix_merge_blocks_situation_area_chunk",
                              ["situation", "area", "chunk"], unique=False)
    op.create_table(
        "stored_incidents",
        sa.Column("id", sa.String(length=60), nullable=False),
        sa.Column("part", sa.String(length=40), nullable=False),
        sa.Column("first_report", sa.String(length=80), nullable=False),
        sa.Column("date_from", sa.String(length=10), nullable=True),
        sa.Column("date_to", sa.String(length=10), nullable=True),
        sa.Column("place", sa.Text(), nullable=False),
        sa.Column("categories", sa.Text(), nullable=False),
        sa.Column("grade", sa.String(length=20), nullable=False),
        sa.Column("reasons", sa.JSON(), nullable=False),
        sa.Column("decisions", sa.JSON(), nullable=False),
        sa.Column("overrides", sa.JSON(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("line", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stored_incidents")),
    )
    with op.batch_alter_table("stored_incidents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_stored_incidents_date_from"), ["date_from"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_stored_incidents_first_report"), ["first_report"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_stored_incidents_grade"), ["grade"], unique=False)
        batch_op.create_index(batch_op.f("ix_stored_incidents_part"), ["part"], unique=False)
    op.create_table(
        "incident_members",
        sa.Column("key", sa.String(length=40), nullable=False),
        sa.Column("incident_id", sa.String(length=60), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_incident_members")),
    )
    with op.batch_alter_table("incident_members", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_incident_members_incident_id"), ["incident_id"],
                              unique=False)
    op.create_table(
        "incident_state",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.Column("last_run", sa.Integer(), nullable=False),
        sa.Column("decisions", sa.Integer(), nullable=False),
        sa.Column("last_decision", sa.Integer(), nullable=False),
        sa.Column("rules", sa.String(length=64), nullable=False),
        sa.Column("exact_anchors", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_incident_state")),
    )


def downgrade() -> None:
    op.drop_table("incident_state")
    with op.batch_alter_table("incident_members", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_incident_members_incident_id"))
    op.drop_table("incident_members")
    with op.batch_alter_table("stored_incidents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_stored_incidents_part"))
        batch_op.drop_index(batch_op.f("ix_stored_incidents_grade"))
        batch_op.drop_index(batch_op.f("ix_stored_incidents_first_report"))
        batch_op.drop_index(batch_op.f("ix_stored_incidents_date_from"))
    op.drop_table("stored_incidents")
    with op.batch_alter_table("merge_blocks", schema=None) as batch_op:
        batch_op.drop_index("ix_merge_blocks_situation_area_chunk")
        batch_op.drop_index(batch_op.f("ix_merge_blocks_key"))
    op.drop_table("merge_blocks")
    with op.batch_alter_table("merge_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_merge_entries_part"))
        batch_op.drop_index(batch_op.f("ix_merge_entries_mention_id"))
    op.drop_table("merge_entries")
