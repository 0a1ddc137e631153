"""The schema that alembic/versions/ migrates to, as the application
declares it: autogenerate compares the database with this after upgrade."""
import sqlalchemy as sa
from sqlalchemy.orm import declarative_base, relationship

Base = declarative_base()
metadata = Base.metadata

TaskState = sa.Enum("todo", "doing", "blocked", "done", name="task_state")

task_labels = sa.Table(
    "task_labels", metadata,
    sa.Column("task_id", sa.BigInteger, sa.ForeignKey("tasks.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("label_id", sa.Integer, sa.ForeignKey("labels.id"), primary_key=True),
)


class Project(Base):
    __tablename__ = "projects"
    id = sa.Column(sa.Integer, primary_key=True)
    slug = sa.Column(sa.String(40), nullable=False, unique=True)
    title = sa.Column(sa.String(200), nullable=False)
    budget = sa.Column(sa.Numeric(10, 2), nullable=False, server_default="0")
    created = sa.Column(sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()"))
    archived = sa.Column(sa.Boolean, nullable=False, server_default=sa.text("false"))
    tasks = relationship("Task", back_populates="project", order_by="Task.id")


class Task(Base):
    __tablename__ = "tasks"
    __table_args__ = (
        sa.Index("tasks_project_state", "project_id", "state"),
        sa.Index("tasks_open", "project_id", postgresql_where=sa.text("state <> 'done'")),
        sa.CheckConstraint("priority BETWEEN 1 AND 5", name="tasks_priority_range"),
    )
    id = sa.Column(sa.BigInteger, primary_key=True)
    project_id = sa.Column(sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False)
    title = sa.Column(sa.Text, nullable=False)
    state = sa.Column(TaskState, nullable=False, server_default="todo")
    priority = sa.Column(sa.SmallInteger, nullable=False, server_default=sa.text("2"))
    due = sa.Column(sa.Date)
    estimate = sa.Column(sa.Numeric(6, 2))
    notes = sa.Column(sa.Text)
    project = relationship("Project", back_populates="tasks")
    labels = relationship("Label", secondary=task_labels, order_by="Label.name")


class Label(Base):
    __tablename__ = "labels"
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(20), nullable=False, unique=True)
