package parser

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// TestFastInsertMatchesGeneralPath checks that every statement the fast
// path accepts parses to the same statement on the general path, and that
// the forms it must leave alone fall through to it.
func TestFastInsertMatchesGeneralPath(t *testing.T) {
	taken := []string{
		`INSERT INTO events VALUES ('p', 1, 1, 'payload 1')`,
		`insert into Events values ('p',1,1,'x'),('p',1,2,NULL) ;  `,
		"  INSERT\tINTO public.events (producer, \"Seq\", payload)\nVALUES ('it''s', -5, ''), ('''', 0, 'a''b''''')",
		`INSERT INTO t VALUES (TRUE, false, Null, DEFAULT, 1.50, -0.001, 9223372036854775807, -9223372036854775807)`,
		`INSERT INTO t VALUES ('back\slash', 'ünï', '')`,
		`INSERT INTO "weird ""name""" ("a b") VALUES (1)`,
		`INSERT INTO t_1$x VALUES (1)`,
		`INSERT INTO t VALUES (1), (2) ON CONFLICT DO NOTHING`,
		`insert into t (a, "B") values (1, 'x') on conflict (a, "B") do nothing;`,
	}
	for _, q := range taken {
		if _, ok := fastInsert(q); !ok {
			t.Errorf("fast path refused %q", q)
			continue
		}
		sameParse(t, q)
	}
	left := []string{
		`INSERT INTO t VALUES (1) RETURNING *`,
		`INSERT INTO t VALUES (1) ON CONFLICT (a) DO UPDATE SET b = 1`,
		`INSERT INTO t VALUES (1) ON CONFLICT ON CONSTRAINT c DO NOTHING`,
		`INSERT INTO t VALUES (1) ON CONFLICT (lower(a)) DO NOTHING`,
		`INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING RETURNING *`,
		`INSERT INTO t VALUES (1); SELECT 1`,
		`INSERT INTO t VALUES (1);;`,
		`INSERT INTO t VALUES ($1)`,
		`INSERT INTO t VALUES (1 + 1)`,
		`INSERT INTO t VALUES ('1'::int)`,
		`INSERT INTO t VALUES (E'\n')`,
		`INSERT INTO t VALUES (U&'\0041')`,
		`INSERT INTO t VALUES (B'101')`,
		`INSERT INTO t VALUES ('a'` + "\n" + `'b')`,
		`INSERT INTO t VALUES (1e3)`,
		`INSERT INTO t VALUES (.5)`,
		`INSERT INTO t VALUES (1.)`,
		`INSERT INTO t VALUES (0x1f)`,
		`INSERT INTO t VALUES (1_000)`,
		`INSERT INTO t VALUES (9223372036854775808)`,
		`INSERT INTO t VALUES (-9223372036854775808)`,
		`INSERT INTO t VALUES (1), (1, 2)`,
		`INSERT INTO t VALUES (1, 2), (1)`,
		`INSERT INTO t VALUES (- 1)`,
		`INSERT INTO t VALUES (+1)`,
		`INSERT INTO t VALUES (--1` + "\n)",
		`INSERT INTO t VALUES /* c */ (1)`,
		`INSERT INTO t VALUES ()`,
		`INSERT INTO t VALUES (1`,
		`INSERT INTO t VALUES ('unterminated)`,
		`INSERT INTO t DEFAULT VALUES`,
		`INSERT INTO t SELECT 1`,
		`INSERT INTO t AS x VALUES (1)`,
		`INSERT INTO user VALUES (1)`,
		`INSERT INTO t (key) VALUES (1)`,
		`INSERT INTO t (order) VALUES (1)`,
		`INSERT INTO a.b.c VALUES (1)`,
		`INSERT INTO "" VALUES (1)`,
		`INSERT INTO täble VALUES (1)`,
		`INSERT INTO t VALUES ('` + "\xff" + `')`,
		`INSERT INTO t VALUES ('a` + "\x00" + `b')`,
		`INSERT INTO "a` + "\xff" + `b" VALUES (1)`,
		`INSERT INTO ` + strings.Repeat("x", 64) + ` VALUES (1)`,
		`INSERT INTO t VALUES (now())`,
		`INSERT INTO t VALUES (ARRAY[1])`,
		`INSERT INTO t VALUES (x)`,
		`WITH x AS (SELECT 1) INSERT INTO t VALUES (1)`,
	}
	for _, q := range left {
		if _, ok := fastInsert(q); ok {
			t.Errorf("fast path took %q", q)
		}
	}
}

