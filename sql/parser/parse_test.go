package parser

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output in testdata/parse.test")

// TestParse runs the cases of testdata/parse.test. Each case is the
// directive "parse", the query on the following lines, a "----" line, and
// the expected description up to a blank line. Run with -rewrite to
// regenerate the descriptions.
func TestParse(t *testing.T) {
	const path = "testdata/parse.test"
	cases, err := readCases(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, c := range cases.queries() {
		sameParse(t, c.query)
		got := describeQuery(c.query)
		if *rewrite {
			out.WriteString(c.before + "parse\n" + c.query + "\n----\n" + got + "\n\n")
			continue
		}
		if got != c.want {
			t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", path, c.line, c.query, got, c.want)
		}
	}
	if *rewrite {
		text := strings.TrimRight(out.String()+cases[len(cases)-1].before, "\n") + "\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type testCase struct {
	before string // the comments and blank lines before the case
	line   int
	query  string
	want   string
}

// testCases ends with a case holding only what follows the last query.
type testCases []testCase

func (cs testCases) queries() testCases { return cs[:len(cs)-1] }

func readCases(path string) (testCases, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var cases testCases
	var before strings.Builder
	for i := 0; i < len(lines); i++ {
		if lines[i] != "parse" {
			before.WriteString(lines[i] + "\n")
			continue
		}
		c := testCase{before: before.String(), line: i + 1}
		before.Reset()
		j := i + 1
		for j < len(lines) && lines[j] != "----" {
			j++
		}
		if j == len(lines) {
			return nil, fmt.Errorf("%s:%d: no ---- line", path, c.line)
		}
		c.query = strings.Join(lines[i+1:j], "\n")
		k := j + 1
		for k < len(lines) && lines[k] != "" {
			k++
		}
		c.want = strings.Join(lines[j+1:k], "\n")
		cases = append(cases, c)
		i = k // the blank line that ends the case
	}
	return append(cases, testCase{before: before.String()}), nil
}

// describeQuery parses a query and describes the result for a person.
func describeQuery(query string) string {
	var b strings.Builder
	stmts, err := parse(query) // the general path, whose rewrite the cases show
	if err != nil {
		var pe *pgerr.Error
		if !errors.As(err, &pe) {
			return fmt.Sprintf("error of type %T: %v", err, err)
		}
		fmt.Fprintf(&b, "error %s: %s", pe.Code, pe.Message)
		if pe.Hint != "" {
			fmt.Fprintf(&b, "\nhint: %s", pe.Hint)
		}
		if pe.Position > 0 {
			b.WriteString("\n" + caret(query, pe.Position))
		}
		return b.String()
	}
	if len(stmts) == 0 {
		return "no statements"
	}
	for _, st := range stmts {
		if len(stmts) > 1 || st.SQL != strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(query), ";")) {
			fmt.Fprintf(&b, "statement at %d: %s\n", st.Pos, st.SQL)
		}
		describe(&b, st, "")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// caret shows the 1-based character position pos under its line.
func caret(query string, pos int) string {
	runes := []rune(query)
	off := min(pos-1, len(runes))
	start := off
	for start > 0 && runes[start-1] != '\n' {
		start--
	}
	end := off
	for end < len(runes) && runes[end] != '\n' {
		end++
	}
	return fmt.Sprintf("position %d:\n  %s\n  %s^", pos, string(runes[start:end]), strings.Repeat(" ", off-start))
}

func describe(b *strings.Builder, st *Statement, indent string) {
	line := func(format string, args ...any) {
		b.WriteString(indent + fmt.Sprintf(format, args...) + "\n")
	}
	labels := []string{"tidb"}
	if st.With != nil {
		labels = []string{"tidb with", "tidb"}
	}
	if st.OnConflict != nil && !st.OnConflict.DoNothing {
		labels = append(labels, "tidb on conflict")
	}
	if st.Returning != nil {
		labels = append(labels, "tidb returning")
	}
	for i, s := range st.tidbSQL {
		line("%s: %s", labels[i], s)
	}
	if st.AST != nil {
		line("ast: %s", restore(st.AST))
	}
	for i, sub := range st.WithDML {
		line("with dml %d: %s", i, sub.SQL)
		describe(b, sub, indent+"  ")
	}
	if st.NumParams > 0 || len(st.ParamOrder) > 0 {
		line("params: %d, order %v", st.NumParams, st.ParamOrder)
	}
	if st.ColumnTypes != nil {
		line("column types: %s", strings.Join(st.ColumnTypes, ", "))
	}
	if st.Temp {
		line("temporary")
	}
	if st.OnCommit != OnCommitNone {
		line("on commit: %s", [...]string{OnCommitPreserve: "preserve rows", OnCommitDelete: "delete rows", OnCommitDrop: "drop"}[st.OnCommit])
	}
	if st.IndexPredicate != nil {
		line("index predicate: %s", restore(st.IndexPredicate.AST))
	}
	if st.Cascade {
		line("cascade")
	}
	if st.Overriding != "" {
		line("overriding %s value", st.Overriding)
	}
	if o := st.OwnedBy; o != nil {
		line("owned by %q.%q", o.Table, o.Column)
	}
	for _, d := range st.DeferrableFKs {
		line("deferrable: %v -> %s, initially deferred %v", d.Columns, d.Table, d.InitiallyDeferred)
	}
	if st.Options != nil {
		var opts []string
		for _, o := range st.Options {
			opts = append(opts, o.Name+"="+o.Value)
		}
		line("options: %s", strings.Join(opts, ", "))
	}
	if st.Returning != nil {
		line("returning: %s", restore(st.Returning))
	}
	if oc := st.OnConflict; oc != nil {
		s := fmt.Sprintf("on conflict %v", oc.Columns)
		if oc.DoNothing {
			s += " do nothing"
		}
		for _, a := range oc.Set {
			s += " set " + restore(a)
		}
		if oc.Where != nil {
			s += " where " + restore(oc.Where)
		}
		line("%s", s)
	}
	if st.Cmd != nil {
		line("cmd: %s", dump(st.Cmd))
		v := reflect.ValueOf(st.Cmd).Elem()
		for i := 0; i < v.NumField(); i++ {
			if nested, ok := v.Field(i).Interface().(*Statement); ok && nested != nil {
				line("%s at %d: %s", strings.ToLower(v.Type().Field(i).Name), nested.Pos, nested.SQL)
				describe(b, nested, indent+"  ")
			}
		}
	}
}

// restore prints TiDB's reading of a node, which shows its grouping.
func restore(n ast.Node) string {
	var b strings.Builder
	flags := format.RestoreStringSingleQuotes | format.RestoreKeyWordUppercase | format.RestoreNameDoubleQuotes |
		format.RestoreStringWithoutCharset
	if err := n.Restore(format.NewRestoreCtx(flags, &b)); err != nil {
		return "restore error: " + err.Error()
	}
	return b.String()
}

// dump prints a command struct with its non-zero fields.
func dump(cmd any) string {
	v := reflect.ValueOf(cmd).Elem()
	var fields []string
	for i := 0; i < v.NumField(); i++ {
		f, name := v.Field(i), v.Type().Field(i).Name
		if _, nested := f.Interface().(*Statement); f.IsZero() || nested {
			continue
		}
		switch f.Kind() {
		case reflect.Pointer:
			fields = append(fields, fmt.Sprintf("%s:%q", name, f.Elem().Interface()))
		case reflect.String:
			fields = append(fields, fmt.Sprintf("%s:%q", name, f.Interface()))
		default:
			fields = append(fields, fmt.Sprintf("%s:%v", name, f.Interface()))
		}
	}
	return v.Type().Name() + "{" + strings.Join(fields, " ") + "}"
}

// TestASTNodes walks TiDB's AST for the mis-parses DESIGN.md warns about:
// left to TiDB's defaults, $1 is a column and "id" a string.
func TestASTNodes(t *testing.T) {
	stmts, err := Parse(`SELECT "id", "Name" FROM t WHERE "id" = $2 AND v = $1 AND w = $2`)
	if err != nil {
		t.Fatal(err)
	}
	st := stmts[0]
	sel := st.AST.(*ast.SelectStmt)
	for i, want := range []string{"id", "Name"} {
		col, ok := sel.Fields.Fields[i].Expr.(*ast.ColumnNameExpr)
		if !ok {
			t.Fatalf("field %d is %T, want *ast.ColumnNameExpr", i, sel.Fields.Fields[i].Expr)
		}
		if col.Name.Name.O != want {
			t.Errorf("field %d is %q, want %q", i, col.Name.Name.O, want)
		}
	}
	var v collector
	sel.Where.Accept(&v)
	if len(v.columns) != 3 || v.columns[0] != "id" || v.columns[1] != "v" || v.columns[2] != "w" {
		t.Errorf("WHERE columns %v, want [id v w]", v.columns)
	}
	if len(v.markers) != 3 {
		t.Fatalf("WHERE has %d parameter markers, want 3", len(v.markers))
	}
	for i, m := range v.markers {
		if m.Order != i {
			t.Errorf("marker %d has Order %d", i, m.Order)
		}
	}
	if want := []int{1, 0, 1}; !reflect.DeepEqual(st.ParamOrder, want) {
		t.Errorf("ParamOrder %v, want %v", st.ParamOrder, want)
	}
	if st.NumParams != 2 {
		t.Errorf("NumParams %d, want 2", st.NumParams)
	}
}

// TestParamOrderAcrossClauses checks the marker numbering of a statement
// whose RETURNING and ON CONFLICT TiDB parses separately.
func TestParamOrderAcrossClauses(t *testing.T) {
	stmts, err := Parse(`INSERT INTO t (a, b) VALUES ($3, $1) ON CONFLICT (a) DO UPDATE SET b = $2 RETURNING a + $4`)
	if err != nil {
		t.Fatal(err)
	}
	st := stmts[0]
	if want := []int{2, 0, 1, 3}; !reflect.DeepEqual(st.ParamOrder, want) {
		t.Errorf("ParamOrder %v, want %v", st.ParamOrder, want)
	}
	var v collector
	st.AST.Accept(&v)
	for _, a := range st.OnConflict.Set {
		a.Accept(&v)
	}
	st.Returning.Accept(&v)
	for i, m := range v.markers {
		if m.Order != i {
			t.Errorf("marker %d has Order %d", i, m.Order)
		}
	}
	if len(v.markers) != 4 {
		t.Errorf("%d markers, want 4", len(v.markers))
	}
}

// collector gathers column names and parameter markers in visiting order.
type collector struct {
	columns []string
	markers []*driver.ParamMarkerExpr
}

func (v *collector) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.ColumnNameExpr:
		v.columns = append(v.columns, n.Name.Name.O)
	case *driver.ParamMarkerExpr:
		v.markers = append(v.markers, n)
	}
	return n, false
}

func (v *collector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// BenchmarkParse measures the statements of pgbench's TPC-B script.
func BenchmarkParse(b *testing.B) {
	queries := []string{
		"UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;",
		"SELECT abalance FROM pgbench_accounts WHERE aid = $1;",
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP);",
		"BEGIN;",
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
	}
}
