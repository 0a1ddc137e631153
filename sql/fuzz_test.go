package sql

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// FuzzStatements runs statements that a generator builds from the fuzzer's
// bytes, in the areas where real SQL once reached internal errors:
// expression indexes, materialized view refreshes, row values and IS
// [NOT] NULL over them, numeric literals of any size, temporary tables,
// the network types' operators and functions, and aggregates over a whole
// table. Each statement may fail, but only with a proper SQLSTATE: a
// panic or an internal error (XX000) fails the test.
func FuzzStatements(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 1, 2, 3}, {4, 5, 6, 7, 8, 9}, {10, 20, 30, 40, 50}, {255, 254, 253, 252},
		{1, 1, 1, 1, 1, 1, 1, 1}, {2, 7, 1, 8, 2, 8, 1, 8}, {3, 14, 15, 92, 65, 35},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		_, s := newTestSession(t)
		for _, q := range []string{
			`CREATE TABLE t (f1 text, f2 text, a int, n numeric, r int[], ip inet)`,
			`INSERT INTO t VALUES ('a', 'b', 1, 1.5, '{1,2}', '10.1.2.3/8'), (NULL, 'c', NULL, NULL, NULL, NULL), ('d', NULL, 3, 1e30, '{}', '::1')`,
			`CREATE MATERIALIZED VIEW mv1 AS SELECT a FROM t`,
			`CREATE MATERIALIZED VIEW mv2 AS SELECT a, f1 FROM t WHERE a IS NOT NULL`,
			`CREATE UNIQUE INDEX ON mv2 (a)`,
		} {
			if _, err := run(ctx, s, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		g := &sqlGen{data: data}
		for range 4 {
			if g.done() {
				break
			}
			q := g.statement()
			// A statement may be slow, and is canceled; one that does not
			// end when canceled is a bug, which takes the process down.
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			hung := time.AfterFunc(30*time.Second, func() { panic(fmt.Sprintf("%s: not ended 25 s after its cancellation", q)) })
			_, err := run(sctx, s, q)
			hung.Stop()
			cancel()
			if pgerr.Code(err) == pgerr.InternalError {
				t.Fatalf("%s: internal error: %v", q, err)
			}
		}
	})
}

// sqlGen builds SQL text from bytes: each choice takes the next byte, and
// choices past the end take the first option, so every input ends.
type sqlGen struct {
	data  []byte
	depth int
}

func (g *sqlGen) done() bool { return len(g.data) == 0 }

func (g *sqlGen) pick(n int) int {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return int(b) % n
}

func (g *sqlGen) one(options ...string) string { return options[g.pick(len(options))] }

func (g *sqlGen) statement() string {
	switch g.pick(12) {
	case 0, 1:
		return "SELECT " + g.list() + " FROM " + g.source()
	case 9:
		// The planner's estimates and EXPLAIN's description of every
		// kind of plan, run or not.
		return "EXPLAIN " + g.one("", "ANALYZE ", "(ANALYZE, FORMAT JSON) ", "(COSTS OFF) ") +
			"SELECT " + g.list() + " FROM " + g.source() + g.one("", " WHERE "+g.expr(), " ORDER BY 1 LIMIT 2", " GROUP BY 1")
	case 10:
		return "ANALYZE" + g.one("", " t", " mv2")
	case 11:
		// Joins the planner orders by cost, with index lookups.
		return "SELECT " + g.list() + " FROM t JOIN " + g.one("t AS u", "mv2 AS u", "mv1 AS u") + " ON " +
			g.one("u.a = t.a", "u.a = t.a + 1", "u.a IN (1, t.a)") + g.one("", " WHERE t.a = "+g.integer(), " WHERE u.a = ANY ('{1,3}')")
	case 2:
		unique := g.one("", "UNIQUE ")
		where := g.one("", " WHERE "+g.expr())
		return "CREATE " + unique + "INDEX ON t (" + g.indexElem() + g.one("", ", "+g.indexElem()) + ")" + where
	case 3:
		return "REFRESH MATERIALIZED VIEW " + g.one("", "CONCURRENTLY ") + g.one("mv1", "mv2")
	case 4:
		return "INSERT INTO t VALUES (" + g.text() + ", " + g.text() + ", " + g.integer() + ", " + g.number() + ", " + g.one("NULL", "'{}'", "ARRAY[1,NULL]", "'{3}'") + ")"
	case 5:
		return "UPDATE t SET " + g.one("f1", "f2") + " = " + g.text() + ", a = " + g.integer() + " WHERE " + g.expr()
	case 6:
		return "CREATE " + g.one("TEMP ", "") + "TABLE " + g.one("tt", "t2") + " " + g.one("", "ON COMMIT DROP ", "ON COMMIT DELETE ROWS ") + "AS SELECT " + g.list() + " FROM " + g.source()
	case 7:
		return "SELECT " + g.expr() + " FROM (VALUES (1, row(1, 2)), (1, row(NULL, NULL)), (NULL, NULL)) r(a, b)"
	case 8:
		// Aggregates over the whole table, which the scan computes
		// itself where their expressions compile to kernels (fused.go).
		agg := func() string {
			arg := g.one("a", "a * "+g.integer(), "a + a", "-a", "a / "+g.integer(), "a::float8", "a % 3", g.expr())
			return g.one("count(*)", "sum("+arg+")", "avg("+arg+")", "min("+arg+")", "max("+arg+")", "count("+arg+")", "bool_and(a > 1)") +
				g.one("", " FILTER (WHERE "+g.expr()+")")
		}
		return "SELECT " + agg() + ", " + agg() + " FROM t" + g.one("", " WHERE "+g.expr(), " WHERE a > "+g.integer()+" AND a < 10")
	}
	return "SELECT " + g.number() + " " + g.one("*", "+", "-", "/", "%", "^") + " " + g.number()
}

