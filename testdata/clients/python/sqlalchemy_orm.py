"""SQLAlchemy 1.4 in its 2.0 style (future=True) on psycopg2: the schema by
metadata.create_all, the ORM's unit of work and relationship loading, Core
statements, and reflection (inspect() and MetaData.reflect) of what
create_all made. See internal/clienttest/orm_py_go_test.go.
"""
import datetime
import decimal

import sqlalchemy as sa
from sqlalchemy import exc, func, inspect, select
from sqlalchemy.dialects import postgresql as pg
from sqlalchemy.orm import Session, declarative_base, joinedload, relationship, selectinload

from steps import eq, finish, raises, sqlstate, step

# An empty URL: psycopg2 (libpq) reads PGHOST, PGPORT, ... itself.
engine = sa.create_engine("postgresql+psycopg2://", future=True)
Base = declarative_base()
UTC = datetime.timezone.utc

Genre = sa.Enum("fiction", "science", "poetry", name="genre")


class Author(Base):
    __tablename__ = "authors"
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(100), nullable=False, unique=True)
    born = sa.Column(sa.Date)
    joined = sa.Column(sa.DateTime(timezone=True), nullable=False, server_default=func.now())
    books = relationship("Book", back_populates="author", order_by="Book.id",
                         cascade="all, delete-orphan")


class Book(Base):
    __tablename__ = "books"
    __table_args__ = (
        sa.CheckConstraint("price >= 0", name="books_price_nonnegative"),
        sa.Index("books_author_title", "author_id", "title"),
    )
    id = sa.Column(sa.BigInteger, primary_key=True)
    author_id = sa.Column(sa.Integer, sa.ForeignKey("authors.id", ondelete="CASCADE"), nullable=False)
    title = sa.Column(sa.Text, nullable=False)
    genre = sa.Column(Genre, nullable=False, server_default="fiction")
    price = sa.Column(sa.Numeric(10, 2), nullable=False)
    in_print = sa.Column(sa.Boolean, nullable=False, server_default=sa.true())
    # A non-native enum: a VARCHAR with a CHECK of its values.
    format = sa.Column(sa.Enum("paper", "ebook", name="book_format", native_enum=False, create_constraint=True),
                       nullable=False, server_default="paper")
    extra = sa.Column(pg.JSONB)
    tags = sa.Column(pg.ARRAY(sa.Text))
    author = relationship("Author", back_populates="books")


def rollback():
    session.rollback()


session = Session(engine, future=True)

BOOKS = [
    ("Ursula", datetime.date(1929, 10, 21), [
        ("The Dispossessed", "fiction", "12.50", {"awards": ["Hugo", "Nebula"]}, ["utopia", "physics"]),
        ("A Wizard of Earthsea", "fiction", "9.99", None, ["magic"]),
    ]),
    ("Carl", datetime.date(1934, 11, 9), [
        ("Cosmos", "science", "15.00", {"pages": 365}, ["space"]),
        ("Pale Blue Dot", "science", "14.25", None, []),
        ("Contact", "fiction", "8.75", None, None),
    ]),
    ("Wisława", datetime.date(1923, 7, 2), [
        ("View with a Grain of Sand", "poetry", "11.00", None, ["nobel"]),
    ]),
    ("Nobody", None, []),
]


@step("create_all", rollback)
def _():
    Base.metadata.create_all(engine)
    # A second create_all finds every table and type and creates nothing.
    Base.metadata.create_all(engine)
    eq(sorted(inspect(engine).get_table_names()), ["authors", "books"], "tables")


@step("insert through the unit of work", rollback)
def _():
    for name, born, books in BOOKS:
        author = Author(name=name, born=born)
        for title, genre, price, extra, tags in books:
            author.books.append(Book(title=title, genre=genre, price=decimal.Decimal(price),
                                     extra=extra, tags=tags))
        session.add(author)
    session.commit()
    authors = session.scalars(select(Author).order_by(Author.id)).all()
    eq([a.name for a in authors], [b[0] for b in BOOKS], "authors in id order")
    eq(len({a.id for a in authors}), 4, "distinct serial ids")
    now = session.scalar(select(func.now()))
    for a in authors:
        if a.joined.tzinfo is None or abs(now - a.joined) > datetime.timedelta(minutes=5):
            raise AssertionError("server default joined = %r, now() = %r" % (a.joined, now))
    eq(session.scalar(select(func.count()).select_from(Book)), 6, "books")


