package plan

import (
	"slices"

	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
)

// Views in FROM. A view's query is planned on its own, when a query that
// reads the view is planned, and read as a derived table.

// PlanViewQuery plans a view's query on its own: not inside the query that
// reads the view, whose WITH queries and columns it cannot see. views are
// the views whose queries are being planned around it, innermost last.
func PlanViewQuery(s Host, sql string, path *catalog.Path, views []uint32) (QueryPlan, error) {
	return planViewQuery(s, sql, path, views, nil)
}

// ViewUses plans v's query as a query that reads v would, telling uses
// of the overloads of extensions it compiles (Compiler.Uses), but not of
// those of the views it reads, which depend on them themselves.
func ViewUses(s Host, v *catalog.View, uses func(name string, o *builtins.Overload)) error {
	_, err := planViewQuery(s, v.SQL, ViewPath(v), []uint32{v.ID}, uses)
	return err
}

func planViewQuery(s Host, sql string, path *catalog.Path, views []uint32, uses func(string, *builtins.Overload)) (QueryPlan, error) {
	stmts, err := parser.Parse(sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 || stmts[0].AST == nil {
		return nil, pgerr.New(pgerr.InternalError, "view query %q does not parse to one query", sql)
	}
	st := stmts[0]
	var params []types.T
	c := &Compiler{Host: s, Params: &params, Order: st.ParamOrder, Scope: &Scope{}, views: views, path: path, Uses: uses}
	return c.PlanQuery(st.AST)
}

// ViewPath is the search path v's query is planned on: the one it was
// made under, or for a view made before schemas, public's.
func ViewPath(v *catalog.View) *catalog.Path {
	p := catalog.Path{Schemas: v.Path}
	if len(p.Schemas) == 0 {
		p.Schemas = []uint32{catalog.PgCatalogID, catalog.PublicID}
	}
	for _, nsp := range p.Schemas {
		if nsp != catalog.PgCatalogID && nsp != catalog.InfoSchemaID {
			p.Create = nsp
			break
		}
	}
	return &p
}

// SearchPath is the search path the statement being compiled looks names
// up on.
func (c *Compiler) SearchPath() catalog.Path {
	if c.path != nil {
		return *c.path
	}
	return c.Host.SearchPath()
}

// planView plans a FROM item that names a view. Its columns are those it
// was made with: a * in its query that now reads more (a column added to
// a table since) gives only the first ones, as PostgreSQL expands * once.
func (c *Compiler) planView(v *catalog.View, alias string) (Source, *Scope, error) {
	if slices.Contains(c.views, v.ID) {
		return nil, nil, pgerr.New(pgerr.InvalidObjectDefinition, "infinite recursion detected in rules for relation %q", v.Name)
	}
	qp, err := PlanViewQuery(c.Host, v.SQL, ViewPath(v), append(slices.Clip(c.views), v.ID))
	if err != nil {
		return nil, nil, err
	}
	cols := qp.Columns()
	if len(cols) < len(v.Columns) {
		return nil, nil, pgerr.New(pgerr.InternalError, "view %q no longer matches its definition", v.Name)
	}
	out := make([]Column, len(v.Columns))
	for i, vc := range v.Columns {
		out[i] = cols[i]
		out[i].Name = vc.Name
	}
	var src Source = &derived{plan: qp, alias: alias}
	if len(cols) > len(out) {
		src = &narrowed{in: src, width: len(out)}
	}
	return src, queryScope(out, alias), nil
}

// narrowed passes on the first width columns of its input's rows.
type narrowed struct {
	in    Source
	width int
}

func (n *narrowed) Open(x *ExecCtx) (rowexec.RowIter, error) {
	it, err := open(x, n.in)
	if err != nil {
		return nil, err
	}
	return &rowexec.FuncIter{F: func() ([]any, error) {
		row, err := it.Next()
		if row == nil || err != nil {
			it.Close()
			return nil, err
		}
		return row[:n.width:n.width], nil
	}}, nil
}

func (n *narrowed) Describe(e *Explainer) *Node {
	d := e.Node(n.in)
	if len(d.cols) >= n.width {
		d.cols = d.cols[:n.width]
	}
	return d
}
