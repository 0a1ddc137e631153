package parser

import "github.com/epochdb/epochdb/sql/pgerr"

// Triggers: CREATE [OR REPLACE] TRIGGER, DROP TRIGGER, ALTER TRIGGER ...
// RENAME, and ALTER TABLE ... {ENABLE | DISABLE} TRIGGER.

// CreateTrigger is CREATE [OR REPLACE] TRIGGER.
type CreateTrigger struct {
	Name      string
	OrReplace bool
	Timing    string   // "before", "after" or "instead"
	Events    []string // "insert", "update", "delete", "truncate"
	UpdateOf  []string
	Table     string // qualified as qualifiedName joins it
	Row       bool
	When      string // the condition as written
	Function  string
	Args      []string
	// OldTable and NewTable are REFERENCING's transition tables.
	OldTable, NewTable string
}

// DropTrigger is DROP TRIGGER [IF EXISTS] name ON table [CASCADE | RESTRICT].
type DropTrigger struct {
	Name, Table       string
	IfExists, Cascade bool
}

// AlterTrigger is ALTER TRIGGER name ON table RENAME TO new_name.
type AlterTrigger struct{ Name, Table, NewName string }

// EnableTrigger is ALTER TABLE table {ENABLE | DISABLE} TRIGGER {name |
// ALL | USER}; Name is "" for ALL and USER.
type EnableTrigger struct {
	Table, Name string
	Enable      bool
}

func parseCreateTrigger(orReplace bool) func(c *cursor) (any, error) {
	return func(c *cursor) (any, error) {
		ct := &CreateTrigger{OrReplace: orReplace}
		var err error
		if ct.Name, err = c.name(); err != nil {
			return nil, err
		}
		switch {
		case c.accept("before", "after"):
			ct.Timing = c.prev().val
		case c.acceptSeq("instead", "of"):
			ct.Timing = "instead"
		default:
			return nil, c.fail()
		}
		for {
			if !c.accept("insert", "update", "delete", "truncate") {
				return nil, c.fail()
			}
			ev := c.prev().val
			ct.Events = append(ct.Events, ev)
			if ev == "update" && c.accept("of") {
				for {
					col, err := c.name()
					if err != nil {
						return nil, err
					}
					ct.UpdateOf = append(ct.UpdateOf, col)
					if !c.punct(",") {
						break
					}
				}
			}
			if !c.accept("or") {
				break
			}
		}
		if err := c.expect("on"); err != nil {
			return nil, err
		}
		if ct.Table, err = c.qualifiedName(); err != nil {
			return nil, err
		}
		if c.accept("referencing") {
			for c.accept("old", "new") {
				which := c.prev().val
				if !c.accept("table") {
					return nil, c.fail()
				}
				c.accept("as")
				name, err := c.name()
				if err != nil {
					return nil, err
				}
				if which == "old" {
					ct.OldTable = name
				} else {
					ct.NewTable = name
				}
			}
		}
		if c.accept("for") {
			c.accept("each")
			switch {
			case c.accept("row"):
				ct.Row = true
			case c.accept("statement"):
			default:
				return nil, c.fail()
			}
		}
		if c.accept("when") {
			open := c.peek()
			if !isPunct(open, "(") {
				return nil, c.fail()
			}
			depth, k := 0, c.i
			for ; k < len(c.toks); k++ {
				if isPunct(&c.toks[k], "(") {
					depth++
				} else if isPunct(&c.toks[k], ")") {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if k == len(c.toks) || k == c.i+1 {
				return nil, c.fail()
			}
			ct.When = c.p.q[c.toks[c.i+1].pos:c.toks[k-1].end]
			c.i = k + 1
		}
		if err := c.expect("execute"); err != nil {
			return nil, err
		}
		if !c.accept("function", "procedure") {
			return nil, c.fail()
		}
		if ct.Function, err = c.qualifiedName(); err != nil {
			return nil, err
		}
		if !c.punct("(") {
			return nil, c.fail()
		}
		for !c.punct(")") {
			t := c.peek()
			if t == nil || t.kind != tkString && t.kind != tkNumber && t.kind != tkWord && t.kind != tkQIdent {
				return nil, c.fail()
			}
			ct.Args = append(ct.Args, t.val)
			c.i++
			if !c.punct(",") {
				if !c.punct(")") {
					return nil, c.fail()
				}
				break
			}
		}
		if ct.Timing == "instead" && !ct.Row {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "INSTEAD OF triggers must be FOR EACH ROW")
		}
		return ct, c.end()
	}
}

func parseDropTrigger(c *cursor) (any, error) {
	d := &DropTrigger{IfExists: c.acceptSeq("if", "exists")}
	var err error
	if d.Name, err = c.name(); err != nil {
		return nil, err
	}
	if err := c.expect("on"); err != nil {
		return nil, err
	}
	if d.Table, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	d.Cascade = c.accept("cascade")
	if !d.Cascade {
		c.accept("restrict")
	}
	return d, c.end()
}

func parseAlterTrigger(c *cursor) (any, error) {
	a := &AlterTrigger{}
	var err error
	if a.Name, err = c.name(); err != nil {
		return nil, err
	}
	if err := c.expect("on"); err != nil {
		return nil, err
	}
	if a.Table, err = c.qualifiedName(); err != nil {
		return nil, err
	}
	if !c.acceptSeq("rename", "to") {
		return nil, c.p.unsupported(c.peek(), "ALTER TRIGGER ... is supported only for RENAME TO")
	}
	if a.NewName, err = c.name(); err != nil {
		return nil, err
	}
	return a, c.end()
}

// enableTrigger parses ALTER TABLE ... {ENABLE | DISABLE} TRIGGER, or
// returns nil for another ALTER TABLE.
func (p *stmtParser) enableTrigger() (*EnableTrigger, error) {
	c := &cursor{p: p, toks: p.toks, i: 1}
	if !c.accept("table") {
		return nil, nil
	}
	c.acceptSeq("if", "exists")
	c.accept("only")
	table, err := c.qualifiedName()
	if err != nil || !c.accept("enable", "disable") {
		return nil, nil
	}
	e := &EnableTrigger{Table: table, Enable: c.prev().val == "enable"}
	if e.Enable && c.accept("always", "replica") {
		return nil, c.p.unsupported(c.prev(), "ENABLE %s TRIGGER is not supported", upper(c.prev().val))
	}
	if !c.accept("trigger") {
		return nil, nil
	}
	if !c.accept("all", "user") {
		if e.Name, err = c.name(); err != nil {
			return nil, err
		}
	}
	return e, c.end()
}
