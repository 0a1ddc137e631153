"""labels, notes and a priority check, with the rows they start with

Revision ID: 0003
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade():
    op.add_column("tasks", sa.Column("notes", sa.Text))
    op.create_check_constraint("tasks_priority_range", "tasks", "priority BETWEEN 1 AND 5")
    labels = op.create_table(
        "labels",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(20), nullable=False, unique=True),
    )
    op.create_table(
        "task_labels",
        sa.Column("task_id", sa.BigInteger, sa.ForeignKey("tasks.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("label_id", sa.Integer, sa.ForeignKey("labels.id"), primary_key=True),
    )
    op.bulk_insert(labels, [{"name": "bug"}, {"name": "feature"}, {"name": "chore"}])
    # Existing tasks get a note saying where they came from.
    op.execute("UPDATE tasks SET notes = 'before 0003'")


def downgrade():
    op.drop_table("task_labels")
    op.drop_table("labels")
    op.drop_constraint("tasks_priority_range", "tasks", type_="check")
    op.drop_column("tasks", "notes")
