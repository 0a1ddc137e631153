"""budgets, longer titles, a lower default priority, a blocked state and an
index of the open tasks

Revision ID: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade():
    op.alter_column("projects", "title", type_=sa.String(200), existing_type=sa.Text, existing_nullable=False)
    op.add_column("projects", sa.Column("budget", sa.Numeric(10, 2), nullable=False, server_default="0"))
    op.alter_column("tasks", "priority", server_default=sa.text("2"), existing_type=sa.SmallInteger,
                    existing_nullable=False)
    op.execute("ALTER TYPE task_state ADD VALUE 'blocked' AFTER 'doing'")
    op.create_index("tasks_open", "tasks", ["project_id"], postgresql_where=sa.text("state <> 'done'"))


def downgrade():
    op.drop_index("tasks_open", table_name="tasks")
    # An enum value cannot be dropped: the type is made again without it.
    op.execute("UPDATE tasks SET state = 'doing' WHERE state = 'blocked'")
    op.execute("ALTER TYPE task_state RENAME TO task_state_old")
    op.execute("CREATE TYPE task_state AS ENUM ('todo', 'doing', 'done')")
    op.alter_column("tasks", "state", server_default=None)
    op.execute("ALTER TABLE tasks ALTER COLUMN state TYPE task_state USING state::text::task_state")
    op.alter_column("tasks", "state", server_default="todo")
    op.execute("DROP TYPE task_state_old")
    op.alter_column("tasks", "priority", server_default=sa.text("3"), existing_type=sa.SmallInteger,
                    existing_nullable=False)
    op.drop_column("projects", "budget")
    op.alter_column("projects", "title", type_=sa.Text, existing_type=sa.String(200), existing_nullable=False)
