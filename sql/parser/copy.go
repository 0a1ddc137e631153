package parser

import (
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Copy is COPY table [(columns)] FROM STDIN, or COPY {table [(columns)] |
// (query)} TO STDOUT, with its options in either the parenthesized or the
// pre-9.0 syntax.
type Copy struct {
	Table   string
	Columns []string
	Query   *Statement // COPY (query) TO STDOUT
	From    bool       // FROM STDIN; otherwise TO STDOUT
	Format  string     // "text", "csv" or "binary"

	// Nil means the format's default.
	Delimiter, Null, Quote, Escape *string

	Header        bool
	ForceQuote    []string
	ForceQuoteAll bool
	ForceNotNull  []string
	Freeze        bool
}

func parseCopy(c *cursor) (any, error) {
	cp := &Copy{Format: "text"}
	o := &copyOptions{c: c, cp: cp, seen: map[string]bool{}}
	if c.is("binary") {
		// COPY BINARY table: the syntax before 7.3.
		if err := o.set(c.peek(), "format", "binary"); err != nil {
			return nil, err
		}
		c.i++
	}
	if isPunct(c.peek(), "(") {
		open := c.i
		depth := 0
		for ; c.i < len(c.toks); c.i++ {
			switch {
			case isPunct(&c.toks[c.i], "("):
				depth++
			case isPunct(&c.toks[c.i], ")"):
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if c.i == len(c.toks) {
			return nil, c.fail()
		}
		q, err := c.nested(c.toks[open+1:c.i], &c.toks[c.i], func(n ast.StmtNode) bool {
			return isQuery(n) || isInsert(n) || isUpdate(n) || isDelete(n)
		})
		if err != nil {
			return nil, err
		}
		if err := isQueryOrReturning(q); err != nil {
			return nil, err
		}
		cp.Query = q
		c.i++
	} else {
		name, err := c.qualifiedName()
		if err != nil {
			return nil, err
		}
		cp.Table = name
		if c.punct("(") {
			cols, err := c.columns(")")
			if err != nil {
				return nil, err
			}
			cp.Columns = cols
		}
	}
	switch {
	case c.is("from") && cp.Query != nil:
		return nil, c.fail()
	case c.accept("from"):
		cp.From = true
	case c.accept("to"):
	default:
		return nil, c.fail()
	}
	switch t := c.peek(); {
	case c.accept("stdin", "stdout"):
	case t != nil && (t.kind == tkString || isWord(t, "program")):
		return nil, c.p.unsupported(t, "COPY to/from a file is not supported").
			WithHint("Use COPY ... FROM STDIN or COPY ... TO STDOUT.")
	default:
		return nil, c.fail()
	}
	if c.acceptSeq("using", "delimiters") {
		if err := o.str(c.prev(), "delimiter"); err != nil {
			return nil, err
		}
	}
	c.accept("with")
	var err error
	if isPunct(c.peek(), "(") {
		err = o.generic()
	} else {
		err = o.legacy()
	}
	if err != nil {
		return nil, err
	}
	if c.is("where") {
		return nil, c.p.unsupported(c.peek(), "COPY ... WHERE is not supported")
	}
	if err := c.end(); err != nil {
		return nil, err
	}
	return cp, validateCopy(cp)
}

// columns reads name, ... up to the closing punctuation.
func (c *cursor) columns(closing string) ([]string, error) {
	var cols []string
	for {
		name, err := c.name()
		if err != nil {
			return nil, err
		}
		cols = append(cols, name)
		if c.punct(closing) {
			return cols, nil
		}
		if !c.punct(",") {
			return nil, c.fail()
		}
	}
}

// copyOptions applies COPY options, each at most once.
type copyOptions struct {
	c    *cursor
	cp   *Copy
	seen map[string]bool
}

// generic reads (name [value], ...), the syntax since PostgreSQL 9.0.
func (o *copyOptions) generic() error {
	c := o.c
	c.i++
	for {
		t := c.peek()
		if t == nil || t.kind != tkWord {
			return c.fail()
		}
		c.i++
		var err error
		switch t.val {
		case "force_quote", "force_not_null":
			var cols []string
			all := false
			switch {
			case c.punctOp("*"):
				all = true
			case c.punct("("):
				cols, err = c.columns(")")
			default:
				err = c.fail()
			}
			if err == nil {
				err = o.force(t, t.val, cols, all)
			}
		case "force_null":
			err = c.p.unsupported(t, "COPY FORCE_NULL is not supported")
		default:
			value := ""
			if !isPunct(c.peek(), ",") && !isPunct(c.peek(), ")") {
				if value, err = c.value(); err != nil {
					return err
				}
			}
			err = o.set(t, t.val, value)
		}
		if err != nil {
			return err
		}
		if c.punct(")") {
			return nil
		}
		if !c.punct(",") {
			return c.fail()
		}
	}
}

// legacy reads the options of the syntax before 9.0.
func (o *copyOptions) legacy() error {
	c := o.c
	for c.i < len(c.toks) && !c.is("where") {
		t := c.peek()
		var err error
		switch {
		case c.accept("binary"):
			err = o.set(t, "format", "binary")
		case c.accept("csv"):
			err = o.set(t, "format", "csv")
		case c.accept("freeze"), c.accept("header"):
			err = o.set(t, t.val, "")
		case c.accept("delimiter", "null", "quote", "escape", "encoding"):
			c.accept("as")
			err = o.str(t, t.val)
		case c.acceptSeq("force", "quote"):
			if c.punctOp("*") {
				err = o.force(t, "force_quote", nil, true)
				break
			}
			var cols []string
			if cols, err = c.legacyColumns(); err == nil {
				err = o.force(t, "force_quote", cols, false)
			}
		case c.acceptSeq("force", "not", "null"):
			var cols []string
			if cols, err = c.legacyColumns(); err == nil {
				err = o.force(t, "force_not_null", cols, false)
			}
		case c.acceptSeq("force", "null"):
			err = c.p.unsupported(t, "COPY FORCE NULL is not supported")
		default:
			return c.fail()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// legacyColumns reads name, ... without parentheses.
func (c *cursor) legacyColumns() ([]string, error) {
	var cols []string
	for {
		name, err := c.name()
		if err != nil {
			return nil, err
		}
		cols = append(cols, name)
		if !c.punct(",") {
			return cols, nil
		}
	}
}

// str reads the string value of an option.
func (o *copyOptions) str(t *token, name string) error {
	s := o.c.peek()
	if s == nil || s.kind != tkString {
		return o.c.fail()
	}
	o.c.i++
	return o.set(t, name, s.val)
}

func (o *copyOptions) once(t *token, name string) error {
	if o.seen[name] {
		return o.c.p.syntaxMsg(t, "conflicting or redundant options")
	}
	o.seen[name] = true
	return nil
}

func (o *copyOptions) force(t *token, name string, cols []string, all bool) error {
	if err := o.once(t, name); err != nil {
		return err
	}
	if name == "force_quote" {
		o.cp.ForceQuote, o.cp.ForceQuoteAll = cols, all
	} else {
		o.cp.ForceNotNull = cols
	}
	return nil
}

// set applies one option. An empty value means the option was given
// without one, which turns a Boolean option on.
func (o *copyOptions) set(t *token, name, value string) error {
	if err := o.once(t, name); err != nil {
		return err
	}
	cp := o.cp
	boolean := func() (bool, error) {
		if value == "" {
			return true, nil
		}
		b, ok := parseBool(value)
		if !ok {
			return false, pgerr.New(pgerr.InvalidParameterValue, "%s requires a Boolean value", name)
		}
		return b, nil
	}
	var err error
	switch name {
	case "format":
		switch f := strings.ToLower(value); f {
		case "text", "csv", "binary":
			cp.Format = f
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "COPY format \"%s\" not recognized", value)
		}
	case "freeze":
		cp.Freeze, err = boolean()
	case "header":
		if strings.EqualFold(value, "match") {
			return o.c.p.unsupported(t, "COPY HEADER MATCH is not supported")
		}
		cp.Header, err = boolean()
	case "delimiter":
		cp.Delimiter = &value
	case "null":
		cp.Null = &value
	case "quote":
		cp.Quote = &value
	case "escape":
		cp.Escape = &value
	case "encoding":
		switch strings.ToLower(strings.ReplaceAll(value, "-", "")) {
		case "utf8", "unicode":
		default:
			return o.c.p.unsupported(t, "COPY ENCODING %s is not supported", value)
		}
	case "on_error":
		if !strings.EqualFold(value, "stop") {
			return o.c.p.unsupported(t, "COPY ON_ERROR %s is not supported", value)
		}
	case "default", "log_verbosity", "reject_limit":
		return o.c.p.unsupported(t, "COPY %s is not supported", upper(name))
	default:
		return o.c.p.syntaxMsg(t, "option \"%s\" not recognized", name)
	}
	return err
}

// validateCopy applies the checks of PostgreSQL's ProcessCopyOptions, so that
// a client learns of a bad option before any data moves.
func validateCopy(cp *Copy) error {
	csv, binary := cp.Format == "csv", cp.Format == "binary"
	invalid := func(format string, args ...any) error {
		return pgerr.New(pgerr.InvalidParameterValue, format, args...)
	}
	unsupported := func(format string, args ...any) error {
		return pgerr.New(pgerr.FeatureNotSupported, format, args...)
	}
	switch {
	case binary && cp.Delimiter != nil:
		return pgerr.New(pgerr.SyntaxError, "cannot specify DELIMITER in BINARY mode")
	case binary && cp.Null != nil:
		return pgerr.New(pgerr.SyntaxError, "cannot specify NULL in BINARY mode")
	case binary && cp.Header:
		return pgerr.New(pgerr.SyntaxError, "cannot specify HEADER in BINARY mode")
	}
	delim, null := "\t", `\N`
	if csv {
		delim, null = ",", ""
	}
	if cp.Delimiter != nil {
		delim = *cp.Delimiter
	}
	if cp.Null != nil {
		null = *cp.Null
	}
	quote := `"`
	if cp.Quote != nil {
		quote = *cp.Quote
	}
	switch {
	case len(delim) != 1:
		return unsupported("COPY delimiter must be a single one-byte character")
	case delim == "\n" || delim == "\r":
		return invalid("COPY delimiter cannot be newline or carriage return")
	case strings.ContainsAny(null, "\r\n"):
		return invalid("COPY null representation cannot use newline or carriage return")
	case !csv && strings.Contains(`\.abcdefghijklmnopqrstuvwxyz0123456789`, delim):
		return invalid("COPY delimiter cannot be \"%s\"", delim)
	case cp.Quote != nil && !csv:
		return unsupported("COPY quote available only in CSV mode")
	case len(quote) != 1:
		return unsupported("COPY quote must be a single one-byte character")
	case csv && delim == quote:
		return invalid("COPY delimiter and quote must be different")
	case cp.Escape != nil && !csv:
		return unsupported("COPY escape available only in CSV mode")
	case cp.Escape != nil && len(*cp.Escape) != 1:
		return unsupported("COPY escape must be a single one-byte character")
	case (cp.ForceQuote != nil || cp.ForceQuoteAll) && !csv:
		return unsupported("COPY force quote available only in CSV mode")
	case (cp.ForceQuote != nil || cp.ForceQuoteAll) && cp.From:
		return unsupported("COPY force quote only available using COPY TO")
	case cp.ForceNotNull != nil && !csv:
		return unsupported("COPY force not null available only in CSV mode")
	case cp.ForceNotNull != nil && !cp.From:
		return unsupported("COPY force not null only available using COPY FROM")
	case !binary && strings.Contains(null, delim):
		return invalid("COPY delimiter must not appear in the NULL specification")
	case csv && strings.Contains(null, quote):
		return invalid("CSV quote character must not appear in the NULL specification")
	}
	return nil
}

// isQueryOrReturning accepts what COPY (query) TO may run: a query, or a
// data-modifying statement with RETURNING.
func isQueryOrReturning(st *Statement) error {
	switch st.AST.(type) {
	case *ast.InsertStmt, *ast.UpdateStmt, *ast.DeleteStmt:
		if st.Returning == nil {
			return pgerr.New(pgerr.FeatureNotSupported, "COPY query must have a RETURNING clause")
		}
	}
	return nil
}
