package sql

import (
	"context"
	"slices"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/builtins"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Functions in FROM. The parser writes FROM f(args) alias(c, ...) as the
// derived table (SELECT epochdb_table(f(args), 'c', ...)) AS alias; its
// rows are the values f returns, in one column named by the alias (or c),
// or for a function returning records, a column per field (named by the
// fields, or c, ...). The arguments may read the enclosing queries' rows,
// not the other FROM items' (that would be LATERAL).

// tableFuncCall returns the call of a function in FROM, or nil if n is
// something else.
func tableFuncCall(n *ast.TableSource) *ast.FuncCallExpr {
	sel, ok := n.Source.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.From != nil {
		return nil
	}
	f, ok := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	if !ok || !isTableMarker(f.FnName.L) || len(f.Args) == 0 {
		return nil
	}
	call, _ := f.Args[0].(*ast.FuncCallExpr)
	return call
}

// isTableMarker reports whether name is the parser's marker of a function
// in FROM.
func isTableMarker(name string) bool {
	return name == "epochdb_table" || name == "epochdb_table_ordinality"
}

// withOrdinality reports whether a function in FROM is WITH ORDINALITY.
func withOrdinality(n *ast.TableSource) bool {
	return n.Source.(*ast.SelectStmt).Fields.Fields[0].Expr.(*ast.FuncCallExpr).FnName.L == "epochdb_table_ordinality"
}

// columnAliases returns the column aliases of a function in FROM.
func columnAliases(n *ast.TableSource) []string {
	f := n.Source.(*ast.SelectStmt).Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	var names []string
	for _, a := range f.Args[1:] {
		names = append(names, a.(*driver.ValueExpr).GetString())
	}
	return names
}

// tableFunc produces a set-returning function's rows from its evaluated
// arguments.
type tableFunc struct {
	name string
	t    types.T
	args []expr
	rows func(args []any) ([]any, error)
	// series, when set instead of rows, yields the values one at a time,
	// so that a long series in FROM is never held in memory whole.
	series func(e *env, args []any) (next func() (any, bool, error), err error)
	// column names the one column of a function of scalar results that
	// has a name of its own (an OUT parameter: jsonb_array_elements's
	// value); others take the FROM item's alias.
	column string
	// ordinality adds a last column numbering the rows from 1 (WITH
	// ORDINALITY).
	ordinality bool
}

func (f *tableFunc) explain(indent string) string { return indent + "Function Scan on " + f.name }

// values calls the function with its arguments evaluated in e.
func (f *tableFunc) values(e *env) ([]any, error) {
	next, err := f.iterate(e)
	if err != nil {
		return nil, err
	}
	var out []any
	for {
		v, ok, err := next()
		if !ok || err != nil {
			return out, err
		}
		out = append(out, v)
		if len(out)%4096 == 0 && e.ctx.Err() != nil {
			return nil, pgerr.Convert(context.Cause(e.ctx))
		}
	}
}

// iterate calls the function with its arguments evaluated in e, and
// returns its values one at a time.
func (f *tableFunc) iterate(e *env) (next func() (any, bool, error), err error) {
	vals, err := f.evalArgs(e)
	if err != nil {
		return nil, err
	}
	if vals == nil {
		return func() (any, bool, error) { return nil, false, nil }, nil
	}
	if f.series != nil {
		return f.series(e, vals)
	}
	out, err := f.rows(vals)
	if err != nil {
		return nil, err
	}
	return func() (any, bool, error) {
		if len(out) == 0 {
			return nil, false, nil
		}
		v := out[0]
		out = out[1:]
		return v, true, nil
	}, nil
}

// evalArgs evaluates the arguments, or returns nil if one is NULL: the
// functions are strict, and give no rows then.
func (f *tableFunc) evalArgs(e *env) ([]any, error) {
	vals := make([]any, len(f.args))
	for i, a := range f.args {
		v, err := a.eval(e)
		if v == nil || err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// open reads the function in FROM: a record's fields are columns.
func (f *tableFunc) open(x *execCtx) (rowIter, error) {
	if f.series != nil {
		return f.openSeries(x)
	}
	out, err := f.values(x.env(nil))
	if err != nil {
		return nil, err
	}
	_, record := f.t.Fields()
	rows := make([][]any, len(out))
	for i, v := range out {
		if record {
			rows[i] = v.([]any)
		} else {
			rows[i] = []any{v}
		}
		if f.ordinality {
			rows[i] = append(slices.Clip(rows[i]), int64(i+1))
		}
	}
	return &sliceIter{rows: rows}, nil
}

// openSeries reads a function that yields its values one at a time.
func (f *tableFunc) openSeries(x *execCtx) (rowIter, error) {
	e := x.env(nil)
	vals, err := f.evalArgs(e)
	if vals == nil || err != nil {
		return &sliceIter{}, err
	}
	next, err := f.series(e, vals)
	if err != nil {
		return nil, err
	}
	n := int64(0)
	_, record := f.t.Fields()
	return &funcIter{f: func() ([]any, error) {
		v, ok, err := next()
		if !ok || err != nil {
			return nil, err
		}
		n++
		row := []any{v}
		if record {
			row = slices.Clip(v.([]any))
		}
		if f.ordinality {
			row = append(row, n)
		}
		return row, nil
	}}, nil
}

func (c *compiler) planTableFunc(n *ast.TableSource, call *ast.FuncCallExpr) (source, *scope, error) {
	if call.FnName.L == "epochdb_producer_begin" {
		return c.planProducerBegin(n, call)
	}
	f, err := c.withScope(&scope{}).compileTableFunc(call)
	if err != nil {
		return nil, nil, err
	}
	alias, names := n.AsName.O, columnAliases(n)
	cols := []scopeCol{{table: alias, name: alias, t: f.t, funcValue: true}}
	if f.column != "" {
		cols[0].name = f.column
	}
	if fields, ok := f.t.Fields(); ok {
		cols = cols[:0]
		for _, fl := range fields {
			cols = append(cols, scopeCol{table: alias, name: fl.Name, t: fl.T})
		}
	}
	if f.ordinality = withOrdinality(n); f.ordinality {
		cols = append(cols, scopeCol{table: alias, name: "ordinality", t: types.Int8})
	}
	if len(names) > len(cols) {
		return nil, nil, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", alias, len(cols), len(names))
	}
	for i, name := range names {
		cols[i].name = name
	}
	return f, &scope{cols: cols}, nil
}

// isTableFunc reports whether name is a set-returning function that
// compileTableFunc compiles.
func isTableFunc(name string) bool {
	return name == "generate_series" || name == "unnest" || name == "_pg_expandarray" || name == "pg_partition_ancestors" ||
		name == "pg_listening_channels" || name == "pg_options_to_table" || builtins.ReturnsSet(name)
}

// compileTableFunc compiles a call of a set-returning function that
// computes its rows from its arguments alone.
func (c *compiler) compileTableFunc(call *ast.FuncCallExpr) (*tableFunc, error) {
	switch call.FnName.L {
	case "generate_series":
		return c.generateSeries(call)
	case "unnest":
		return c.unnest(call)
	case "_pg_expandarray":
		return c.expandArray(call)
	case "pg_partition_ancestors":
		return c.partitionAncestors(call)
	case "pg_options_to_table":
		return c.optionsToTable(call)
	}
	if call.FnName.L == "pg_listening_channels" {
		return c.listeningChannels(call)
	}
	if name := call.FnName.L; builtins.ReturnsSet(name) {
		return c.tableFuncOverloaded(call, name, builtins.Lookup(name))
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "function %s in FROM is not supported", call.FnName.L)
}

// generateSeries is generate_series(start, stop[, step]) over integers,
// numeric, or timestamps (timestampSeries).
func (c *compiler) generateSeries(n *ast.FuncCallExpr) (*tableFunc, error) {
	if len(n.Args) != 2 && len(n.Args) != 3 {
		return nil, argCountErr(n, nil)
	}
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, err
	}
	if len(args) == 3 && (args[2].typ().Oid == types.OidInterval || timeRank(args[0].typ().Oid) > 0 || timeRank(args[1].typ().Oid) > 0) {
		return c.timestampSeries(args)
	}
	t := types.Unknown
	for _, a := range args {
		u, ok := unify(t, a.typ())
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function generate_series(%s, %s) does not exist", args[0].typ(), a.typ())
		}
		t = u
	}
	switch {
	case t.Oid == types.OidInt2 || t.Oid == types.OidText:
		t = types.Int4 // literals and smallints pick the int4 version
	case t.Oid == types.OidFloat4 || t.Oid == types.OidFloat8:
		t = types.Numeric
	case t.Oid == types.OidTime:
		return nil, noFunction("generate_series", args)
	case t.Oid != types.OidInt4 && t.Oid != types.OidInt8 && t.Oid != types.OidNumeric:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "generate_series over %s is not supported", t)
	}
	for i := range args {
		if args[i], err = c.coerce(args[i], t); err != nil {
			return nil, err
		}
	}
	// The values come one at a time: a series may be long, and a LIMIT
	// may want few of them.
	return &tableFunc{name: "generate_series", t: t, args: args, series: func(_ *env, a []any) (func() (any, bool, error), error) {
		if t.Oid == types.OidNumeric {
			return numericSeries(a)
		}
		v, stop, step := a[0].(int64), a[1].(int64), int64(1)
		if len(a) == 3 {
			step = a[2].(int64)
		}
		if step == 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
		}
		done := false
		return func() (any, bool, error) {
			if done || step > 0 && v > stop || step < 0 && v < stop {
				return nil, false, nil
			}
			cur := v
			if next := v + step; (next > v) != (step > 0) {
				done = true // the next value would overflow
			} else {
				v = next
			}
			return cur, true, nil
		}, nil
	}}, nil
}

