"""projects

Revision ID: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade():
    op.create_table(
        "projects",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("slug", sa.String(40), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")),
        sa.Column("archived", sa.Boolean, nullable=False, server_default=sa.text("false")),
        sa.UniqueConstraint("slug", name="projects_slug_key"),
    )


def downgrade():
    op.drop_table("projects")