func (g *sqlGen) source() string {
	return g.one("t", "mv1", "mv2", "t AS r", "(SELECT f1, f2, a FROM t) AS r", "generate_series(1, 3) AS r(a)")
}

func (g *sqlGen) list() string {
	out := g.expr()
	for g.pick(3) == 1 {
		out += ", " + g.expr()
	}
	return out
}

func (g *sqlGen) indexElem() string {
	return g.one("f1", "a", "(f1 || f2)", "(row(f1, f2))", "(a + 1)", "(lower(f1))", "(array[a])", "(n * 2)", "(r)", "ip",
		"(network(ip))", "("+g.expr()+")")
}

func (g *sqlGen) expr() string {
	if g.depth > 4 {
		return g.leaf()
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.pick(13) {
	case 0, 1, 2:
		return g.leaf()
	case 11:
		return g.network()
	case 3:
		return "(" + g.expr() + " " + g.one("||", "+", "*", "=", "<>", "<", "AND", "OR", "IS DISTINCT FROM") + " " + g.expr() + ")"
	case 4:
		return "row(" + g.expr() + ", " + g.expr() + ")"
	case 5:
		return "(" + g.expr() + ") IS " + g.one("", "NOT ") + "NULL"
	case 6:
		return g.one("r", "row(f1, f2)", "row(a, NULL)", "row()", "r.*", "(r)") + " IS " + g.one("", "NOT ") + "NULL"
	case 7:
		return "CAST(" + g.expr() + " AS " + g.one("text", "int", "numeric", "bigint", "numeric(5,2)", "int[]", "record") + ")"
	case 8:
		return g.one("coalesce", "nullif", "greatest", "least") + "(" + g.expr() + ", " + g.expr() + ")"
	case 9:
		return "CASE WHEN " + g.expr() + " THEN " + g.expr() + " ELSE " + g.expr() + " END"
	case 10:
		return "ARRAY[" + g.expr() + ", " + g.expr() + "]"
	}
	return "(SELECT " + g.expr() + " FROM " + g.source() + " LIMIT 1)"
}

func (g *sqlGen) leaf() string {
	switch g.pick(5) {
	case 0:
		return g.one("f1", "f2", "a", "n", "r", "b", "r.a", "ip")
	case 1:
		return g.text()
	case 2:
		return g.integer()
	case 3:
		return g.number()
	}
	return g.one("NULL", "true", "row(1, 2)", "'{1,2}'::int[]")
}

// network is an expression of the network types: their literals, the
// containment, bitwise and arithmetic operators, and their functions.
func (g *sqlGen) network() string {
	if g.depth > 4 {
		return g.netLeaf()
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.pick(5) {
	case 0:
		return g.netLeaf()
	case 1:
		return "(" + g.network() + " " + g.one("<<", "<<=", ">>", ">>=", "&&", "&", "|", "-", "=", "<", ">=") + " " + g.network() + ")"
	case 2:
		return "(" + g.network() + " " + g.one("+", "-") + " " + g.integer() + ")"
	case 3:
		return g.one("abbrev", "host", "network", "broadcast", "netmask", "hostmask", "masklen", "family", "text", "~") + "(" + g.network() + ")"
	}
	return g.one("set_masklen", "inet_merge") + "(" + g.network() + ", " + g.one(g.integer(), g.network()) + ")"
}

func (g *sqlGen) netLeaf() string {
	return g.one("ip", "NULL", "'10.1.2.3/8'::inet", "'10/8'::cidr", "'::ffff:1.2.3.4'::inet", "'2001:db8::/32'::cidr",
		"'0.0.0.0/0'::inet", "'255.255.255.255'::inet", "'08:00:2b:01:02:03'::macaddr", "'08:00:2b:01:02:03:04:05'::macaddr8",
		"CAST("+g.text()+" AS inet)")
}

func (g *sqlGen) text() string { return g.one("NULL", "'x'", "''", "'it''s'", "repeat('ab', 3)") }

func (g *sqlGen) integer() string {
	return g.one("0", "1", "-1", "2147483647", "-2147483648", "9223372036854775807", "NULL")
}

// number is a numeric literal, of up to a few hundred digits.
func (g *sqlGen) number() string {
	digits := strings.Repeat(g.one("9", "1", "47909", "0"), 1+g.pick(40))
	switch g.pick(5) {
	case 0:
		return digits
	case 1:
		return "-" + digits + "." + digits
	case 2:
		return digits + "e" + g.one("10", "-10", "400", "-400", "308")
	case 3:
		return "0." + digits
	}
	return g.one("1.5", "0", "1e3", "NULL", "'NaN'::numeric", "'Infinity'::numeric")
}