@step("read back types", rollback)
def _():
    book = session.scalars(select(Book).where(Book.title == "The Dispossessed")).one()
    eq((book.genre, book.price, book.in_print, book.extra, book.tags),
       ("fiction", decimal.Decimal("12.50"), True, {"awards": ["Hugo", "Nebula"]}, ["utopia", "physics"]),
       "The Dispossessed")
    eq(book.author.born, datetime.date(1929, 10, 21), "lazy-loaded author's born")
    empty = session.scalars(select(Book).where(Book.title == "Pale Blue Dot")).one()
    eq((empty.tags, empty.extra), ([], None), "empty array and NULL jsonb")


@step("filters", rollback)
def _():
    def titles(*where):
        return session.scalars(select(Book.title).where(*where).order_by(Book.title)).all()
    eq(titles(Book.price > 12), ["Cosmos", "Pale Blue Dot", "The Dispossessed"], "price > 12")
    eq(titles(Book.price.between(9, 11)), ["A Wizard of Earthsea", "View with a Grain of Sand"], "between")
    eq(titles(Book.title.ilike("%the%")), ["The Dispossessed"], "ilike")
    eq(titles(Book.genre.in_(["poetry", "science"]), ~Book.title.startswith("Pale")),
       ["Cosmos", "View with a Grain of Sand"], "in_ and not startswith")
    eq(titles(Book.tags.contains(["magic"])), ["A Wizard of Earthsea"], "array @>")
    eq(titles(Book.tags.any("space")), ["Cosmos"], "= ANY(array)")
    eq(titles(Book.extra["pages"].astext.cast(sa.Integer) > 300), ["Cosmos"], "jsonb ->>")
    eq(titles(Book.extra.has_key("awards")), ["The Dispossessed"], "jsonb ?")
    eq(titles(Book.tags.is_(None)), ["Contact"], "IS NULL")
    eq(titles(sa.or_(Book.title == "Contact", sa.and_(Book.genre == "poetry", Book.in_print))),
       ["Contact", "View with a Grain of Sand"], "or_ and and_")


@step("joins, grouping and subqueries", rollback)
def _():
    rows = session.execute(
        select(Author.name, func.count(Book.id).label("n"), func.coalesce(func.sum(Book.price), 0))
        .outerjoin(Author.books).group_by(Author.id).order_by(sa.desc("n"), Author.name)).all()
    eq([tuple(r) for r in rows], [("Carl", 3, decimal.Decimal("38.00")), ("Ursula", 2, decimal.Decimal("22.49")),
                                  ("Wisława", 1, decimal.Decimal("11.00")), ("Nobody", 0, 0)], "outer join, group by")
    rows = session.execute(select(Author.name).join(Book).group_by(Author.name)
                           .having(func.max(Book.price) > 12).order_by(Author.name)).scalars().all()
    eq(rows, ["Carl", "Ursula"], "having")
    cheapest = select(func.min(Book.price)).where(Book.author_id == Author.id).scalar_subquery()
    rows = session.execute(select(Author.name, cheapest.label("cheapest"))
                           .where(sa.exists().where(Book.author_id == Author.id)).order_by(Author.name)).all()
    eq([tuple(r) for r in rows], [("Carl", decimal.Decimal("8.75")), ("Ursula", decimal.Decimal("9.99")),
                                  ("Wisława", decimal.Decimal("11.00"))], "correlated subquery and exists")
    ranked = select(Book.title, func.rank().over(partition_by=Book.author_id, order_by=Book.price.desc())
                    .label("r")).subquery()
    eq(session.scalars(select(ranked.c.title).where(ranked.c.r == 1).order_by(ranked.c.title)).all(),
       ["Cosmos", "The Dispossessed", "View with a Grain of Sand"], "window function in a subquery")


@step("ordering and pagination", rollback)
def _():
    page = select(Book.title).order_by(Book.price.desc(), Book.id)
    pages = [session.scalars(page.limit(2).offset(off)).all() for off in (0, 2, 4, 6)]
    eq(pages, [["Cosmos", "Pale Blue Dot"], ["The Dispossessed", "View with a Grain of Sand"],
               ["A Wizard of Earthsea", "Contact"], []], "pages of two")
    eq(session.scalars(select(Author.name).order_by(Author.born.desc().nulls_last())).all(),
       ["Carl", "Ursula", "Wisława", "Nobody"], "nulls_last")
    eq(session.scalars(select(Author.name).order_by(Author.born.asc().nulls_first()).limit(1)).all(),
       ["Nobody"], "nulls_first")


