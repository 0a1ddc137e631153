// The client matrix for the PostgreSQL JDBC driver (pgjdbc). See
// internal/clienttest/doc.go.
//
// pgjdbc runs a PreparedStatement as an unnamed statement with text results
// for its first four executions; from the fifth (prepareThreshold) it uses a
// named server-side statement and asks for binary results for the types it
// can read in binary. The read step therefore runs eight times and checks
// every value, and the result format, each time. The driver's autosave is
// left at "never", so it sends no SAVEPOINTs.
//
// The interval goes in as a string of unspecified type (Types.OTHER) and
// comes out with getString: setObject(PGInterval) and getObject on an
// interval make the driver look the type up in pg_type with a catalog query
// (current_schemas(), arrays), which is not what this matrix is about.

import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;

import org.postgresql.PGConnection;
import org.postgresql.PGResultSetMetaData;
import org.postgresql.PGStatement;
import org.postgresql.util.PGobject;

public class JdbcMatrix {
    static final String CREATE = "CREATE TABLE matrix (\n"
            + "  id int4 PRIMARY KEY,\n"
            + "  c_bool bool, c_int2 int2, c_int4 int4, c_int8 int8,\n"
            + "  c_float4 float4, c_float8 float8, c_numeric numeric,\n"
            + "  c_text text, c_varchar varchar(10), c_char char(5), c_bytea bytea,\n"
            + "  c_date date, c_timestamp timestamp, c_timestamptz timestamptz,\n"
            + "  c_uuid uuid, c_interval interval)";
    static final String TEXT = "héllo, \"wörld\" \\ 'q'";
    static final BigDecimal NUMERIC = new BigDecimal("12345678901234567890.123456789");
    static final byte[] BYTEA = {0x00, (byte) 0xff, 0x10};
    static final LocalDate DATE = LocalDate.of(2024, 2, 29);
    static final LocalDateTime TIMESTAMP = LocalDateTime.of(2024, 2, 29, 13, 45, 56, 123456000);
    static final OffsetDateTime TIMESTAMPTZ = OffsetDateTime.of(TIMESTAMP, ZoneOffset.UTC);
    static final UUID ID = UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    static final String INTERVAL = "1 year 2 mons 3 days 04:05:06.789";
    // The json step's values: json keeps its text as written, jsonb is
    // written in its normal form (keys by length, then bytes; the last
    // duplicate wins).
    static final String JSON_DOC = "{\"b\": [1, 2],  \"a\": 1, \"a\": 2}";
    static final String JSONB_IN = "{\"s\": \"h\u00e9llo \\\"w\\\" \\\\ \\u00e9\", \"b\": [1, 2], \"num\": 1.5, \"a\": 0, \"n\": null, \"a\": 1}";
    static final String JSONB_TEXT = "{\"a\": 1, \"b\": [1, 2], \"n\": null, \"s\": \"h\u00e9llo \\\"w\\\" \\\\ \u00e9\", \"num\": 1.5}";

    interface Step {
        void run() throws Exception;
    }

    static Connection conn;
    static boolean failed;

