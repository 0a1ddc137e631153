package plan

import (
	"slices"

	"sync"

	"github.com/epochdb/epochdb/sql/pgerr"
	tidb "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Expressions the catalog keeps as SQL: defaults, generated columns,
// CHECK constraints, index expressions and predicates. StoredExpr prints
// one as the catalog keeps it, ParseExpr reads it back, and ColumnsNamed
// lists the columns it names, which DDL's dependency checks follow.

// StoredExpr prints n as SQL that ParseExpr reads back. TiDB's grammar
// gives nextval and its kin a special form that takes a table name, so
// calls of them must print as quoted, ordinary calls.
func StoredExpr(n ast.ExprNode) string {
	n.Accept(genericCalls{})
	return Restore(n)
}

type genericCalls struct{}

func (genericCalls) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok {
		switch f.FnName.L {
		case "nextval", "setval", "lastval", "currval", "digest":
			f.Tp = ast.FuncCallExprTypeGeneric
		}
	}
	return n, false
}

func (genericCalls) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// ParseExpr parses a stored expression (TiDB SQL, as StoredExpr printed it).
func ParseExpr(sql string) (ast.ExprNode, error) {
	p := tidbParsers.Get().(*tidb.Parser)
	defer tidbParsers.Put(p)
	stmts, _, err := p.Parse("SELECT "+sql, "", "")
	if err != nil || len(stmts) != 1 {
		return nil, pgerr.New(pgerr.InternalError, "stored expression %q does not parse: %v", sql, err)
	}
	return stmts[0].(*ast.SelectStmt).Fields.Fields[0].Expr, nil
}

var tidbParsers = sync.Pool{New: func() any {
	p := tidb.New()
	p.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes)
	return p
}}

// ColumnsNamed lists the distinct column names an expression uses.
func ColumnsNamed(n ast.ExprNode) []string {
	v := &columnCollector{}
	n.Accept(v)
	return v.names
}

type columnCollector struct{ names []string }

func (v *columnCollector) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok && !slices.Contains(v.names, c.Name.Name.O) {
		v.names = append(v.names, c.Name.Name.O)
	}
	return n, false
}

func (v *columnCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// TableNameFinder collects the relations a query names, less those its
// WITH clauses define, and the names given to nextval and its kin, as
// written (qualified or not).
type TableNameFinder struct {
	Tables    []Ref
	Sequences []string
	// Calls are the calls of functions that may be user-defined: those
	// that name no system schema.
	Calls []Call
	ctes  []string
}

// Call is a function call as a query writes it: its name, qualified or
// not, and its number of arguments.
type Call struct {
	Schema, Name string
	Args         int
}

// Ref is a relation's name as a query writes it: Schema is "" if the
// name is not qualified.
type Ref struct{ Schema, Name string }

func (f *TableNameFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.TableName:
		if n.Schema.O != "" || !slices.Contains(f.ctes, n.Name.O) {
			f.Tables = append(f.Tables, Ref{n.Schema.O, n.Name.O})
		}
	case *ast.CommonTableExpression:
		f.ctes = append(f.ctes, n.Name.O)
	case *ast.FuncCallExpr:
		if v := sequenceArg(n); v != nil {
			f.Sequences = append(f.Sequences, v.GetString())
		}
		if n.Schema.O == "" || !systemCall(n) {
			f.Calls = append(f.Calls, Call{n.Schema.O, n.FnName.O, len(n.Args)})
		}
	}
	return n, false
}

// sequenceArg is the literal that names the sequence a call of nextval or
// its kin reads, if the call has one: 'seq', or 'seq'::regclass as
// PostgreSQL stores it and pg_dump writes it.
func sequenceArg(n *ast.FuncCallExpr) *driver.ValueExpr {
	switch n.FnName.L {
	case "nextval", "currval", "setval":
	default:
		return nil
	}
	if len(n.Args) == 0 {
		return nil
	}
	arg := n.Args[0]
	if c, ok := arg.(*ast.FuncCallExpr); ok && c.FnName.L == "epochdb_cast" && len(c.Args) > 0 {
		arg = c.Args[0]
	}
	if v, ok := arg.(*driver.ValueExpr); ok {
		if _, ok := v.GetValue().(string); ok {
			return v
		}
	}
	return nil
}

// BindSequences makes each sequence name that n gives nextval and its kin
// the name bind returns for it: a stored expression names its sequences
// qualified, as PostgreSQL's stored regclass constants name them by oid,
// so that they read the same sequence whatever the search path.
func BindSequences(n ast.ExprNode, bind func(name string) string) {
	n.Accept(sequenceBinder(bind))
}

type sequenceBinder func(string) string

func (b sequenceBinder) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok {
		if v := sequenceArg(f); v != nil {
			v.SetString(b(v.GetString()))
		}
	}
	return n, false
}

func (b sequenceBinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func (f *TableNameFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// BindTypes makes the type each cast in n names the name bind returns
// for it: a stored expression names the types the catalogs define (enum
// types, extensions' types) qualified, as PostgreSQL's stored casts name
// them by oid, so that it reads the same types whatever the search path.
func BindTypes(n ast.ExprNode, bind func(name string) string) {
	n.Accept(typeBinder(bind))
}

type typeBinder func(string) string

func (b typeBinder) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == "epochdb_cast" && len(f.Args) == 2 {
		if v, ok := f.Args[1].(*driver.ValueExpr); ok {
			v.SetString(b(v.GetString()))
		}
	}
	return n, false
}

func (b typeBinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
