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
	for {
		name, err := c.name()
		if err != nil {
			return nil, err
		}
		d.Names = append(d.Names, name)
		if !c.punct(",") {
			break
		}
	}
	switch {
	case c.accept("cascade"):
		d.Cascade = true
	case c.accept("restrict"):
	}
	return d, c.end()
}
