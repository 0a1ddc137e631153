package plan

import (
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// tableOID reads the system column tableoid of a table or catalog in
// FROM: the oid of the relation a row comes from, which pg_dump reads of
// every catalog it lists. A table's row is the one scope column after its
// columns that names the relation (the hidden key); a subquery or a
// function in FROM has none, as in PostgreSQL.
func (c *Compiler) tableOID(table, name string) (Expr, bool, error) {
	if name != "tableoid" {
		return nil, false, nil
	}
	var e *tableOIDExpr
	for i, col := range c.Scope.Cols {
		if col.Name != HiddenKey || col.TableOID == 0 || (table != "" && col.Table != table) {
			continue
		}
		if e != nil {
			return nil, false, pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name)
		}
		e = &tableOIDExpr{key: i, oid: int64(col.TableOID)}
	}
	if e == nil {
		return nil, false, nil
	}
	if c.lvl != nil {
		c.lvl.refs++
	}
	return e, true, nil
}

// tableOIDExpr is tableoid: the oid of the relation the row comes from,
// and NULL in a row an outer join padded, whose hidden key is NULL. Rows
// of catalogs and sequences carry presentKey there for that reason.
type tableOIDExpr struct {
	key int // the hidden key's place in the row
	oid int64
}

func (e *tableOIDExpr) Type() types.T { return types.OidType }

func (e *tableOIDExpr) Eval(env *Env) (any, error) {
	if env.Row[e.key] == nil {
		return nil, nil
	}
	return e.oid, nil
}

// PresentKey fills the hidden key slot of a row that has no key, a
// catalog's or a sequence's, to tell it from a NULL-padded one.
var PresentKey = []byte{}

// nameSubscript is name[i]: a name is a fixed array of NAMEDATALEN
// "char"s from 0, NUL past its end, as pg_dump's typname[0] = '_' reads it.
func (c *Compiler) nameSubscript(name Expr, index ast.ExprNode) (Expr, error) {
	i, err := c.CompileAs(index, types.Int4)
	if err != nil {
		return nil, err
	}
	return &FuncExpr{Name: "subscript", T: types.Char, Args: []Expr{name, i}, Strict: true, Fn: func(_ *Env, a []any) (any, error) {
		s, k := a[0].(string), a[1].(int64)
		switch {
		case k < 0 || k >= namedatalen:
			return nil, nil
		case k >= int64(len(s)):
			return "", nil
		}
		return s[k : k+1], nil
	}}, nil
}

// namedatalen is the size of a name, its NUL included.
const namedatalen = 64

// optionsToTable is pg_options_to_table(options): a reloptions-style
// array of name=value, split at the first '='.
func (c *Compiler) optionsToTable(n *ast.FuncCallExpr) (*TableFunc, error) {
	if len(n.Args) != 1 {
		return nil, ArgCountErr(n, nil)
	}
	arr, err := c.CompileAs(n.Args[0], types.TextArray)
	if err != nil {
		return nil, err
	}
	t := types.RecordOf([]types.Field{{Name: "option_name", T: types.Text}, {Name: "option_value", T: types.Text}})
	return &TableFunc{Name: "pg_options_to_table", T: t, args: []Expr{arr}, Rows: func(a []any) ([]any, error) {
		var out []any
		for _, o := range a[0].([]any) {
			if o == nil {
				continue
			}
			name, value, ok := strings.Cut(o.(string), "=")
			if ok {
				out = append(out, []any{name, value})
			} else {
				out = append(out, []any{name, nil})
			}
		}
		return out, nil
	}}, nil
}

// seqSource reads a sequence as a relation, one row of its state, as
// pg_dump does to dump where the sequence has got to.
type seqSource struct{ q *catalog.Sequence }

var seqColumns = []struct {
	name string
	t    types.T
}{{"last_value", types.Int8}, {"log_cnt", types.Int8}, {"is_called", types.Bool}}

func seqScope(q *catalog.Sequence, alias string) *Scope {
	sc := &Scope{}
	for i, c := range seqColumns {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: c.name, T: c.t, TableOID: q.ID, AttNum: int16(i + 1)})
	}
	sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: HiddenKey, T: types.Bytea, TableOID: q.ID})
	return sc
}

func (ss *seqSource) Explain(indent string) string { return indent + "Seq Scan on " + ss.q.Name }

func (ss *seqSource) Open(x *ExecCtx) (rowexec.RowIter, error) {
	last, called, err := x.Host.PeekSequence(ss.q)
	if err != nil {
		return nil, err
	}
	// log_cnt counts values logged ahead; epochdb reserves blocks instead.
	return &rowexec.SliceIter{Rows: [][]any{{last, int64(0), called, PresentKey}}}, nil
}