@step("relationship loading", rollback)
def _():
    session.expunge_all()
    authors = session.scalars(select(Author).options(selectinload(Author.books))
                              .order_by(Author.name)).all()
    eq({a.name: [b.title for b in a.books] for a in authors},
       {"Carl": ["Cosmos", "Pale Blue Dot", "Contact"], "Nobody": [],
        "Ursula": ["The Dispossessed", "A Wizard of Earthsea"], "Wisława": ["View with a Grain of Sand"]},
       "selectinload")
    session.expunge_all()
    books = session.scalars(select(Book).options(joinedload(Book.author)).where(Book.genre == "science")
                            .order_by(Book.id)).all()
    eq([(b.title, b.author.name) for b in books], [("Cosmos", "Carl"), ("Pale Blue Dot", "Carl")], "joinedload")


@step("update and delete", rollback)
def _():
    book = session.scalars(select(Book).where(Book.title == "Contact")).one()
    book.price = decimal.Decimal("9.50")
    book.in_print = False
    session.commit()
    eq(session.execute(select(Book.price, Book.in_print).where(Book.id == book.id)).one(),
       (decimal.Decimal("9.50"), False), "dirty attributes flushed")
    result = session.execute(sa.update(Book).where(Book.genre == "science")
                             .values(price=Book.price + 1).execution_options(synchronize_session="fetch"))
    eq(result.rowcount, 2, "bulk update rowcount")
    session.commit()
    eq(session.scalars(select(Book.price).where(Book.genre == "science").order_by(Book.id)).all(),
       [decimal.Decimal("16.00"), decimal.Decimal("15.25")], "bulk update")
    nobody = session.scalars(select(Author).where(Author.name == "Nobody")).one()
    session.delete(nobody)
    session.commit()
    eq(session.scalar(select(func.count()).select_from(Author)), 3, "authors after delete")


@step("rollback and savepoint", rollback)
def _():
    carl = session.scalars(select(Author).where(Author.name == "Carl")).one()
    carl.books.append(Book(title="Broca's Brain", genre="science", price=decimal.Decimal("7")))
    session.flush()
    eq(session.scalar(select(func.count()).select_from(Book)), 7, "flushed, in the transaction")
    session.rollback()
    eq(session.scalar(select(func.count()).select_from(Book)), 6, "after rollback")
    with session.begin_nested():
        session.add(Author(name="Kept"))
    savepoint = session.begin_nested()
    session.add(Author(name="Dropped"))
    session.flush()
    savepoint.rollback()
    session.commit()
    eq(session.scalars(select(Author.name).where(Author.name.in_(["Kept", "Dropped"]))).all(), ["Kept"],
       "released and rolled-back savepoints")


@step("unique violation is an IntegrityError", rollback)
def _():
    session.add(Author(name="Carl"))
    e = raises(exc.IntegrityError, session.commit, "duplicate author")
    eq(sqlstate(e), "23505", "SQLSTATE")
    eq(getattr(e.orig.diag, "constraint_name", None), "authors_name_key", "constraint")
    session.rollback()
    e = raises(exc.IntegrityError, lambda: session.execute(sa.insert(Book).values(
        author_id=1, title="x", price=-1)), "check violation")
    eq(sqlstate(e), "23514", "check SQLSTATE")
    session.rollback()
    e = raises(exc.IntegrityError, lambda: session.execute(sa.insert(Book).values(
        author_id=999, title="x", price=1)), "foreign key violation")
    eq(sqlstate(e), "23503", "foreign key SQLSTATE")
    session.rollback()
    eq(session.scalar(select(func.count()).select_from(Author)), 4, "usable after the errors")


