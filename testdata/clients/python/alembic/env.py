"""Alembic's environment for alembic_orm.py: the migrations in versions/
run online, in one transaction, on the connection the program hands over
(or on one of their own, from libpq's environment). Offline (SQL script)
mode is not part of the matrix."""
import sqlalchemy as sa
from alembic import context

import models

if context.is_offline_mode():
    raise SystemExit("alembic_orm.py runs its migrations online only")

connection = context.config.attributes.get("connection")
if connection is None:
    connection = sa.create_engine("postgresql+psycopg2://", future=True).connect()
context.configure(connection=connection, target_metadata=models.metadata,
                  compare_type=True, compare_server_default=True, transaction_per_migration=False)
with context.begin_transaction():
    context.run_migrations()