func numericSeries(a []any) (func() (any, bool, error), error) {
	start, stop, step := a[0].(*apd.Decimal), a[1].(*apd.Decimal), apd.New(1, 0)
	if len(a) == 3 {
		step = a[2].(*apd.Decimal)
	}
	for _, bound := range []struct {
		what string
		d    *apd.Decimal
	}{{"start value", start}, {"stop value", stop}, {"step size", step}} {
		switch bound.d.Form {
		case apd.NaN, apd.NaNSignaling:
			return nil, pgerr.New(pgerr.InvalidParameterValue, "%s cannot be NaN", bound.what)
		case apd.Infinite:
			return nil, pgerr.New(pgerr.InvalidParameterValue, "%s cannot be infinity", bound.what)
		}
	}
	if step.IsZero() {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}
	v := start
	return func() (any, bool, error) {
		if step.Sign() > 0 && v.Cmp(stop) > 0 || step.Sign() < 0 && v.Cmp(stop) < 0 {
			return nil, false, nil
		}
		cur, next := v, new(apd.Decimal)
		if _, err := builtins.NumericContext.Add(next, v, step); err != nil {
			return nil, false, err
		}
		v = next
		return cur, true, nil
	}, nil
}

// partitionAncestors is pg_partition_ancestors(regclass): a partition's
// ancestors, and none for a relation that is no partition, which every
// epochdb table is. psql's \d asks it of tables with foreign keys.
func (c *compiler) partitionAncestors(n *ast.FuncCallExpr) (*tableFunc, error) {
	if len(n.Args) != 1 {
		return nil, argCountErr(n, nil)
	}
	args, err := compileArgs(c, n)
	if err != nil {
		return nil, err
	}
	regclass := types.T{Oid: types.OidRegclass, Mod: -1}
	if args[0], err = c.coerce(args[0], regclass); err != nil {
		return nil, err
	}
	return &tableFunc{name: "pg_partition_ancestors", t: regclass, args: args, rows: func([]any) ([]any, error) {
		return nil, nil
	}}, nil
}

