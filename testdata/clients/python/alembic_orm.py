"""Alembic 1.8 on SQLAlchemy 1.4 (future=True): the migrations in
alembic/versions/ up and down, autogenerate's comparison of the migrated
database with the application's models, and the models' ORM on the
migrated schema. See internal/clienttest/orm_py_go_test.go.
"""
import datetime
import decimal
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "alembic"))

import sqlalchemy as sa  # noqa: E402
from alembic import command  # noqa: E402
from alembic.autogenerate import compare_metadata  # noqa: E402
from alembic.config import Config  # noqa: E402
from alembic.migration import MigrationContext  # noqa: E402
from sqlalchemy import exc, func, inspect, select  # noqa: E402
from sqlalchemy.orm import Session, selectinload  # noqa: E402

import models  # noqa: E402
from steps import eq, finish, raises, sqlstate, step  # noqa: E402

engine = sa.create_engine("postgresql+psycopg2://", future=True)
config = Config()
config.set_main_option("script_location", os.path.join(HERE, "alembic"))


def alembic(cmd, *args):
    """Runs an alembic command on a connection of engine's."""
    with engine.connect() as conn:
        config.attributes["connection"] = conn
        cmd(config, *args)


def current():
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def diffs():
    """What autogenerate would write: the models against the database, as
    (operation, name) pairs."""
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        found = compare_metadata(ctx, models.metadata)
    out = []
    for d in found:
        if isinstance(d, list):  # column modifications come as a list of them
            out.extend((m[0], m[2] + "." + m[3]) for m in d)
        elif d[0] in ("add_table", "remove_table"):
            out.append((d[0], d[1].name))
        elif d[0] in ("add_column", "remove_column"):
            out.append((d[0], d[2] + "." + d[3].name))
        elif d[0] in ("add_index", "remove_index", "add_constraint", "remove_constraint"):
            out.append((d[0], d[1].name))
        else:
            out.append((d[0], repr(d[1:])))
    return sorted(out)


session = Session(engine, future=True)


def rollback():
    session.rollback()


@step("upgrade to 0002", rollback)
def _():
    alembic(command.upgrade, "0002")
    eq(current(), "0002", "revision")
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO projects (slug, title) VALUES ('old', 'Before labels')"))
        conn.execute(sa.text("INSERT INTO tasks (project_id, title) SELECT id, 'legacy' FROM projects"))
        eq(conn.execute(sa.text("SELECT state::text, priority FROM tasks")).one(), ("todo", 3), "server defaults")


@step("upgrade head", rollback)
def _():
    alembic(command.upgrade, "head")
    eq(current(), "0004", "revision")
    eq([(e["name"], e["labels"]) for e in inspect(engine).get_enums()],
       [("task_state", ["todo", "doing", "done", "blocked"])], "enum with the added value (in pg_enum oid order)")
    with engine.connect() as conn:
        eq(conn.execute(sa.text("SELECT notes FROM tasks")).scalars().all(), ["before 0003"], "data migration")
        eq(conn.execute(sa.text("SELECT name FROM labels ORDER BY id")).scalars().all(),
           ["bug", "feature", "chore"], "bulk_insert")
        eq(conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all(), ["0004"],
           "alembic_version")


@step("autogenerate finds no differences after upgrade", rollback)
def _():
    eq(diffs(), [], "autogenerate diffs")