// TestFastInsertRandom compares the two paths on random VALUES lists.
func TestFastInsertRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"0", "-0", "-0.0", "7", "-7", "2147483648", "-2147483649", "1.5", "-0.25", "00012.3400",
		"'x'", "''", "'a''b'", "'\\'", "'%'", "NULL", "true", "FALSE", "DEFAULT", "'ö'"}
	for range 500 {
		var b strings.Builder
		b.WriteString("INSERT INTO t VALUES ")
		rows := 1 + rng.IntN(4)
		cols := 1 + rng.IntN(4)
		for r := range rows {
			if r > 0 {
				b.WriteString(strings.Repeat(" ", rng.IntN(2)) + ",")
			}
			b.WriteString("(")
			for c := range cols {
				if c > 0 {
					b.WriteString("," + strings.Repeat(" ", rng.IntN(2)))
				}
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			b.WriteString(")")
		}
		sameParse(t, b.String())
	}
}

// sameParse fails unless q parses on both paths to equal statements.
func sameParse(t *testing.T, q string) {
	t.Helper()
	fast, ok := fastInsert(q)
	if !ok {
		return
	}
	general, err := parse(q)
	if err != nil {
		t.Errorf("%q: fast path accepted what the general path rejects: %v", q, err)
		return
	}
	if len(general) != 1 {
		t.Errorf("%q: general path gives %d statements", q, len(general))
		return
	}
	g := general[0]
	if fast.SQL != g.SQL || fast.Pos != g.Pos || fast.NumParams != g.NumParams {
		t.Errorf("%q: fast path gives statement %q at %d, general %q at %d", q, fast.SQL, fast.Pos, g.SQL, g.Pos)
	}
	if f, g := dumpFast(fast.Cmd.(*InsertValues)), dumpInsert(g.AST); f != g {
		t.Errorf("%q:\nfast    %s\ngeneral %s", q, f, g)
	}
	if f, g := fmt.Sprintf("%+v", fast.Cmd.(*InsertValues).OnConflict), fmt.Sprintf("%+v", g.OnConflict); f != g {
		t.Errorf("%q: ON CONFLICT: fast %s, general %s", q, f, g)
	}
}

// dumpFast and dumpInsert print what the engine reads of an INSERT.
func dumpFast(v *InsertValues) string {
	var b strings.Builder
	fmt.Fprintf(&b, "table %q.%q cols", v.Schema, v.Table)
	for _, c := range v.Columns {
		fmt.Fprintf(&b, " %q", c)
	}
	for r := range v.Rows() {
		b.WriteString(" (")
		for _, lit := range v.Values[r*v.Width : (r+1)*v.Width] {
			b.WriteString(" ")
			switch lit.Kind {
			case LitNull:
				b.WriteString("null")
			case LitString:
				fmt.Fprintf(&b, "str:%q", lit.Text)
			case LitInteger:
				i, err := strconv.ParseInt(lit.Text, 10, 64)
				if err != nil {
					panic(err)
				}
				fmt.Fprintf(&b, "int:%d", i)
			case LitDecimal:
				b.WriteString("dec:" + canonicalDecimal(lit.Text))
			case LitTrue:
				b.WriteString("true")
			case LitFalse:
				b.WriteString("false")
			case LitDefault:
				b.WriteString("default")
			}
		}
		b.WriteString(" )")
	}
	return b.String()
}

func dumpInsert(n ast.StmtNode) string {
	ins, ok := n.(*ast.InsertStmt)
	if !ok {
		return fmt.Sprintf("%T", n)
	}
	if ins.Table.TableRefs.Right != nil || ins.Select != nil {
		return "not VALUES into one table"
	}
	var b strings.Builder
	tn := ins.Table.TableRefs.Left.(*ast.TableSource).Source.(*ast.TableName)
	fmt.Fprintf(&b, "table %q.%q cols", tn.Schema.O, tn.Name.O)
	for _, c := range ins.Columns {
		fmt.Fprintf(&b, " %q", c.Name.O)
	}
	for _, row := range ins.Lists {
		b.WriteString(" (")
		for _, e := range row {
			b.WriteString(" " + dumpValue(e, ""))
		}
		b.WriteString(" )")
	}
	return b.String()
}

func dumpValue(e ast.ExprNode, sign string) string {
	switch e := e.(type) {
	case *driver.ValueExpr:
		switch v := e.GetValue().(type) {
		case nil:
			if sign == "" {
				return "null"
			}
		case int64:
			if e.Type.GetFlag()&mysql.IsBooleanFlag != 0 {
				if sign == "" {
					return map[bool]string{true: "true", false: "false"}[v != 0]
				}
				break
			}
			if sign == "-" {
				v = -v
			}
			return fmt.Sprintf("int:%d", v)
		case *driver.MyDecimal:
			return "dec:" + canonicalDecimal(sign+v.String())
		case string:
			if sign == "" {
				return fmt.Sprintf("str:%q", v)
			}
		}
		return fmt.Sprintf("%s%T", sign, e.GetValue())
	case *ast.UnaryOperationExpr:
		if e.Op == opcode.Minus && sign == "" {
			return dumpValue(e.V, "-")
		}
	case *ast.DefaultExpr:
		if e.Name == nil && sign == "" {
			return "default"
		}
	}
	return fmt.Sprintf("%s%T", sign, e)
}

func canonicalDecimal(s string) string {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return "bad decimal " + s
	}
	return d.String()
}