// expandArray is information_schema._pg_expandarray(array): a record
// (x, n) per element, x the element and n its position from 1. pgjdbc
// reads index columns with it.
func (c *compiler) expandArray(n *ast.FuncCallExpr) (*tableFunc, error) {
	if len(n.Args) != 1 {
		return nil, argCountErr(n, nil)
	}
	arr, err := arrayOperand(c, n)
	if err != nil {
		return nil, err
	}
	elem, _ := arr.typ().Elem()
	t := types.RecordOf([]types.Field{{Name: "x", T: types.T{Oid: elem.Oid, Mod: -1}}, {Name: "n", T: types.Int4}})
	return &tableFunc{name: "_pg_expandarray", t: t, args: []expr{arr}, rows: func(a []any) ([]any, error) {
		vals := a[0].([]any)
		out := make([]any, len(vals))
		for i, v := range vals {
			out[i] = []any{v, int64(i + 1)}
		}
		return out, nil
	}}, nil
}

// unnest is unnest(array): the elements, in order.
func (c *compiler) unnest(n *ast.FuncCallExpr) (*tableFunc, error) {
	if len(n.Args) != 1 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "unnest of several arrays is not supported")
	}
	arr, err := arrayOperand(c, n)
	if err != nil {
		return nil, err
	}
	elem, _ := arr.typ().Elem()
	return &tableFunc{name: "unnest", t: elem, args: []expr{arr}, rows: func(a []any) ([]any, error) {
		return a[0].([]any), nil
	}}, nil
}

