package parser

// Enum types: CREATE TYPE name AS ENUM (...), ALTER TYPE ... ADD VALUE
// and RENAME, DROP TYPE. Other kinds of CREATE TYPE (composite, range,
// base) are not supported.

// CreateEnum is CREATE TYPE name AS ENUM ('label', ...).
type CreateEnum struct {
	Name   string
	Labels []string
}

// AlterEnum is ALTER TYPE name ADD VALUE [IF NOT EXISTS] 'label'
// [{BEFORE | AFTER} 'neighbor'], or ALTER TYPE name RENAME TO new_name
// (NewName set), or RENAME VALUE 'old' TO 'new' (Rename set).
type AlterEnum struct {
	Name string
	// ADD VALUE
	Add         string
	IfNotExists bool
	Neighbor    string
	Before      bool
	// RENAME TO
	NewName string
	// RENAME VALUE
	Rename   bool
	From, To string
}

// DropType is DROP TYPE [IF EXISTS] name, ... [CASCADE | RESTRICT].
type DropType struct {
	Names    []string
	IfExists bool
	Cascade  bool
}

// stringLit reads a string constant.
func (c *cursor) stringLit() (string, error) {
	t := c.peek()
	if t == nil || t.kind != tkString {
		return "", c.fail()
	}
	c.i++
	return t.val, nil
}

func parseCreateType(c *cursor) (any, error) {
	name, err := c.qualifiedName()
	if err != nil {
		return nil, err
	}
	if !c.accept("as") {
		return nil, c.fail()
	}
	if !c.accept("enum") {
		return nil, c.p.unsupported(c.peek(), "CREATE TYPE is supported only for enum types")
	}
	ce := &CreateEnum{Name: name}
	if !c.punct("(") {
		return nil, c.fail()
	}
	if !c.punct(")") {
		for {
			label, err := c.stringLit()
			if err != nil {
				return nil, err
			}
			ce.Labels = append(ce.Labels, label)
			if c.punct(")") {
				break
			}
			if !c.punct(",") {
				return nil, c.fail()
			}
		}
	}
	return ce, c.end()
}

func parseAlterType(c *cursor) (any, error) {
	name, err := c.qualifiedName()
	if err != nil {
		return nil, err
	}
	a := &AlterEnum{Name: name}
	switch {
	case c.acceptSeq("add", "value"):
		a.IfNotExists = c.acceptSeq("if", "not", "exists")
		if a.Add, err = c.stringLit(); err != nil {
			return nil, err
		}
		if c.accept("before", "after") {
			a.Before = c.prev().val == "before"
			if a.Neighbor, err = c.stringLit(); err != nil {
				return nil, err
			}
		}
	case c.acceptSeq("rename", "to"):
		if a.NewName, err = c.name(); err != nil {
			return nil, err
		}
	case c.acceptSeq("rename", "value"):
		a.Rename = true
		if a.From, err = c.stringLit(); err != nil {
			return nil, err
		}
		if !c.accept("to") {
			return nil, c.fail()
		}
		if a.To, err = c.stringLit(); err != nil {
			return nil, err
		}
	default:
		if t := c.peek(); t != nil {
			return nil, c.p.unsupported(t, "ALTER TYPE ... %s is not supported", upper(t.val))
		}
		return nil, c.fail()
	}
	return a, c.end()
}

func parseDropType(c *cursor) (any, error) {
	d := &DropType{IfExists: c.acceptSeq("if", "exists")}
	var err error
	if d.Names, d.Cascade, err = dropTail(c, c.qualifiedName); err != nil {
		return nil, err
	}
	return d, c.end()
}

// command parses the statement with parse from token i on, as the
// statement's Cmd.
func (p *stmtParser) command(parse func(c *cursor) (any, error), i int) error {
	cmd, err := parse(&cursor{p: p, toks: p.toks, i: i})
	if err != nil {
		return err
	}
	p.st.Cmd = cmd
	return nil
}
