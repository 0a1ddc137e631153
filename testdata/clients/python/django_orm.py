"""Django 3.2 on psycopg2: migrate of Django's contrib apps and the library
app (django/library), the ORM's queries, transactions and integrity errors,
a migration back and forth with its data migration, the introspection
inspectdb reads, and QuerySet.iterator() outside a transaction, which reads
through a WITH HOLD cursor. See internal/clienttest/orm_py_go_test.go.
"""
import datetime
import decimal
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "django"))
os.environ["DJANGO_SETTINGS_MODULE"] = "settings"

import django  # noqa: E402

django.setup()

from django.contrib.auth import authenticate  # noqa: E402
from django.contrib.auth.models import Group, Permission, User  # noqa: E402
from django.contrib.contenttypes.models import ContentType  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.paginator import Paginator  # noqa: E402
from django.db import IntegrityError, connection, transaction  # noqa: E402
from django.db.models import Avg, Count, Exists, F, Max, OuterRef, Q, Subquery, Sum  # noqa: E402
from django.db.models.functions import ExtractYear, Lower  # noqa: E402

from library.models import Author, Book, Publisher  # noqa: E402
from steps import eq, finish, raises, step  # noqa: E402

D = decimal.Decimal


def columns(table):
    with connection.cursor() as cur:
        return [c.name for c in connection.introspection.get_table_description(cur, table)]


@step("migrate")
def _():
    call_command("migrate", verbosity=0)
    with connection.cursor() as cur:
        cur.execute("SELECT app, count(*) FROM django_migrations GROUP BY app ORDER BY app")
        applied = dict(cur.fetchall())
    eq(sorted(applied), ["admin", "auth", "contenttypes", "library", "sessions"], "apps migrated")
    eq(applied["library"], 3, "library migrations")
    if applied["auth"] < 12:
        raise AssertionError("only %d auth migrations applied" % applied["auth"])
    # Nothing is left to migrate, and the models match the migrations.
    out = io.StringIO()
    call_command("migrate", "--plan", stdout=out)
    eq(out.getvalue().strip(), "Planned operations:\n  No planned migration operations.", "migrate --plan")
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


@step("contrib apps")
def _():
    # post_migrate made the content types and the permissions.
    eq(ContentType.objects.get_by_natural_key("library", "book").model_class(), Book, "content type")
    eq(sorted(Permission.objects.filter(content_type__app_label="library", content_type__model="book")
              .values_list("codename", flat=True)),
       ["add_book", "change_book", "delete_book", "view_book"], "permissions")
    admin = User.objects.create_superuser("admin", "admin@example.com", "s3cret pass")
    editors = Group.objects.create(name="editors")
    editors.permissions.add(*Permission.objects.filter(codename__in=["add_book", "change_book"]))
    clerk = User.objects.create_user("clerk", password="other pass")
    clerk.groups.add(editors)
    eq(authenticate(username="admin", password="s3cret pass"), admin, "authenticate")
    eq(authenticate(username="admin", password="wrong"), None, "wrong password")
    clerk = User.objects.get(pk=clerk.pk)  # permissions are cached per instance
    eq((clerk.has_perm("library.change_book"), clerk.has_perm("library.delete_book")), (True, False),
       "group permissions")
    session = SessionStore()
    session["cart"] = [1, 2, 3]
    session.create()
    eq(SessionStore(session_key=session.session_key)["cart"], [1, 2, 3], "session read back")


PUBLISHERS = [("Gollancz", "GB"), ("Penguin", "GB"), ("Tor", "US")]
AUTHORS = [("Ursula", "ursula@example.com", datetime.date(1929, 10, 21)),
           ("Iain", "iain@example.com", datetime.date(1954, 2, 16)),
           ("Anon", "anon@example.com", None)]
# title, publisher, authors, price, pages, published, format, details
BOOKS = [
    ("The Dispossessed", "Gollancz", ["Ursula"], "12.50", 387, (1974, 5, 1), "paper", {"awards": ["Hugo"], "series": None}),
    ("The Lathe of Heaven", "Gollancz", ["Ursula"], "9.00", 184, (1971, 3, 1), "ebook", {}),
    ("Consider Phlebas", "Tor", ["Iain"], "10.99", 471, (1987, 4, 23), "paper", {"series": "Culture"}),
    ("Excession", "Tor", ["Iain"], "11.49", 451, (1996, 8, 1), "ebook", {"series": "Culture"}),
    ("Collected Stories", "Penguin", ["Ursula", "Iain", "Anon"], "25.00", 912, (2001, 1, 1), "paper", {"awards": []}),
]


