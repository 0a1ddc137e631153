package catalog

import (
	"context"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/types"
)

// Functions and procedures (pg_proc): CREATE FUNCTION and CREATE
// PROCEDURE store one, in a schema, under a name that it shares with its
// overloads. What tells overloads apart is the types of their input
// parameters (IN, INOUT and VARIADIC), as in PostgreSQL: the signature.
// The body is kept as written and compiled by the session that calls it
// (package sql's routine.go).

// Function describes a function or a procedure.
type Function struct {
	ID     uint32 `json:"id"`
	Schema uint32 `json:"schema"`
	Name   string `json:"name"`
	// Kind is pg_proc.prokind: 'f' for a function, 'p' for a procedure.
	Kind   byte    `json:"kind"`
	Params []Param `json:"params,omitempty"`
	// Returns is the result type: of each row if ReturnsSet; record for
	// several OUT parameters or RETURNS TABLE, which Params then holds as
	// mode 'o' or 't'; void for a procedure.
	Returns    types.T `json:"returns"`
	ReturnsSet bool    `json:"returns_set,omitempty"`
	// Language is "sql" or "plpgsql"; Body is the source as written
	// (prosrc).
	Language string `json:"language"`
	Body     string `json:"body"`
	// SQLBody is a SQL-standard body as written (RETURN expr, BEGIN
	// ATOMIC ... END); Body is then the statements it runs.
	SQLBody string `json:"sql_body,omitempty"`
	// Volatility is provolatile: 'i', 's' or 'v'.
	Volatility byte `json:"volatility"`
	// Strict is RETURNS NULL ON NULL INPUT: a NULL argument gives NULL
	// without a call.
	Strict          bool `json:"strict,omitempty"`
	SecurityDefiner bool `json:"security_definer,omitempty"`
	Leakproof       bool `json:"leakproof,omitempty"`
	// Parallel is proparallel: 's', 'r' or 'u'.
	Parallel byte    `json:"parallel"`
	Cost     float64 `json:"cost"`
	Rows     float64 `json:"rows,omitempty"`
	// Config are the SET clauses, as name=value (proconfig).
	Config []string `json:"config,omitempty"`
	Owner  string   `json:"owner,omitempty"`
	// ReturnsRow, for RETURNS [SETOF] table, is the table whose row type
	// it returns; Returns is then record, and RowType the row's fields
	// now.
	ReturnsRow uint32 `json:"returns_row,omitempty"`
	// cat is the catalog f is in, which its row type is read from.
	cat *Catalog
}

// RowType is the record type of the rows of the table f returns
// (ReturnsRow): its visible columns as they are now.
func (f *Function) RowType() (types.T, *Table) {
	var t *Table
	if f.cat != nil {
		t = f.cat.TableByID[f.ReturnsRow]
	}
	if t == nil {
		return types.T{Oid: types.OidRecord, Mod: -1}, nil
	}
	return t.RowType(), t
}

// Param is a parameter of a function.
type Param struct {
	Name string  `json:"name,omitempty"`
	Type types.T `json:"type"`
	// Mode is proargmodes': 'i' IN, 'o' OUT, 'b' INOUT, 'v' VARIADIC,
	// 't' a column of RETURNS TABLE.
	Mode byte `json:"mode"`
	// Default is the default expression as SQL the TiDB parser reads,
	// or "".
	Default string `json:"default,omitempty"`
	// Row, for a parameter of a table's row type, is the table: Type is
	// then the record of its columns, as the catalog that holds the
	// function read them, since a record's shape is the process's own.
	Row uint32 `json:"row,omitempty"`
}

// In reports whether p is one a call passes: IN, INOUT or VARIADIC.
func (p *Param) In() bool { return p.Mode == 'i' || p.Mode == 'b' || p.Mode == 'v' }

// Out reports whether p is one the function returns: OUT, INOUT or a
// column of RETURNS TABLE.
func (p *Param) Out() bool { return p.Mode == 'o' || p.Mode == 'b' || p.Mode == 't' }

func (f *Function) QName() QName { return QName{f.Schema, f.Name} }

// input reports whether a call passes p: an IN, INOUT or VARIADIC
// parameter, or of a procedure, an OUT one too (as NULL), since
// PostgreSQL 14.
func (f *Function) input(p *Param) bool { return p.In() || f.Kind == 'p' && p.Mode == 'o' }

