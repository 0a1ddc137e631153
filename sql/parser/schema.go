package parser

// CreateSchema is CREATE SCHEMA [IF NOT EXISTS] name [AUTHORIZATION role]
// [element ...], or CREATE SCHEMA [IF NOT EXISTS] AUTHORIZATION role,
// whose schema is named after the role. Elements are the CREATE and GRANT
// statements written after it, which make their objects in the schema.
type CreateSchema struct {
	Name, Role  string
	IfNotExists bool
	Elements    []*Statement
}

// DropSchema is DROP SCHEMA [IF EXISTS] name [, ...] [CASCADE | RESTRICT].
type DropSchema struct {
	Names             []string
	IfExists, Cascade bool
}

// AlterSchemaRename is ALTER SCHEMA name RENAME TO new_name. ALTER SCHEMA
// ... OWNER TO is an AlterOwner.
type AlterSchemaRename struct{ Name, NewName string }

func parseCreateSchema(c *cursor) (any, error) {
	cs := &CreateSchema{IfNotExists: c.acceptSeq("if", "not", "exists")}
	var err error
	if !c.is("authorization") {
		if cs.Name, err = c.name(); err != nil {
			return nil, err
		}
	}
	if c.accept("authorization") {
		if cs.Role, err = roleSpec(c); err != nil {
			return nil, err
		}
		if cs.Name == "" {
			cs.Name = cs.Role
		}
	}
	if c.i == len(c.toks) {
		return cs, nil
	}
	if cs.IfNotExists {
		return nil, c.p.syntaxMsg(c.peek(), "CREATE SCHEMA IF NOT EXISTS cannot include schema elements")
	}
	// Each element runs from its CREATE or GRANT to the next one.
	start := c.i
	for i := c.i; i <= len(c.toks); i++ {
		if i < len(c.toks) && (i == start || !isWord(&c.toks[i], "create", "grant")) {
			continue
		}
		if !isWord(&c.toks[start], "create", "grant") {
			return nil, c.p.syntaxError(&c.toks[start])
		}
		end := len(c.p.q)
		if i < len(c.toks) {
			end = c.toks[i].pos
		}
		stmts, err := Parse(c.p.q[c.toks[start].pos:end])
		if err != nil {
			return nil, err
		}
		cs.Elements = append(cs.Elements, stmts...)
		start = i
	}
	return cs, nil
}

// roleSpec reads a role: a name, CURRENT_USER, CURRENT_ROLE or
// SESSION_USER, the last three as "current_user" and "session_user".
func roleSpec(c *cursor) (string, error) {
	switch {
	case c.accept("current_user", "current_role"):
		return "current_user", nil
	case c.accept("session_user"):
		return "session_user", nil
	}
	return c.name()
}

func parseDropSchema(c *cursor) (any, error) {
	d := &DropSchema{IfExists: c.acceptSeq("if", "exists")}
	var err error
	if d.Names, d.Cascade, err = dropTail(c, c.name); err != nil {
		return nil, err
	}
	return d, c.end()
}

func parseAlterSchema(c *cursor) (any, error) {
	a := &AlterSchemaRename{}
	var err error
	if a.Name, err = c.name(); err != nil {
		return nil, err
	}
	if !c.is("rename") && c.peek() != nil {
		return nil, c.p.unsupported(c.peek(), "ALTER SCHEMA ... %s is not supported", upper(c.peek().val))
	}
	if !c.acceptSeq("rename", "to") {
		return nil, c.fail()
	}
	if a.NewName, err = c.name(); err != nil {
		return nil, err
	}
	return a, c.end()
}