@step("create")
def _():
    pubs = Publisher.objects.bulk_create([Publisher(name=n, country_code=c) for n, c in PUBLISHERS])
    eq([p.pk is not None for p in pubs], [True] * 3, "bulk_create returns primary keys")
    authors = {a.name: a for a in Author.objects.bulk_create([Author(name=n, email=e, born=b) for n, e, b in AUTHORS])}
    by_name = {p.name: p for p in pubs}
    for title, pub, names, price, pages, published, fmt, details in BOOKS:
        book = Book.objects.create(title=title, publisher=by_name[pub], price=D(price), pages=pages,
                                   published=datetime.date(*published), format=fmt, details=details)
        book.authors.set([authors[n] for n in names])
    eq(Book.objects.count(), 5, "books")
    pub, created = Publisher.objects.get_or_create(name="Tor", defaults={"country_code": "XX"})
    eq((pub.country_code, pub.founded, created), ("US", 1900, False), "get_or_create finds")
    pub, created = Publisher.objects.update_or_create(name="Orbit", defaults={"country_code": "US"})
    eq(created, True, "update_or_create creates")
    book = Book.objects.get(title="The Dispossessed")
    eq((book.price, book.in_stock, book.details, book.published, type(book.code).__name__),
       (D("12.50"), True, {"awards": ["Hugo"], "series": None}, datetime.date(1974, 5, 1), "UUID"), "read back")
    if abs(datetime.datetime.now(datetime.timezone.utc) - book.added) > datetime.timedelta(minutes=5):
        raise AssertionError("auto_now_add: %r" % book.added)


def titles(qs):
    return list(qs.order_by("title").values_list("title", flat=True))


@step("filters")
def _():
    eq(titles(Book.objects.filter(price__lt=11, format="paper")), ["Consider Phlebas"], "lt and exact")
    eq(titles(Book.objects.filter(Q(pages__gt=450) | Q(published__year__lt=1972))),
       ["Collected Stories", "Consider Phlebas", "Excession", "The Lathe of Heaven"], "Q or, __year")
    eq(titles(Book.objects.filter(title__icontains="THE ").exclude(format="ebook")), ["The Dispossessed"],
       "icontains and exclude")
    eq(titles(Book.objects.filter(published__range=(datetime.date(1980, 1, 1), datetime.date(1999, 12, 31)))),
       ["Consider Phlebas", "Excession"], "range")
    eq(titles(Book.objects.filter(details__series="Culture")), ["Consider Phlebas", "Excession"], "JSON key")
    eq(titles(Book.objects.filter(details__has_key="awards")), ["Collected Stories", "The Dispossessed"],
       "JSON has_key")
    eq(titles(Book.objects.filter(details__awards__contains=["Hugo"])), ["The Dispossessed"], "JSON contains")
    eq(titles(Book.objects.filter(authors__born__isnull=True)), ["Collected Stories"], "isnull across m2m")
    eq(titles(Book.objects.filter(publisher__country_code__in=["US"], pages__gte=F("price") * 40)),
       ["Consider Phlebas"], "F expression and a join")
    eq(titles(Book.objects.annotate(lt=Lower("title")).filter(lt__startswith="ex")), ["Excession"], "Lower")


@step("joins and aggregates")
def _():
    rows = (Publisher.objects.annotate(n=Count("books"), pages=Sum("books__pages"))
            .order_by("-n", "name").values_list("name", "n", "pages"))
    eq(list(rows), [("Gollancz", 2, 571), ("Tor", 2, 922), ("Penguin", 1, 912), ("Orbit", 0, None)], "annotate")
    eq(Book.objects.aggregate(avg=Avg("price"), most=Max("pages")), {"avg": D("13.796"), "most": 912}, "aggregate")
    eq(list(Author.objects.annotate(n=Count("books")).filter(n__gt=1).order_by("name").values_list("name", "n")),
       [("Iain", 3), ("Ursula", 3)], "m2m count with having")
    newest = Book.objects.filter(publisher=OuterRef("pk")).order_by("-published")
    eq(list(Publisher.objects.annotate(newest=Subquery(newest.values("title")[:1]))
            .filter(Exists(Book.objects.filter(publisher=OuterRef("pk"), format="ebook")))
            .order_by("name").values_list("name", "newest")),
       [("Gollancz", "The Dispossessed"), ("Tor", "Excession")], "Subquery and Exists")
    eq(list(Book.objects.annotate(y=ExtractYear("published")).filter(y__gte=1990).values_list("y", flat=True)
            .order_by("y")), [1996, 2001], "ExtractYear")
    books = list(Book.objects.select_related("publisher").prefetch_related("authors").order_by("published"))
    eq([(b.title, b.publisher.name, sorted(a.name for a in b.authors.all())) for b in books][-1],
       ("Collected Stories", "Penguin", ["Anon", "Iain", "Ursula"]), "select_related and prefetch_related")