// timestampPair picks the timestamp or timestamptz version of a function of
// two timestamps (age, date_bin, generate_series): timestamptz if either is
// one, timestamp if either is one and neither is timestamptz, and otherwise
// (dates, literals) timestamptz, PostgreSQL's preferred type. ok is false if
// an argument is no date, timestamp or literal.
func timestampPair(args ...expr) (types.T, bool) {
	t := types.Unknown
	for _, a := range args {
		switch a.typ().Oid {
		case types.OidTimestamptz:
			t = types.Timestamptz
		case types.OidTimestamp:
			if t.Oid != types.OidTimestamptz {
				t = types.Timestamp
			}
		case types.OidDate, types.OidUnknown:
		default:
			return types.T{}, false
		}
	}
	if t.Oid == types.OidUnknown {
		t = types.Timestamptz
	}
	return t, true
}

// timestampSeries is generate_series(start, stop, step) over timestamps
// or, with tz, timestamptzs, stepping in the session's time zone. It
// yields the values one at a time.
func (c *compiler) timestampSeries(args []expr) (*tableFunc, error) {
	t, ok := timestampPair(args[0], args[1])
	if !ok || args[2].typ().Oid != types.OidInterval && !isUnknown(args[2]) {
		return nil, noFunction("generate_series", args)
	}
	if err := c.coerceAll(args, t, t, types.IntervalType); err != nil {
		return nil, err
	}
	tz := t.Oid == types.OidTimestamptz
	return &tableFunc{name: "generate_series", t: t, args: args, series: func(e *env, a []any) (func() (any, bool, error), error) {
		cur, stop, step := a[0].(time.Time), a[1].(time.Time), a[2].(types.Interval)
		sign := types.IntervalSign(step)
		if sign == 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
		}
		loc := e.s.loc()
		up, down := sign > 0 && cur.Compare(stop) <= 0, sign < 0 && cur.Compare(stop) >= 0
		if up && cur.Equal(types.TimeNegInfinity) || down && cur.Equal(types.TimeInfinity) {
			// Infinity plus a step is infinity: the series would repeat
			// its first value forever.
			return func() (any, bool, error) { return nil, false, types.ErrTimestampRange() }, nil
		}
		// A series up to infinity runs until the timestamps run out of
		// range, which fails it; a LIMIT may stop it before.
		return func() (any, bool, error) {
			if c := cur.Compare(stop); sign > 0 && c > 0 || sign < 0 && c < 0 {
				return nil, false, nil
			}
			v := cur
			next, err := types.TimestampPlusInterval(cur, step, tz, loc)
			if err != nil {
				return nil, false, err
			}
			cur = next
			return v, true, nil
		}, nil
	}}, nil
}