@step("core statements", rollback)
def _():
    books = Book.__table__
    with engine.begin() as conn:
        ursula = conn.scalar(select(Author.id).where(Author.name == "Ursula"))
        rows = conn.execute(sa.insert(books).returning(books.c.id, books.c.genre),
                            [{"author_id": ursula, "title": t, "price": p} for t, p in
                             [("The Lathe of Heaven", 6), ("The Word for World Is Forest", 5)]]).all()
        eq([r.genre for r in rows], ["fiction", "fiction"], "executemany RETURNING server default")
        got = conn.execute(sa.text("SELECT title FROM books WHERE author_id = :a AND price < :p ORDER BY title"),
                           {"a": ursula, "p": 7}).scalars().all()
        eq(got, ["The Lathe of Heaven", "The Word for World Is Forest"], "text() with bound parameters")
        upserted = conn.execute(pg.insert(Author.__table__).values(name="Ursula", born=None)
                                .on_conflict_do_update(index_elements=["name"],
                                                       set_={"born": datetime.date(1929, 10, 22)})
                                .returning(Author.born)).scalar_one()
        eq(upserted, datetime.date(1929, 10, 22), "on_conflict_do_update")
    with engine.connect() as conn:
        # stream_results: psycopg2's named (server-side) cursor, in the
        # transaction the connection began.
        result = conn.execution_options(stream_results=True, max_row_buffer=2).execute(
            select(books.c.title).order_by(books.c.id))
        eq(len(list(result.scalars())), 8, "streamed rows")
        conn.rollback()


@step("inspect()", rollback)
def _():
    insp = inspect(engine)
    cols = {c["name"]: c for c in insp.get_columns("books")}
    eq(list(cols), ["id", "author_id", "title", "genre", "price", "in_print", "format", "extra", "tags"], "columns")
    eq([type(cols[n]["type"]).__name__ for n in cols],
       ["BIGINT", "INTEGER", "TEXT", "ENUM", "NUMERIC", "BOOLEAN", "VARCHAR", "JSONB", "ARRAY"], "column types")
    eq(cols["format"]["type"].length, 5, "the non-native enum's varchar length")
    eq((cols["price"]["type"].precision, cols["price"]["type"].scale), (10, 2), "numeric(10,2)")
    eq(cols["genre"]["type"].enums, ["fiction", "science", "poetry"], "enum labels")
    eq([n for n, c in cols.items() if c["nullable"]], ["extra", "tags"], "nullable columns")
    eq(cols["genre"]["default"], "'fiction'::genre", "enum default")
    eq(cols["in_print"]["default"], "true", "bool default")
    eq(cols["id"]["autoincrement"], True, "bigserial is autoincrement")
    eq(insp.get_pk_constraint("books"), {"constrained_columns": ["id"], "name": "books_pkey"}, "primary key")
    fks = insp.get_foreign_keys("books")
    eq([(f["name"], f["constrained_columns"], f["referred_table"], f["referred_columns"], f["options"])
        for f in fks], [("books_author_id_fkey", ["author_id"], "authors", ["id"], {"ondelete": "CASCADE"})],
       "foreign keys")
    eq([(i["name"], i["column_names"], i["unique"]) for i in insp.get_indexes("books")],
       [("books_author_title", ["author_id", "title"], False)], "indexes")
    eq(insp.get_unique_constraints("authors"), [{"column_names": ["name"], "name": "authors_name_key"}],
       "unique constraints")
    eq(sorted(insp.get_check_constraints("books"), key=lambda c: c["name"]), [
        {"name": "book_format", "sqltext": "(format)::text = ANY ((ARRAY['paper'::character varying, "
                                           "'ebook'::character varying])::text[])"},
        {"name": "books_price_nonnegative", "sqltext": "price >= (0)::numeric"}], "check constraints")
    eq([(e["name"], e["labels"]) for e in insp.get_enums()], [("genre", ["fiction", "science", "poetry"])], "enums")
    eq(insp.get_view_names(), [], "views")


@step("MetaData.reflect", rollback)
def _():
    reflected = sa.MetaData()
    reflected.reflect(bind=engine)
    eq(sorted(reflected.tables), ["authors", "books"], "reflected tables")
    books, authors = reflected.tables["books"], reflected.tables["authors"]
    for table in (books, authors):
        declared = Base.metadata.tables[table.name]
        eq([c.name for c in table.columns], [c.name for c in declared.columns], table.name + " columns")
    eq([fk.target_fullname for fk in books.foreign_keys], ["authors.id"], "reflected foreign key")
    # The reflected tables work in statements of their own.
    with engine.connect() as conn:
        rows = conn.execute(select(authors.c.name, func.count(books.c.id)).select_from(authors.join(books))
                            .group_by(authors.c.name).order_by(authors.c.name)).all()
        eq([tuple(r) for r in rows], [("Carl", 3), ("Ursula", 4), ("Wisława", 1)], "join on reflected tables")


@step("drop_all", rollback)
def _():
    session.close()
    Base.metadata.drop_all(engine)
    insp = inspect(engine)
    eq((insp.get_table_names(), insp.get_enums()), ([], []), "tables and enums after drop_all")


finish()
