package parser

// CreateExtension is CREATE EXTENSION [IF NOT EXISTS] name [WITH] [SCHEMA
// schema] [VERSION version] [CASCADE].
type CreateExtension struct {
	Name, Schema, Version string
	IfNotExists, Cascade  bool
}

// DropExtension is DROP EXTENSION [IF EXISTS] name [, ...] [CASCADE |
// RESTRICT].
type DropExtension struct {
	Names             []string
	IfExists, Cascade bool
}

func parseCreateExtension(c *cursor) (any, error) {
	ce := &CreateExtension{IfNotExists: c.acceptSeq("if", "not", "exists")}
	var err error
	if ce.Name, err = c.name(); err != nil {
		return nil, err
	}
	c.accept("with")
	for {
		switch {
		case c.accept("schema"):
			if ce.Schema, err = c.name(); err != nil {
				return nil, err
			}
		case c.accept("version"):
			if t := c.peek(); t != nil && t.kind == tkString {
				ce.Version = t.val
				c.i++
			} else if ce.Version, err = c.name(); err != nil {
				return nil, err
			}
		case c.accept("cascade"):
			ce.Cascade = true
		default:
			return ce, c.end()
		}
	}
}

func parseDropExtension(c *cursor) (any, error) {
	d := &DropExtension{IfExists: c.acceptSeq("if", "exists")}
	var err error
	if d.Names, d.Cascade, err = dropTail(c, c.name); err != nil {
		return nil, err
	}
	return d, c.end()
}

// dropTail reads what DROP TYPE, DROP MATERIALIZED VIEW and DROP
// EXTENSION end with: names, each read by name, separated by commas, and
// CASCADE or RESTRICT (the default).
func dropTail(c *cursor, name func() (string, error)) (names []string, cascade bool, err error) {
	for {
		n, err := name()
		if err != nil {
			return nil, false, err
		}
		names = append(names, n)
		if !c.punct(",") {
			break
		}
	}
	cascade = c.accept("cascade")
	if !cascade {
		c.accept("restrict")
	}
	return names, cascade, nil
}
