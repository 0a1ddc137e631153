"""The client matrix for psycopg2. See internal/clienttest/doc.go.

psycopg2 interpolates parameters into the query text itself and sends it
with the simple query protocol, and reads every result as text, so there is
no binary format to choose. It has no server-side prepared statements of its
own, so the reuse step uses PREPARE and EXECUTE. A named cursor runs
DECLARE ... CURSOR and FETCH FORWARD in the transaction.
"""
import datetime
import decimal
import io
import sys
import uuid

import psycopg2
import psycopg2.errors
import psycopg2.extras

psycopg2.extras.register_uuid()

CREATE = """CREATE TABLE matrix (
  id int4 PRIMARY KEY,
  c_bool bool, c_int2 int2, c_int4 int4, c_int8 int8,
  c_float4 float4, c_float8 float8, c_numeric numeric,
  c_text text, c_varchar varchar(10), c_char char(5), c_bytea bytea,
  c_date date, c_timestamp timestamp, c_timestamptz timestamptz,
  c_uuid uuid, c_interval interval)"""
COLUMNS = ["id", "c_bool", "c_int2", "c_int4", "c_int8", "c_float4", "c_float8", "c_numeric",
           "c_text", "c_varchar", "c_char", "c_bytea", "c_date", "c_timestamp", "c_timestamptz",
           "c_uuid", "c_interval"]
INSERT = "INSERT INTO matrix VALUES (%s)" % ", ".join(["%s"] * len(COLUMNS))
UTC = datetime.timezone.utc

# The canonical row as psycopg2 sends it and reads it back. psycopg2 reads
# an interval as a timedelta, counting a month as 30 days and a year as 365.
SENT = [1, True, -32768, 2147483647, -9223372036854775808, 3.14159, 0.1,
        decimal.Decimal("12345678901234567890.123456789"),
        "héllo, \"wörld\" \\ 'q'", "abc", "ab", b"\x00\xff\x10",
        datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29, 13, 45, 56, 123456),
        datetime.datetime(2024, 2, 29, 13, 45, 56, 123456, tzinfo=UTC),
        uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), "1 year 2 mons 3 days 04:05:06.789"]
READ = SENT[:5] + [3.14159, 0.1] + SENT[7:10] + ["ab   ", b"\x00\xff\x10"] + SENT[12:16] + [
    datetime.timedelta(days=365 + 2 * 30 + 3, hours=4, minutes=5, seconds=6, milliseconds=789)]
