package parser

import "github.com/epochdb/epochdb/sql/pgerr"

// Materialized views: CREATE MATERIALIZED VIEW, REFRESH MATERIALIZED
// VIEW and DROP MATERIALIZED VIEW.

// CreateMatView is CREATE MATERIALIZED VIEW [IF NOT EXISTS] name [(column,
// ...)] AS query [WITH [NO] DATA].
type CreateMatView struct {
	Name        string
	Columns     []string // nil: the query's own column names
	Query       *Statement
	IfNotExists bool
	NoData      bool
}

// RefreshMatView is REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH
// [NO] DATA].
type RefreshMatView struct {
	Name         string
	NoData       bool
	Concurrently bool
}

// DropMatView is DROP MATERIALIZED VIEW [IF EXISTS] name, ... [CASCADE |
// RESTRICT].
type DropMatView struct {
	Names    []string
	IfExists bool
	Cascade  bool
}

// createMatView parses CREATE MATERIALIZED VIEW from the token after VIEW,
// at p.toks[i+1].
func (p *stmtParser) createMatView(i int) error {
	c := &cursor{p: p, toks: p.toks, i: i + 1}
	m := &CreateMatView{IfNotExists: c.acceptSeq("if", "not", "exists")}
	var err error
	if m.Name, err = c.qualifiedName(); err != nil {
		return err
	}
	if c.punct("(") {
		for {
			col, err := c.name()
			if err != nil {
				return err
			}
			m.Columns = append(m.Columns, col)
			if c.punct(")") {
				break
			}
			if !c.punct(",") {
				return c.fail()
			}
		}
	}
	if err := c.expect("as"); err != nil {
		return err
	}
	end := len(c.toks)
	switch {
	case end-c.i > 3 && isWord(&c.toks[end-3], "with") && isWord(&c.toks[end-2], "no") && isWord(&c.toks[end-1], "data"):
		m.NoData, end = true, end-3
	case end-c.i > 2 && isWord(&c.toks[end-2], "with") && isWord(&c.toks[end-1], "data"):
		end -= 2
	}
	after := p.after
	if end < len(c.toks) {
		after = &c.toks[end]
	}
	if m.Query, err = c.nested(c.toks[c.i:end], after, isQuery); err != nil {
		return err
	}
	if m.Query.WithDML != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "materialized views must not use data-modifying statements in WITH")
	}
	p.st.Cmd = m
	return nil
}

func parseRefresh(c *cursor) (any, error) {
	if err := c.expect("materialized"); err != nil {
		return nil, err
	}
	if err := c.expect("view"); err != nil {
		return nil, err
	}
	r := &RefreshMatView{Concurrently: c.accept("concurrently")}
	var err error
	if r.Name, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	switch {
	case c.acceptSeq("with", "no", "data"):
		if r.Concurrently {
			return nil, pgerr.New(pgerr.SyntaxError, "%s and %s options cannot be used together", "CONCURRENTLY", "WITH NO DATA")
		}
		r.NoData = true
	case c.acceptSeq("with", "data"):
	}
	return r, c.end()
}

func parseDropMatView(c *cursor) (any, error) {
	if err := c.expect("view"); err != nil {
		return nil, err
	}
	d := &DropMatView{IfExists: c.acceptSeq("if", "exists")}
	var err error
	if d.Names, d.Cascade, err = dropTail(c, c.qualifiedName); err != nil {
		return nil, err
	}
	return d, c.end()
}

// AlterViewRename is ALTER [MATERIALIZED] VIEW [IF EXISTS] name RENAME TO
// new_name, or RENAME [COLUMN] column TO new_name (Column set).
type AlterViewRename struct {
	Materialized bool
	Name         string
	IfExists     bool
	Column       string
	NewName      string
}

// parseAlterView parses ALTER [MATERIALIZED] VIEW from the token after
// VIEW; epochdb does its renames.
func parseAlterView(materialized bool) func(c *cursor) (any, error) {
	return func(c *cursor) (any, error) {
		a := &AlterViewRename{Materialized: materialized, IfExists: c.acceptSeq("if", "exists")}
		var err error
		if a.Name, err = c.qualifiedName(); err != nil {
			return nil, err
		}
		if !c.accept("rename") {
			if t := c.peek(); t != nil {
				return nil, c.p.unsupported(t, "ALTER VIEW ... %s is not supported", upper(t.val))
			}
			return nil, c.fail()
		}
		if !c.accept("to") {
			c.accept("column")
			if a.Column, err = c.name(); err != nil {
				return nil, err
			}
			if err := c.expect("to"); err != nil {
				return nil, err
			}
		}
		if a.NewName, err = c.name(); err != nil {
			return nil, err
		}
		return a, c.end()
	}
}