@step("ordering and pagination")
def _():
    qs = Book.objects.order_by("-price", "id")
    eq(list(qs.values_list("title", flat=True)[1:3]), ["The Dispossessed", "Excession"], "slice")
    pages = Paginator(qs.values_list("title", flat=True), 2)
    eq((pages.count, pages.num_pages), (5, 3), "paginator")
    eq(list(pages.page(3)), ["The Lathe of Heaven"], "last page")
    eq(list(Publisher.objects.values_list("name", flat=True)), ["Gollancz", "Orbit", "Penguin", "Tor"],
       "Meta.ordering")
    eq(list(Author.objects.order_by(F("born").desc(nulls_last=True)).values_list("name", flat=True)),
       ["Iain", "Ursula", "Anon"], "nulls_last")


@step("update and delete")
def _():
    eq(Book.objects.filter(publisher__name="Tor").update(price=F("price") + 1), 2, "update count")
    eq(list(Book.objects.filter(publisher__name="Tor").order_by("id").values_list("price", flat=True)),
       [D("11.99"), D("12.49")], "updated prices")
    orbit = Publisher.objects.get(name="Orbit")
    eq(orbit.delete(), (1, {"library.Publisher": 1}), "delete")
    e = raises(Exception, Publisher.objects.get(name="Tor").delete, "PROTECT")
    eq(type(e).__name__, "ProtectedError", "deleting a publisher with books")


@step("transactions")
def _():
    class Abort(Exception):
        pass

    def abort():
        with transaction.atomic():
            Author.objects.create(name="Ghost", email="ghost@example.com")
            raise Abort()
    raises(Abort, abort, "atomic block")
    eq(Author.objects.filter(name="Ghost").exists(), False, "rolled back")
    with transaction.atomic():
        Author.objects.create(name="Kept", email="kept@example.com")
        try:
            with transaction.atomic():  # a savepoint
                Author.objects.create(name="Dropped", email="dropped@example.com")
                raise Abort()
        except Abort:
            pass
        locked = list(Book.objects.select_for_update().filter(pages__gt=900).values_list("title", flat=True))
        eq(locked, ["Collected Stories"], "select_for_update")
    eq(sorted(Author.objects.filter(name__in=["Kept", "Dropped"]).values_list("name", flat=True)), ["Kept"],
       "savepoint rolled back, outer committed")


@step("integrity errors")
def _():
    tor = Publisher.objects.get(name="Tor")
    e = raises(IntegrityError, lambda: Book.objects.create(
        title="Excession", publisher=tor, price=1, pages=1, published=datetime.date(2000, 1, 1)), "duplicate")
    eq(e.__cause__.pgcode, "23505", "unique SQLSTATE")
    eq(e.__cause__.diag.constraint_name, "book_unique_title_per_publisher", "constraint")
    with transaction.atomic():
        e = raises(IntegrityError, lambda: Author.objects.create(name="x", email="iain@example.com"), "email")
        eq(e.__cause__.pgcode, "23505", "unique SQLSTATE in a transaction")
        transaction.set_rollback(True)
    e = raises(IntegrityError, lambda: Book.objects.filter(title="Excession").update(price=-1), "check")
    eq(e.__cause__.pgcode, "23514", "check SQLSTATE")
    eq(Book.objects.count(), 5, "usable after the errors")


@step("migrate back and forth")
def _():
    call_command("migrate", "library", "0001", verbosity=0)
    eq("rating" in columns("library_book"), False, "rating dropped by migrating back to 0001")
    eq(columns("library_publisher"), ["id", "name", "country"], "publisher columns at 0001")
    with connection.cursor() as cur:
        cur.execute("UPDATE library_book SET pages = 250 WHERE title = 'Excession'")
        cur.execute("INSERT INTO library_publisher (name, country) VALUES ('Orbit', 'US')")
        cur.execute("SELECT character_maximum_length, data_type FROM information_schema.columns"
                    " WHERE table_name = 'library_book' AND column_name IN ('title', 'pages') ORDER BY column_name")
        eq(cur.fetchall(), [(None, "integer"), (200, "character varying")], "pages and title at 0001")
    call_command("migrate", "library", verbosity=0)
    eq(columns("library_publisher"), ["id", "name", "country_code", "founded"], "publisher columns at 0003")
    eq(list(Publisher.objects.values_list("name", "country_code", "founded")),
       [("Gollancz", "GB", 1900), ("Orbit", "US", 1900), ("Penguin", "GB", 1900), ("Tor", "US", 1900)],
       "renamed and added columns")
    with connection.cursor() as cur:
        # Django adds a column with a default for the rows there, then
        # drops the default: the model's default is Python's.
        cur.execute("SELECT column_default, is_nullable FROM information_schema.columns"
                    " WHERE table_name = 'library_publisher' AND column_name = 'founded'")
        eq(cur.fetchall(), [(None, "NO")], "founded's default dropped")
        cons = connection.introspection.get_constraints(cur, "library_book")
    eq([(c["columns"], c["check"]) for c in cons.values() if c["check"] and c["columns"] == ["pages"]],
       [(["pages"], True)], "one check of pages >= 0 after its type changed")
    eq((cons["book_in_stock"]["index"], cons["book_in_stock"]["columns"]), (True, ["publisher_id"]), "partial index")
    eq(dict(Book.objects.values_list("title", "rating")),
       {"The Dispossessed": 4, "The Lathe of Heaven": 2, "Consider Phlebas": 5, "Excession": 3,
        "Collected Stories": 5}, "ratings from the data migration")