@step("ORM on the migrated schema", rollback)
def _():
    bug, feature, chore = session.scalars(select(models.Label).order_by(models.Label.id)).all()
    web = models.Project(slug="web", title="Web site")
    web.tasks = [
        models.Task(title="login page", state="doing", priority=1, due=datetime.date(2024, 3, 1),
                    estimate=decimal.Decimal("3.5"), labels=[feature]),
        models.Task(title="fix 500 on save", state="todo", priority=2, labels=[bug]),
        models.Task(title="upgrade deps", state="done", priority=5, labels=[chore, bug]),
    ]
    api = models.Project(slug="api", title="API", archived=True, budget=decimal.Decimal("1200.50"))
    api.tasks = [models.Task(title="rate limits", priority=4, estimate=decimal.Decimal("8"), labels=[feature]),
                 models.Task(title="wait for design", state="blocked")]
    session.add_all([web, api])
    session.commit()
    eq(session.scalar(select(func.count()).select_from(models.task_labels)), 5, "association rows")
    session.expunge_all()
    projects = session.scalars(select(models.Project).options(
        selectinload(models.Project.tasks).selectinload(models.Task.labels)).order_by(models.Project.slug)).all()
    eq([(p.slug, [(t.title, [lb.name for lb in t.labels]) for t in p.tasks]) for p in projects],
       [("api", [("rate limits", ["feature"]), ("wait for design", [])]),
        ("old", [("legacy", [])]),
        ("web", [("login page", ["feature"]), ("fix 500 on save", ["bug"]), ("upgrade deps", ["bug", "chore"])])],
       "projects, tasks and labels")
    eq((projects[1].archived, projects[1].budget, projects[0].tasks[1].priority),
       (False, decimal.Decimal("0.00"), 2), "server defaults")
    T, L = models.Task, models.Label
    eq(session.scalars(select(T.title).where(T.state != "done", T.priority <= 2).order_by(T.priority, T.id)).all(),
       ["login page", "fix 500 on save", "wait for design"], "filter on the enum and smallint")
    eq(session.scalars(select(T.title).join(T.labels).where(L.name == "bug").order_by(T.title.desc())).all(),
       ["upgrade deps", "fix 500 on save"], "many-to-many join")
    eq(session.scalars(select(T.title).order_by(T.estimate.desc().nulls_last(), T.id).limit(2).offset(1)).all(),
       ["login page", "legacy"], "ordered page")
    eq(session.execute(select(T.state, func.count()).group_by(T.state).order_by(T.state)).all(),
       [("todo", 3), ("doing", 1), ("blocked", 1), ("done", 1)], "group by an enum, in label order")
    eq(session.scalars(select(T.title).where(T.state != "done", T.project_id == projects[0].id).order_by(T.id)).all(),
       ["rate limits", "wait for design"], "the open tasks, as the partial index has them")


@step("rollback", rollback)
def _():
    session.add(models.Label(name="temp"))
    session.flush()
    eq(session.scalar(select(func.count()).select_from(models.Label)), 4, "in the transaction")
    session.rollback()
    eq(session.scalar(select(func.count()).select_from(models.Label)), 3, "after rollback")


@step("integrity errors", rollback)
def _():
    session.add(models.Label(name="bug"))
    e = raises(exc.IntegrityError, session.flush, "duplicate label")
    eq(sqlstate(e), "23505", "unique SQLSTATE")
    session.rollback()
    task = session.scalars(select(models.Task).where(models.Task.title == "legacy")).one()
    task.priority = 9
    e = raises(exc.IntegrityError, session.commit, "priority out of range")
    eq((sqlstate(e), e.orig.diag.constraint_name), ("23514", "tasks_priority_range"), "check violation")
    session.rollback()


@step("downgrade -1", rollback)
def _():
    session.close()
    alembic(command.downgrade, "-1")
    eq(current(), "0003", "revision")
    insp = inspect(engine)
    eq([(e["name"], e["labels"]) for e in insp.get_enums()], [("task_state", ["todo", "doing", "done"])],
       "the enum made again without its added value")
    with engine.connect() as conn:
        eq(conn.execute(sa.text("SELECT state::text FROM tasks WHERE title = 'wait for design'")).scalar_one(),
           "doing", "a blocked task after the downgrade")
    eq("budget" in [c["name"] for c in insp.get_columns("projects")], False, "budget dropped")
    eq(diffs(), [("add_column", "projects.budget"), ("add_index", "tasks_open"),
                 ("modify_default", "tasks.priority"), ("modify_type", "projects.title")],
       "what autogenerate would change back")


@step("downgrade -1 again", rollback)
def _():
    alembic(command.downgrade, "-1")
    eq(current(), "0002", "revision")
    insp = inspect(engine)
    eq(sorted(insp.get_table_names()), ["alembic_version", "projects", "tasks"], "tables")
    eq("notes" in [c["name"] for c in insp.get_columns("tasks")], False, "notes dropped")
    eq(diffs(), [("add_column", "projects.budget"), ("add_column", "tasks.notes"), ("add_index", "tasks_open"),
                 ("add_table", "labels"), ("add_table", "task_labels"), ("modify_default", "tasks.priority"),
                 ("modify_type", "projects.title")], "what autogenerate would add back")


@step("upgrade head again, then downgrade base", rollback)
def _():
    alembic(command.upgrade, "head")
    eq((current(), diffs()), ("0004", []), "at head again")
    alembic(command.downgrade, "base")
    eq(current(), None, "revision at base")
    insp = inspect(engine)
    eq((insp.get_table_names(), insp.get_enums()), (["alembic_version"], []), "at base")


finish()