    // step runs one step of the matrix and prints its outcome. After a
    // failure it rolls back and goes on to the next step.
    static void step(String name, Step s) {
        try {
            s.run();
            System.out.println("ok   " + name);
        } catch (Throwable e) {
            failed = true;
            System.out.println("FAIL " + name + ": " + e);
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                System.out.println("     caused by " + c);
            }
            try {
                if (!conn.getAutoCommit()) {
                    conn.rollback();
                }
            } catch (SQLException r) {
                System.out.println("     rollback: " + r);
            }
        }
    }

    static void eq(Object got, Object want, String what) {
        boolean same = got instanceof byte[] && want instanceof byte[]
                ? Arrays.equals((byte[]) got, (byte[]) want)
                : Objects.equals(got, want);
        if (!same) {
            throw new AssertionError(what + ": got " + show(got) + ", want " + show(want));
        }
    }

    static PGobject pgObject(String type, String value) throws SQLException {
        PGobject o = new PGobject();
        o.setType(type);
        o.setValue(value);
        return o;
    }

    static String show(Object v) {
        return v instanceof byte[] ? Arrays.toString((byte[]) v) : String.valueOf(v);
    }

    static void sqlState(Step s, String want, String what) throws Exception {
        try {
            s.run();
        } catch (SQLException e) {
            eq(e.getSQLState(), want, what + " (" + e.getMessage() + ")");
            return;
        }
        throw new AssertionError(what + ": succeeded, want SQLSTATE " + want);
    }

    static long count(String where) throws SQLException {
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM matrix WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    // checkCanonical compares the canonical row at rs with what was inserted.
    static void checkCanonical(ResultSet rs, String what) throws SQLException {
        eq(rs.getInt("id"), 1, what + " id");
        eq(rs.getBoolean("c_bool"), true, what + " c_bool");
        eq(rs.getShort("c_int2"), Short.MIN_VALUE, what + " c_int2");
        eq(rs.getInt("c_int4"), Integer.MAX_VALUE, what + " c_int4");
        eq(rs.getLong("c_int8"), Long.MIN_VALUE, what + " c_int8");
        eq(rs.getFloat("c_float4"), 3.14159f, what + " c_float4");
        eq(rs.getDouble("c_float8"), 0.1, what + " c_float8");
        eq(rs.getBigDecimal("c_numeric"), NUMERIC, what + " c_numeric");
        eq(rs.getString("c_text"), TEXT, what + " c_text");
        eq(rs.getString("c_varchar"), "abc", what + " c_varchar");
        eq(rs.getString("c_char"), "ab   ", what + " c_char");
        eq(rs.getBytes("c_bytea"), BYTEA, what + " c_bytea");
        eq(rs.getObject("c_date", LocalDate.class), DATE, what + " c_date");
        eq(rs.getObject("c_timestamp", LocalDateTime.class), TIMESTAMP, what + " c_timestamp");
        eq(rs.getObject("c_timestamptz", OffsetDateTime.class), TIMESTAMPTZ, what + " c_timestamptz");
        eq(rs.getObject("c_uuid"), ID, what + " c_uuid");
        eq(rs.getString("c_numeric"), NUMERIC.toPlainString(), what + " c_numeric as a string");
        eq(rs.getString("c_uuid"), ID.toString(), what + " c_uuid as a string");
        eq(rs.getString("c_interval"), INTERVAL, what + " c_interval as a string");
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://" + System.getenv("PGHOST") + ":" + System.getenv("PGPORT") + "/"
                + System.getenv("PGDATABASE");
        Properties props = new Properties();
        props.setProperty("user", System.getenv("PGUSER"));
        props.setProperty("sslmode", "disable");
        conn = DriverManager.getConnection(url, props);

        step("connect", () -> {
            eq(conn.getMetaData().getDatabaseMajorVersion(), 15, "server major version");
            try (Statement st = conn.createStatement()) {
                st.execute("SET TimeZone = 'UTC'");
            }
        });

        step("create", () -> {
            try (Statement st = conn.createStatement()) {
                st.execute(CREATE);
            }
        });

        step("insert with parameters", () -> {
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO matrix VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                ps.setInt(1, 1);
                ps.setBoolean(2, true);
                ps.setShort(3, Short.MIN_VALUE);
                ps.setInt(4, Integer.MAX_VALUE);
                ps.setLong(5, Long.MIN_VALUE);
                ps.setFloat(6, 3.14159f);
                ps.setDouble(7, 0.1);
                ps.setBigDecimal(8, NUMERIC);
                ps.setString(9, TEXT);
                ps.setString(10, "abc");
                ps.setString(11, "ab");
                ps.setBytes(12, BYTEA);
                ps.setObject(13, DATE);
                ps.setObject(14, TIMESTAMP);
                ps.setObject(15, TIMESTAMPTZ);
                ps.setObject(16, ID);
                ps.setObject(17, INTERVAL, Types.OTHER);
                eq(ps.executeUpdate(), 1, "update count");
                int[] types = {Types.INTEGER, Types.BOOLEAN, Types.SMALLINT, Types.INTEGER, Types.BIGINT, Types.REAL,
                    Types.DOUBLE, Types.NUMERIC, Types.VARCHAR, Types.VARCHAR, Types.CHAR, Types.BINARY, Types.DATE,
                    Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE, Types.OTHER, Types.OTHER};
                ps.setInt(1, 2);
                for (int i = 1; i < types.length; i++) {
                    ps.setNull(i + 1, types[i]);
                }
                eq(ps.executeUpdate(), 1, "update count of the NULL row");
            }
        });

        step("read back, text then binary", () -> {
            List<Integer> int4Formats = new ArrayList<>();
            try (PreparedStatement ps = conn.prepareStatement("SELECT * FROM matrix WHERE id = ?")) {
                for (int i = 1; i <= 8; i++) {
                    ps.setInt(1, 1);
                    try (ResultSet rs = ps.executeQuery()) {
                        eq(rs.next(), true, "execution " + i + ": a row");
                        checkCanonical(rs, "execution " + i + ":");
                        int4Formats.add(rs.getMetaData().unwrap(PGResultSetMetaData.class).getFormat(4));
                        eq(rs.next(), false, "execution " + i + ": one row");
                    }
                    ps.setInt(1, 2);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        for (int c = 2; c <= 17; c++) {
                            eq(rs.getObject(c), null, "execution " + i + ": NULL row, column " + c);
                        }
                    }
                }
                eq(ps.unwrap(PGStatement.class).isUseServerPrepare(), true, "a named server-side statement");
            }
            // 0 is text, 1 binary: text until the statement is named.
            eq(int4Formats.get(0), 0, "c_int4's format in execution 1");
            eq(int4Formats.get(7), 1, "c_int4's format in execution 8");
        });

        step("transaction that commits", () -> {
            conn.setAutoCommit(false);
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO matrix (id, c_text) VALUES (?, ?)")) {
                ps.setInt(1, 10);
                ps.setString(2, "committed");
                ps.executeUpdate();
            }
            conn.commit();
            conn.setAutoCommit(true);
            eq(count("id = 10"), 1L, "committed row");
        });

        step("transaction that rolls back", () -> {
            conn.setAutoCommit(false);
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO matrix (id, c_text) VALUES (?, ?)")) {
                ps.setInt(1, 11);
                ps.setString(2, "rolled back");
                ps.executeUpdate();
            }
            eq(count("id = 11"), 1L, "row inside the transaction");
            conn.rollback();
            conn.setAutoCommit(true);
            eq(count("id = 11"), 0L, "rolled-back row");
        });

        step("unique violation", () -> {
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO matrix (id) VALUES (?)")) {
                ps.setInt(1, 1);
                sqlState(ps::executeUpdate, "23505", "duplicate key");
                conn.setAutoCommit(false);
                ps.setInt(1, 12);
                ps.executeUpdate();
                ps.setInt(1, 1);
                sqlState(ps::executeUpdate, "23505", "duplicate key in a transaction");
                sqlState(() -> count("true"), "25P02", "after the error");
                conn.rollback();
                conn.setAutoCommit(true);
            }
            eq(count("id = 12"), 0L, "the failed transaction's row");
        });

        step("prepared statement, reused", () -> {
            try (PreparedStatement ins = conn.prepareStatement("INSERT INTO matrix (id, c_text, c_numeric, c_timestamptz) VALUES (?, ?, ?, ?)");
                    PreparedStatement sel = conn.prepareStatement("SELECT c_text, c_numeric, c_timestamptz FROM matrix WHERE id = ?")) {
                for (int i = 0; i < 8; i++) {
                    ins.setInt(1, 20 + i);
                    ins.setString(2, "p" + i);
                    ins.setBigDecimal(3, new BigDecimal(i + ".5"));
                    ins.setObject(4, TIMESTAMPTZ.plusDays(i));
                    eq(ins.executeUpdate(), 1, "insert " + (i + 1));
                    sel.setInt(1, 20 + i);
                    try (ResultSet rs = sel.executeQuery()) {
                        rs.next();
                        eq(rs.getString(1), "p" + i, "execution " + (i + 1) + " c_text");
                        eq(rs.getBigDecimal(2), new BigDecimal(i + ".5"), "execution " + (i + 1) + " c_numeric");
                        eq(rs.getObject(3, OffsetDateTime.class), TIMESTAMPTZ.plusDays(i), "execution " + (i + 1) + " c_timestamptz");
                    }
                }
                eq(ins.unwrap(PGStatement.class).isUseServerPrepare(), true, "insert is a named statement");
                eq(sel.unwrap(PGStatement.class).isUseServerPrepare(), true, "select is a named statement");
            }
        });

        step("batch", () -> {
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO matrix (id, c_int8) VALUES (?, ?)")) {
                for (int i = 0; i < 20; i++) {
                    ps.setInt(1, 30 + i);
                    ps.setLong(2, i * 1_000_000_000_000L);
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                eq(counts.length, 20, "batch results");
                for (int c : counts) {
                    eq(c, 1, "update count");
                }
            }
            eq(count("id BETWEEN 30 AND 49 AND c_int8 IS NOT NULL"), 20L, "batched rows");
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO matrix (id) VALUES (?)")) {
                for (int id : new int[] {50, 1, 51}) {
                    ps.setInt(1, id);
                    ps.addBatch();
                }
                try {
                    ps.executeBatch();
                    throw new AssertionError("a batch with a duplicate key succeeded");
                } catch (BatchUpdateException e) {
                    eq(e.getSQLState(), "23505", "failing batch");
                }
            }
            eq(count("id IN (50, 51)"), 0L, "rows of the failed batch (one implicit transaction)");
        });

        step("CopyManager", () -> {
            var copy = conn.unwrap(PGConnection.class).getCopyAPI();
            StringBuilder csv = new StringBuilder();
            for (int i = 0; i < 100; i++) {
                csv.append(100 + i).append(",\"copy, ").append(i).append("\",").append(i).append(".25\n");
            }
            csv.append("200,,\n");
            long n = copy.copyIn("COPY matrix (id, c_text, c_numeric) FROM STDIN (FORMAT csv)", new StringReader(csv.toString()));
            eq(n, 101L, "rows copied in");
            StringWriter out = new StringWriter();
            n = copy.copyOut("COPY (SELECT id, c_text, c_numeric, c_bytea FROM matrix WHERE id IN (1, 199, 200) ORDER BY id) TO STDOUT", out);
            eq(n, 3L, "rows copied out");
            eq(out.toString(), "1\th\u00e9llo, \"w\u00f6rld\" \\\\ 'q'\t12345678901234567890.123456789\t\\\\x00ff10\n"
                    + "199\tcopy, 99\t99.25\t\\N\n200\t\\N\t\\N\t\\N\n", "COPY TO STDOUT");
            // A COPY that fails early, while the driver still sends the
            // rest of its data, leaves nothing and the connection works.
            StringBuilder bad = new StringBuilder("300,row\nnot a number,row\n");
            for (int i = 0; i < 50000; i++) {
                bad.append(301 + i).append(",row\n");
            }
            sqlState(() -> copy.copyIn("COPY matrix (id, c_text) FROM STDIN (FORMAT csv)", new StringReader(bad.toString())),
                    "22P02", "COPY of a bad row");
            eq(count("id >= 300"), 0L, "rows of the failed COPY");
        });

        step("fetch size: a portal read in pieces", () -> {
            conn.setAutoCommit(false); // else the driver reads everything at once
            // 101 rows: batches that divide them (1, 101), that do not (7,
            // 100), and one larger than the result (500).
            for (int size : new int[] {1, 7, 100, 101, 500}) {
                try (PreparedStatement ps = conn.prepareStatement("SELECT id, c_text FROM matrix WHERE id >= ? ORDER BY id")) {
                    ps.setFetchSize(size);
                    ps.setInt(1, 100);
                    int rows = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            eq(rs.getInt(1), 100 + rows, "fetch size " + size + ", row " + rows);
                            rows++;
                        }
                    }
                    eq(rows, 101, "fetch size " + size + ", rows");
                }
            }
            // Two portals suspended at once, read in turn, and a write's
            // RETURNING rows read in pieces.
            try (PreparedStatement a = conn.prepareStatement("SELECT id FROM matrix WHERE id >= 100 ORDER BY id");
                    PreparedStatement b = conn.prepareStatement("SELECT id FROM matrix WHERE id >= 100 ORDER BY id DESC");
                    PreparedStatement w = conn.prepareStatement("UPDATE matrix SET c_int4 = id WHERE id >= 150 RETURNING id")) {
                a.setFetchSize(10);
                b.setFetchSize(3);
                w.setFetchSize(4);
                try (ResultSet ra = a.executeQuery(); ResultSet rb = b.executeQuery()) {
                    for (int i = 0; i < 101; i++) {
                        eq(ra.next() && rb.next(), true, "interleaved row " + i);
                        eq(ra.getInt(1), 100 + i, "ascending row " + i);
                        eq(rb.getInt(1), 200 - i, "descending row " + i);
                    }
                    eq(ra.next() || rb.next(), false, "interleaved ends");
                }
                long sum = 0;
                int rows = 0;
                try (ResultSet rs = w.executeQuery()) {
                    while (rs.next()) {
                        sum += rs.getInt(1);
                        rows++;
                    }
                }
                eq(rows, 51, "RETURNING rows");
                eq(sum, 51L * 175, "RETURNING ids' sum");
            }
            conn.rollback();
            conn.setAutoCommit(true);
        });

        step("several statements in one execute", () -> {
            try (Statement st = conn.createStatement()) {
                eq(st.execute("UPDATE matrix SET c_int4 = 7 WHERE id = 10; SELECT c_int4 FROM matrix WHERE id = 10"), false, "first result is a count");
                eq(st.getUpdateCount(), 1, "update count");
                eq(st.getMoreResults(), true, "second result is rows");
                try (ResultSet rs = st.getResultSet()) {
                    rs.next();
                    eq(rs.getInt(1), 7, "selected value");
                }
            }
        });

        // DatabaseMetaData reads the catalogs: getColumns numbers columns
        // with a window function, getPrimaryKeys and getIndexInfo expand
        // pg_index.indkey with information_schema._pg_expandarray.
        step("DatabaseMetaData", () -> {
            DatabaseMetaData md = conn.getMetaData();
            try (ResultSet rs = md.getTables(null, "public", "matrix", new String[] {"TABLE"})) {
                eq(rs.next(), true, "getTables finds matrix");
                eq(rs.getString("TABLE_TYPE"), "TABLE", "getTables type");
                eq(rs.next(), false, "getTables finds only matrix");
            }
            List<String> cols = new ArrayList<>();
            try (ResultSet rs = md.getColumns(null, "public", "matrix", "%")) {
                while (rs.next()) {
                    cols.add(rs.getInt("ORDINAL_POSITION") + " " + rs.getString("COLUMN_NAME") + " "
                            + rs.getString("TYPE_NAME") + " " + rs.getInt("COLUMN_SIZE") + " " + rs.getString("IS_NULLABLE"));
                }
            }
            eq(cols.size(), 17, "getColumns count");
            eq(cols.get(0), "1 id int4 10 NO", "getColumns id");
            eq(cols.get(9), "10 c_varchar varchar 10 YES", "getColumns c_varchar");
            eq(cols.get(16), "17 c_interval interval 49 YES", "getColumns c_interval");
            try (ResultSet rs = md.getPrimaryKeys(null, "public", "matrix")) {
                eq(rs.next(), true, "getPrimaryKeys finds a column");
                eq(rs.getString("COLUMN_NAME") + " " + rs.getInt("KEY_SEQ") + " " + rs.getString("PK_NAME"), "id 1 matrix_pkey", "getPrimaryKeys");
                eq(rs.next(), false, "getPrimaryKeys finds one column");
            }
            try (ResultSet rs = md.getIndexInfo(null, "public", "matrix", true, false)) {
                eq(rs.next(), true, "getIndexInfo finds an index");
                eq(rs.getString("INDEX_NAME") + " " + rs.getString("COLUMN_NAME") + " " + rs.getBoolean("NON_UNIQUE"), "matrix_pkey id false", "getIndexInfo");
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT count(*) FROM matrix WHERE id = ANY(?)")) {
                ps.setArray(1, conn.createArrayOf("int4", new Object[] {1, 2, -5}));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    eq(rs.getLong(1), 2L, "id = ANY(array parameter)");
                }
            }
        });

        // Foreign keys: getImportedKeys and getExportedKeys read
        // pg_constraint's conkey and confkey, and a violation is 23503.
        step("foreign keys", () -> {
            try (Statement st = conn.createStatement()) {
                st.execute("CREATE TABLE fk_parent (id int PRIMARY KEY)");
                st.execute("CREATE TABLE fk_child (id int PRIMARY KEY, pid int REFERENCES fk_parent ON DELETE CASCADE)");
                st.execute("INSERT INTO fk_parent VALUES (1)");
                st.execute("INSERT INTO fk_child VALUES (1, 1)");
            }
            DatabaseMetaData md = conn.getMetaData();
            try (ResultSet rs = md.getImportedKeys(null, "public", "fk_child")) {
                eq(rs.next(), true, "getImportedKeys finds the key");
                eq(rs.getString("PKTABLE_NAME") + "." + rs.getString("PKCOLUMN_NAME") + " <- " + rs.getString("FKTABLE_NAME") + "."
                        + rs.getString("FKCOLUMN_NAME") + " " + rs.getString("FK_NAME") + " " + rs.getInt("KEY_SEQ"),
                        "fk_parent.id <- fk_child.pid fk_child_pid_fkey 1", "getImportedKeys");
                eq(rs.getInt("DELETE_RULE"), DatabaseMetaData.importedKeyCascade, "delete rule");
                eq(rs.getInt("UPDATE_RULE"), DatabaseMetaData.importedKeyNoAction, "update rule");
                eq(rs.next(), false, "getImportedKeys finds one key");
            }
            try (ResultSet rs = md.getExportedKeys(null, "public", "fk_parent")) {
                eq(rs.next(), true, "getExportedKeys finds the key");
                eq(rs.getString("FKTABLE_NAME"), "fk_child", "getExportedKeys");
            }
            sqlState(() -> {
                try (Statement st = conn.createStatement()) {
                    st.execute("INSERT INTO fk_child VALUES (2, 9)");
                }
            }, "23503", "foreign key violation");
            try (Statement st = conn.createStatement()) {
                st.execute("DELETE FROM fk_parent");
                try (ResultSet rs = st.executeQuery("SELECT count(*) FROM fk_child")) {
                    rs.next();
                    eq(rs.getLong(1), 0L, "ON DELETE CASCADE");
                }
                st.execute("DROP TABLE fk_child, fk_parent");
            }
        });

        // json and jsonb (see internal/clienttest/json_test.go): pgjdbc
        // sends a PGobject as text of the type it names, a string cast
        // with ?::jsonb as varchar, and reads both types as text:
        // getString, and getObject as a PGobject.
        step("json and jsonb", () -> {
            try (Statement st = conn.createStatement()) {
                st.execute("CREATE TABLE jdocs (id int4 PRIMARY KEY, j jsonb, t json)");
            }
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdocs VALUES (?, ?, ?)")) {
                ps.setInt(1, 1);
                ps.setObject(2, pgObject("jsonb", JSONB_IN));
                ps.setObject(3, pgObject("json", JSON_DOC));
                eq(ps.executeUpdate(), 1, "insert PGobjects");
                ps.setInt(1, 3);
                ps.setNull(2, Types.OTHER);
                ps.setObject(3, "null", Types.OTHER);
                eq(ps.executeUpdate(), 1, "insert NULL and JSON null");
            }
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdocs VALUES (?, ?::jsonb, ?::json)")) {
                ps.setInt(1, 2);
                ps.setString(2, JSONB_IN);
                ps.setString(3, JSON_DOC);
                eq(ps.executeUpdate(), 1, "insert strings cast");
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT id, j, t FROM jdocs ORDER BY id")) {
                for (int i = 1; i <= 8; i++) {
                    String what = "execution " + i + ": ";
                    try (ResultSet rs = ps.executeQuery()) {
                        var md = rs.getMetaData();
                        eq(md.getColumnTypeName(2) + " " + md.getColumnTypeName(3), "jsonb json", what + "type names");
                        eq(md.getColumnType(2) + " " + md.getColumnType(3), Types.OTHER + " " + Types.OTHER, what + "SQL types");
                        for (int id = 1; id <= 2; id++) {
                            eq(rs.next(), true, what + "row " + id);
                            eq(rs.getString("j"), JSONB_TEXT, what + "row " + id + " j");
                            eq(rs.getString("t"), JSON_DOC, what + "row " + id + " t");
                            Object j = rs.getObject("j");
                            eq(j instanceof PGobject ? ((PGobject) j).getType() + " " + ((PGobject) j).getValue() : j,
                                    "jsonb " + JSONB_TEXT, what + "row " + id + " getObject(j)");
                            Object t = rs.getObject("t");
                            eq(t instanceof PGobject ? ((PGobject) t).getType() + " " + ((PGobject) t).getValue() : t,
                                    "json " + JSON_DOC, what + "row " + id + " getObject(t)");
                        }
                        eq(rs.next(), true, what + "row 3");
                        eq(rs.getString("j"), null, what + "row 3 j");
                        eq(rs.getString("t"), "null", what + "row 3 t");
                        eq(rs.next(), false, what + "three rows");
                    }
                }
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT j ->> ?, j -> 'b', t -> 'a' FROM jdocs WHERE j @> ?::jsonb ORDER BY id")) {
                for (int i = 1; i <= 8; i++) {
                    String what = "execution " + i + ": ";
                    ps.setString(1, "s");
                    ps.setString(2, "{\"b\": [2]}");
                    try (ResultSet rs = ps.executeQuery()) {
                        var md = rs.getMetaData();
                        eq(md.getColumnTypeName(1) + " " + md.getColumnTypeName(2) + " " + md.getColumnTypeName(3), "text jsonb json",
                                what + "operator result types");
                        for (int id = 1; id <= 2; id++) {
                            eq(rs.next(), true, what + "row " + id);
                            eq(rs.getString(1) + " | " + rs.getString(2) + " | " + rs.getString(3), "h\u00e9llo \"w\" \\ \u00e9 | [1, 2] | 2",
                                    what + "j ->> ? ... WHERE j @> ?::jsonb, row " + id);
                        }
                        eq(rs.next(), false, what + "two rows");
                    }
                }
            }
        });

        conn.close();
        System.exit(failed ? 1 : 0);
    }
}