@step("introspection")
def _():
    intro = connection.introspection
    with connection.cursor() as cur:
        tables = {t.name: t.type for t in intro.get_table_list(cur)}
        eq(sorted(n for n in tables if n.startswith("library_")),
           ["library_author", "library_book", "library_book_authors", "library_publisher"], "tables")
        eq(tables["library_book"], "t", "a table")
        eq(intro.get_primary_key_column(cur, "library_book"), "id", "primary key")
        eq(intro.get_sequences(cur, "library_book"),
           [{"name": "library_book_id_seq", "table": "library_book", "column": "id"}], "sequences")
        eq(intro.get_relations(cur, "library_book"), {"publisher_id": ("id", "library_publisher")}, "relations")
        cons = intro.get_constraints(cur, "library_book")
        eq(cons["book_price_nonnegative"]["check"], True, "check constraint")
        eq((cons["book_unique_title_per_publisher"]["unique"], cons["book_unique_title_per_publisher"]["columns"]),
           (True, ["publisher_id", "title"]), "unique constraint")
        eq((cons["book_published_price"]["index"], cons["book_published_price"]["columns"],
            cons["book_published_price"]["type"]), (True, ["published", "price"], "idx"), "index (idx is btree to Django)")
        fks = [c for c in cons.values() if c["foreign_key"]]
        eq([(c["columns"], c["foreign_key"]) for c in fks], [(["publisher_id"], ("library_publisher", "id"))],
           "foreign key")
        desc = {c.name: c for c in intro.get_table_description(cur, "library_book")}
        eq([intro.get_field_type(desc[n].type_code, desc[n]) for n in ("code", "price", "details", "rating")],
           ["UUIDField", "DecimalField", "JSONField", "SmallIntegerField"], "field types")
        eq((desc["price"].precision, desc["price"].scale, desc["title"].internal_size, desc["rating"].null_ok),
           (8, 2, 250, True), "precision, scale, size and null")


@step("inspectdb")
def _():
    out = io.StringIO()
    call_command("inspectdb", "library_book", "library_publisher", stdout=out)
    text = out.getvalue()
    for line in [
        "class LibraryBook(models.Model):",
        "    id = models.BigAutoField(primary_key=True)",
        "    code = models.UUIDField(unique=True)",
        "    title = models.CharField(max_length=250)",
        "    price = models.DecimalField(max_digits=8, decimal_places=2)",
        "    pages = models.SmallIntegerField()",
        "    published = models.DateField()",
        "    in_stock = models.BooleanField()",
        "    details = models.JSONField()",
        "    added = models.DateTimeField()",
        "    publisher = models.ForeignKey('LibraryPublisher', models.DO_NOTHING)",
        "    rating = models.SmallIntegerField(blank=True, null=True)",
        "        db_table = 'library_book'",
        "        unique_together = (('publisher', 'title'),)",
        "class LibraryPublisher(models.Model):",
        "    name = models.CharField(unique=True, max_length=100)",
        "    country_code = models.CharField(max_length=2)",
        "    founded = models.IntegerField()",
    ]:
        if line not in text.splitlines():
            raise AssertionError("inspectdb has no line %r in\n%s" % (line, text))


@step("iterator() outside a transaction")
def _():
    # In autocommit Django reads iterator() through a server-side cursor
    # it declares WITH HOLD, so that the cursor outlives the transaction
    # its DECLARE ran in.
    eq(connection.get_autocommit(), True, "autocommit")
    got = [b.title for b in Book.objects.order_by("id").iterator(chunk_size=2)]
    eq(got, [b[0] for b in BOOKS], "iterator()")
    got = list(Author.objects.order_by("name").values_list("name", flat=True).iterator(chunk_size=1))
    eq(got, ["Anon", "Iain", "Kept", "Ursula"], "values_list iterator()")


finish()
