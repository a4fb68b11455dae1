"""The platform's first schema: meta (the pseudonym salt), students, consent events, encounters, turns, audit log.

Revision ID: 0001
Revises:
Create Date: 2026-05-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

UTC_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "meta",
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_meta"),
    )
    op.create_table(
        "students",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("first_seen_at", UTC_TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_students"),
    )
    op.create_table(
        "consent_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("student_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("version", sa.String(64), nullable=False),
        sa.Column("granted", sa.Boolean(), nullable=False),
        sa.Column("at", UTC_TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_consent_events"),
        sa.ForeignKeyConstraint(["student_id"], ["students.id"], name="fk_consent_events_student_id_students"),
        sa.CheckConstraint("kind IN ('research', 'privacy')", name="ck_consent_events_kind"),
    )
    op.create_index("ix_consent_events_student_id_kind", "consent_events", ["student_id", "kind"])
    op.create_table(
        "encounters",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("student_id", sa.String(64), nullable=False),
        sa.Column("case_id", sa.String(200), nullable=False),
        sa.Column("language", sa.String(16), nullable=False),
        sa.Column("model", sa.String(255), nullable=False),
        sa.Column("prompt_sha256", sa.String(64), nullable=False),
        sa.Column("started_at", UTC_TIME, nullable=False),
        sa.Column("ended_at", UTC_TIME, nullable=True),
        sa.Column("differential", sa.Text(), nullable=True),
        sa.Column("n_turns", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_encounters"),
        sa.ForeignKeyConstraint(["student_id"], ["students.id"], name="fk_encounters_student_id_students"),
    )
    op.create_index("ix_encounters_student_id", "encounters", ["student_id"])
    op.create_index("ix_encounters_started_at", "encounters", ["started_at"])
    op.create_index("ix_encounters_case_id", "encounters", ["case_id"])
    op.create_table(
        "turns",
        sa.Column("encounter_id", sa.String(64), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("failure", sa.Text(), nullable=True),
        sa.Column("latency_s", sa.Float(), nullable=False),
        sa.Column("asked_at", UTC_TIME, nullable=False),
        sa.PrimaryKeyConstraint("encounter_id", "n", name="pk_turns"),
        sa.ForeignKeyConstraint(["encounter_id"], ["encounters.id"], name="fk_turns_encounter_id_encounters",
                                ondelete="CASCADE"),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", UTC_TIME, nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("student_id", sa.String(64), nullable=True),
        sa.Column("encounters_deleted", sa.Integer(), nullable=False),
        sa.Column("turns_deleted", sa.Integer(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_audit_log"),
    )


def downgrade() -> None:
    op.drop_table("audit_log")
    op.drop_table("turns")
    op.drop_index("ix_encounters_case_id", table_name="encounters")
    op.drop_index("ix_encounters_started_at", table_name="encounters")
    op.drop_index("ix_encounters_student_id", table_name="encounters")
    op.drop_table("encounters")
    op.drop_index("ix_consent_events_student_id_kind", table_name="consent_events")
    op.drop_table("consent_events")
    op.drop_table("students")
    op.drop_table("meta")
