"""tasks, with an enum type and an index

Revision ID: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

task_state = sa.Enum("todo", "doing", "done", name="task_state")


def upgrade():
    op.create_table(
        "tasks",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("state", task_state, nullable=False, server_default="todo"),
        sa.Column("priority", sa.SmallInteger, nullable=False, server_default=sa.text("3")),
        sa.Column("due", sa.Date),
        sa.Column("estimate", sa.Numeric(6, 2)),
    )
    op.create_index("tasks_project_state", "tasks", ["project_id", "state"])


def downgrade():
    op.drop_index("tasks_project_state", table_name="tasks")
    op.drop_table("tasks")
    task_state.drop(op.get_bind())