// InParams are the parameters a call passes, in order.
func (f *Function) InParams() []Param {
	var in []Param
	for _, p := range f.Params {
		if f.input(&p) {
			in = append(in, p)
		}
	}
	return in
}

// OutParams are the parameters the function returns, in order.
func (f *Function) OutParams() []Param {
	var out []Param
	for _, p := range f.Params {
		if p.Out() {
			out = append(out, p)
		}
	}
	return out
}

// Signature is the types of the input parameters, which tell a function
// from its overloads.
func (f *Function) Signature() []types.Oid {
	var sig []types.Oid
	for _, p := range f.Params {
		if f.input(&p) {
			sig = append(sig, p.Type.Oid)
		}
	}
	return sig
}

// Variadic reports whether the last input parameter is VARIADIC.
func (f *Function) Variadic() bool {
	in := f.InParams()
	return len(in) > 0 && in[len(in)-1].Mode == 'v'
}

// KindName is how PostgreSQL's messages name f's kind.
func (f *Function) KindName() string {
	if f.Kind == 'p' {
		return "procedure"
	}
	return "function"
}

// Functions returns the functions and procedures, ordered by id.
func (c *Catalog) Functions() []*Function {
	return sortedByID(c.FunctionByID, func(f *Function) uint32 { return f.ID })
}

// FunctionOverloads are the functions and procedures a call of
// schema.name may mean: those of the schema named, or with schema "", of
// the first schema on path that has any by that name, as PostgreSQL's
// candidates are those the path shows (an overload in a later schema with
// the same signature is hidden; one with another signature is not, which
// this folds into the first schema's, a difference that only overloads
// spread across schemas meet). A schema that does not exist is 3F000.
func (c *Catalog) FunctionOverloads(path Path, schema, name string) ([]*Function, error) {
	if schema != "" {
		s, err := c.SchemaOn(path, schema)
		if err != nil {
			return nil, err
		}
		if s == nil {
			return nil, ErrNoSchema(schema)
		}
		return c.FunctionByName[QName{s.ID, name}], nil
	}
	var out []*Function
	for _, nsp := range path.NoTemp() {
		for _, f := range c.FunctionByName[QName{nsp, name}] {
			if !slices.ContainsFunc(out, func(g *Function) bool { return slices.Equal(g.Signature(), f.Signature()) }) {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// FunctionBySignature is the function of schema nsp called name whose
// input parameters have types sig, or nil.
func (c *Catalog) FunctionBySignature(nsp uint32, name string, sig []types.Oid) *Function {
	for _, f := range c.FunctionByName[QName{nsp, name}] {
		if slices.Equal(f.Signature(), sig) {
			return f
		}
	}
	return nil
}

func (c *Catalog) putFunction(f *Function) {
	f.Schema = inSchema(f.Schema)
	f.cat = c
	for i, p := range f.Params {
		if t := c.TableByID[p.Row]; p.Row != 0 && t != nil {
			f.Params[i].Type = t.RowType()
		}
	}
	if old := c.FunctionByID[f.ID]; old != nil {
		c.removeFunction(old)
	}
	c.FunctionByID[f.ID] = f
	q := f.QName()
	c.FunctionByName[q] = append(slices.Clip(c.FunctionByName[q]), f)
	slices.SortFunc(c.FunctionByName[q], func(a, b *Function) int { return int(a.ID) - int(b.ID) })
}

func (c *Catalog) removeFunction(f *Function) {
	delete(c.FunctionByID, f.ID)
	q := f.QName()
	fs := slices.DeleteFunc(slices.Clone(c.FunctionByName[q]), func(g *Function) bool { return g.ID == f.ID })
	if len(fs) == 0 {
		delete(c.FunctionByName, q)
	} else {
		c.FunctionByName[q] = fs
	}
}

// PutFunction stores f, new or replacing the function of its id.
func (d *DDL) PutFunction(ctx context.Context, f *Function) error {
	d.Cat.putFunction(f)
	return d.Put(ctx, f.ID, &Descriptor{Function: f})
}

// DropFunction removes f.
func (d *DDL) DropFunction(ctx context.Context, f *Function) error {
	d.Cat.removeFunction(f)
	return d.Tx.Delete(ctx, DescKey(f.ID))
}

// SignatureText is sig as PostgreSQL's messages print a signature's
// types: "integer, text".
func SignatureText(sig []types.T) string {
	names := make([]string, len(sig))
	for i, t := range sig {
		names[i] = t.String()
	}
	return strings.Join(names, ", ")
}