# The canonical row cast to text (which drops char(n)'s padding).
AS_TEXT = ["1", "true", "-32768", "2147483647", "-9223372036854775808", "3.14159", "0.1",
           "12345678901234567890.123456789", "héllo, \"wörld\" \\ 'q'", "abc", "ab", "\\x00ff10",
           "2024-02-29", "2024-02-29 13:45:56.123456", "2024-02-29 13:45:56.123456+00",
           "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "1 year 2 mons 3 days 04:05:06.789"]

# The json step's table and values (see internal/clienttest/json_test.go):
# json keeps its text as written, jsonb is written in its normal form.
CREATE_JDOCS = "CREATE TABLE jdocs (id int4 PRIMARY KEY, j jsonb, t json)"
JSON_DOC = '{"b": [1, 2],  "a": 1, "a": 2}'
DOC = {"s": "héllo \"w\" \\ é", "b": [1, 2], "a": 1, "n": None, "num": 1.5}
JSONB_TEXT = '{"a": 1, "b": [1, 2], "n": null, "s": "héllo \\"w\\" \\\\ é", "num": 1.5}'

failed = False


def step(name):
    """Runs the decorated function as a step of the matrix, at once. After a
    failure the transaction is rolled back and the next step runs."""
    def run(fn):
        global failed
        try:
            fn()
            print("ok  ", name, flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failed = True
            print("FAIL", name + ":", type(e).__name__, e, flush=True)
            if not conn.closed:
                conn.rollback()
    return run


def eq(got, want, what):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


conn = psycopg2.connect("")  # libpq's environment: PGHOST, PGPORT, ...
cur = conn.cursor()


def count(where):
    cur.execute("SELECT count(*) FROM matrix WHERE " + where)
    return cur.fetchone()[0]


@step("connect")
def _():
    eq(conn.server_version // 10000, 15, "server_version")
    cur.execute("SET TimeZone = 'UTC'")
    conn.commit()


@step("create")
def _():
    cur.execute(CREATE)
    conn.commit()


@step("insert with parameters")
def _():
    cur.execute(INSERT, SENT)
    eq((cur.statusmessage, cur.rowcount), ("INSERT 0 1", 1), "status")
    cur.execute(INSERT, [2] + [None] * (len(COLUMNS) - 1))
    cur.execute("INSERT INTO matrix (id, c_text) VALUES (%(id)s, %(text)s)", {"id": 3, "text": "named"})
    conn.commit()


@step("read back")
def _():
    cur.execute("SELECT * FROM matrix WHERE id = %s", (1,))
    eq([d.name for d in cur.description], COLUMNS, "columns")
    eq([d.type_code for d in cur.description],
       [23, 16, 21, 23, 20, 700, 701, 1700, 25, 1043, 1042, 17, 1082, 1114, 1184, 2950, 1186], "types")
    row = list(cur.fetchone())
    row[11] = bytes(row[11])  # a memoryview
    for got, want, column in zip(row, READ, COLUMNS):
        eq(got, want, column)
    eq(row[14].utcoffset(), datetime.timedelta(0), "timestamptz's offset")
    cur.execute("SELECT * FROM matrix WHERE id = 2")
    eq(cur.fetchone(), (2,) + (None,) * (len(COLUMNS) - 1), "NULL row")
    cur.execute("SELECT %s" % ", ".join(c + "::text" for c in COLUMNS) + " FROM matrix WHERE id = 1")
    eq(list(cur.fetchone()), AS_TEXT, "as text")
    conn.commit()


@step("transaction that commits")
def _():
    cur.execute("INSERT INTO matrix (id, c_text) VALUES (%s, %s)", (10, "committed"))
    conn.commit()
    eq(count("id = 10"), 1, "committed row")
    conn.commit()


@step("transaction that rolls back")
def _():
    cur.execute("INSERT INTO matrix (id, c_text) VALUES (%s, %s)", (11, "rolled back"))
    eq(count("id = 11"), 1, "row inside the transaction")
    conn.rollback()
    eq(count("id = 11"), 0, "rolled-back row")
    conn.commit()


@step("unique violation")
def _():
    try:
        cur.execute("INSERT INTO matrix (id) VALUES (%s)", (1,))
        raise AssertionError("duplicate key accepted")
    except psycopg2.errors.UniqueViolation as e:
        eq(e.pgcode, "23505", "pgcode")
    eq(conn.get_transaction_status(), psycopg2.extensions.TRANSACTION_STATUS_INERROR, "transaction status")
    try:
        cur.execute("SELECT 1")
        raise AssertionError("statement accepted in a failed transaction")
    except psycopg2.errors.InFailedSqlTransaction as e:
        eq(e.pgcode, "25P02", "pgcode")
    conn.rollback()
    with conn:  # commits, or rolls back on an exception
        cur.execute("SELECT 1")
        eq(cur.fetchone(), (1,), "after ROLLBACK")


@step("prepared statement, reused")
def _():
    cur.execute("PREPARE ins (int4, text, numeric) AS INSERT INTO matrix (id, c_text, c_numeric) VALUES ($1, $2, $3)")
    cur.execute("PREPARE sel (int4) AS SELECT c_text, c_numeric FROM matrix WHERE id = $1")
    for i in range(8):
        cur.execute("EXECUTE ins (%s, %s, %s)", (20 + i, "p%d" % i, decimal.Decimal("%d.5" % i)))
        cur.execute("EXECUTE sel (%s)", (20 + i,))
        eq(cur.fetchall(), [("p%d" % i, decimal.Decimal("%d.5" % i))], "execution %d" % (i + 1))
    cur.execute("DEALLOCATE ins")
    cur.execute("DEALLOCATE sel")
    conn.commit()


@step("executemany")
def _():
    cur.executemany("INSERT INTO matrix (id, c_int8) VALUES (%s, %s)", [(30 + i, i * 10**12) for i in range(5)])
    conn.commit()
    eq(count("id BETWEEN 30 AND 34 AND c_int8 IS NOT NULL"), 5, "rows")


@step("copy_from and copy_expert")
def _():
    data = "".join("%d\tcopy %d\t%d.25\n" % (100 + i, i, i) for i in range(50)) + "150\t\\N\t\\N\n"
    cur.copy_from(io.StringIO(data), "matrix", columns=("id", "c_text", "c_numeric"))
    eq(cur.rowcount, 51, "copy_from rowcount")
    csv = 'id,c_text,c_bytea\n160,"csv, ""quoted""",\\x0102\n161,,\n'
    cur.copy_expert("COPY matrix (id, c_text, c_bytea) FROM STDIN WITH (FORMAT csv, HEADER)", io.StringIO(csv))
    conn.commit()
    eq(count("id >= 100"), 53, "copied rows")
    out = io.StringIO()
    cur.copy_expert("COPY (SELECT id, c_text, c_numeric, c_bytea FROM matrix WHERE id IN (1, 149, 150, 160) ORDER BY id) "
                    "TO STDOUT WITH (FORMAT csv)", out)
    eq(out.getvalue(), '1,"héllo, ""wörld"" \\ \'q\'",12345678901234567890.123456789,\\x00ff10\n'
       '149,copy 49,49.25,\n150,,,\n160,"csv, ""quoted""",,\\x0102\n', "COPY TO STDOUT")
    out = io.StringIO()
    cur.copy_to(out, "matrix", columns=("id", "c_text"))
    eq(len(out.getvalue().splitlines()), count("true"), "copy_to lines")
    conn.commit()


@step("named cursor")
def _():
    with conn.cursor(name="walk") as named:
        named.itersize = 7  # FETCH FORWARD 7, many times
        named.execute("SELECT id, c_numeric FROM matrix WHERE id BETWEEN %s AND %s ORDER BY id", (100, 150))
        rows = list(named)
    eq(len(rows), 51, "rows")
    eq(rows[0], (100, decimal.Decimal("0.25")), "first row")
    eq(rows[49], (149, decimal.Decimal("49.25")), "row 50")
    conn.commit()
    with conn.cursor(name="partial") as named:
        named.execute("SELECT id FROM matrix ORDER BY id")
        eq(named.fetchmany(3), [(1,), (2,), (3,)], "fetchmany")
        eq(named.fetchone(), (10,), "fetchone")
    conn.rollback()


@step("json and jsonb")
def _():
    # Json() adapts a value to its json.dumps text (non-ASCII as \u
    # escapes, which jsonb decodes); psycopg2 parses json and jsonb results
    # with json.loads.
    cur.execute(CREATE_JDOCS)
    cur.execute("INSERT INTO jdocs VALUES (%s, %s, %s)", (1, psycopg2.extras.Json(DOC), JSON_DOC))
    cur.execute("INSERT INTO jdocs VALUES (%s, %s, %s)", (2, None, psycopg2.extras.Json(None)))
    cur.execute("SELECT id, j, t FROM jdocs ORDER BY id")
    eq([d.type_code for d in cur.description], [23, 3802, 114], "types")
    eq(cur.fetchall(), [(1, DOC, {"b": [1, 2], "a": 2}), (2, None, None)], "parsed")
    cur.execute("SELECT j::text, t::text FROM jdocs ORDER BY id")
    eq(cur.fetchall(), [(JSONB_TEXT, JSON_DOC), (None, "null")], "as text")
    cur.execute("SELECT j ->> %s, j -> 'b', t -> 'a' FROM jdocs WHERE j @> %s::jsonb",
                ("s", psycopg2.extras.Json({"b": [2]})))
    eq([d.type_code for d in cur.description], [25, 3802, 114], "operator result types")
    eq(cur.fetchall(), [(DOC["s"], [1, 2], 2)], "j ->> %s ... WHERE j @> %s::jsonb")
    conn.commit()


@step("close")
def _():
    cur.close()
    conn.close()


sys.exit(1 if failed else 0)
