package pgwire

import (
	"math"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/jackc/pgx/v5/pgproto3"
)

// The extended query protocol. Each handler either replies with its
// *Complete message or reports an error through fail, after which the
// connection discards messages until Sync.

func (c *conn) fail(err error) {
	c.sendError(err)
	c.ignoreTillSync = true
}

func (c *conn) parse(m *pgproto3.Parse) {
	if m.Name == "" {
		// PostgreSQL drops the unnamed statement even if the new one fails.
		delete(c.stmts, "")
	} else if _, ok := c.stmts[m.Name]; ok {
		c.fail(pgerr.New(pgerr.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", m.Name))
		return
	}
	st := &statement{}
	if !isEmptyQuery(m.Query) {
		oids := make([]types.Oid, len(m.ParameterOIDs))
		for i, oid := range m.ParameterOIDs {
			oids[i] = types.Oid(oid)
		}
		ctx, done := c.statementContext()
		err := c.call(func() (err error) {
			st.p, err = c.sess.Prepare(ctx, m.Query, oids)
			if err == nil {
				st.paramTypes, st.cols = st.p.ParamTypes(), st.p.Columns()
			}
			return err
		})
		done()
		if err != nil {
			c.fail(err)
			return
		}
	}
	c.stmts[m.Name] = st
	c.send(&pgproto3.ParseComplete{})
}

// isEmptyQuery reports whether a query has no statement at all. Such a
// query is legal, and Execute answers it with EmptyQueryResponse; JDBC
// checks connections that way.
func isEmptyQuery(q string) bool {
	return strings.Trim(q, " \t\n\r\f\v;") == ""
}

func (c *conn) bind(m *pgproto3.Bind) {
	st, ok := c.stmts[m.PreparedStatement]
	if !ok {
		c.fail(noStatement(m.PreparedStatement))
		return
	}
	if m.DestinationPortal == "" {
		c.dropPortal("")
	} else if _, ok := c.portals[m.DestinationPortal]; ok {
		c.fail(pgerr.New(pgerr.DuplicateCursor, "cursor \"%s\" already exists", m.DestinationPortal))
		return
	}
	params, err := c.decodeParams(m, st)
	if err != nil {
		c.fail(err)
		return
	}
	pt := &portal{}
	if st.p != nil {
		ctx, done := c.statementContext()
		err := c.call(func() (err error) {
			pt.p, err = c.sess.Bind(ctx, st.p, params)
			return err
		})
		done()
		if err != nil {
			c.fail(err)
			return
		}
		pt.cols = pt.p.Columns()
		if pt.formats, err = resultFormats(m.ResultFormatCodes, len(pt.cols)); err != nil {
			c.closePortal(pt.p)
			c.fail(err)
			return
		}
	}
	c.portals[m.DestinationPortal] = pt
	c.send(&pgproto3.BindComplete{})
}

// decodeParams decodes a Bind message's parameters with the statement's
// parameter types. The message's buffers are reused by the next read; a
// datum must not point into them, which decodeParam sees to.
func (c *conn) decodeParams(m *pgproto3.Bind, st *statement) (params []any, err error) {
	n := len(m.Parameters)
	if n != len(st.paramTypes) {
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement \"%s\" requires %d", n, m.PreparedStatement, len(st.paramTypes))
	}
	formats := m.ParameterFormatCodes
	if len(formats) > 1 && len(formats) != n {
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message has %d parameter formats but %d parameters", len(formats), n)
	}
	defer func() {
		if r := recover(); r != nil {
			params, err = nil, c.internalError(r)
		}
	}()
	params = make([]any, n)
	for i, b := range m.Parameters {
		if b == nil {
			continue // NULL
		}
		f := int16(0)
		if len(formats) == 1 {
			f = formats[0]
		} else if len(formats) > 1 {
			f = formats[i]
		}
		if f != 0 && f != 1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unsupported format code: %d", f)
		}
		if params[i], err = decodeParam(st.paramTypes[i], f, b, c.loc); err != nil {
			return nil, err
		}
	}
	return params, nil
}

// resultFormats expands a Bind message's result format codes to one per
// column: none means text, one applies to every column.
func resultFormats(codes []int16, ncols int) ([]int16, error) {
	for _, f := range codes {
		if f != 0 && f != 1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unsupported format code: %d", f)
		}
	}
	switch {
	case len(codes) == 0 || ncols == 0 || len(codes) == 1 && codes[0] == 0:
		return nil, nil // all text
	case len(codes) == 1:
		formats := make([]int16, ncols)
		for i := range formats {
			formats[i] = codes[0]
		}
		return formats, nil
	case len(codes) == ncols:
		return slices.Clone(codes), nil
	}
	return nil, pgerr.New(pgerr.ProtocolViolation, "bind message has %d result formats but query has %d columns", len(codes), ncols)
}

func (c *conn) describe(m *pgproto3.Describe) {
	switch m.ObjectType {
	case 'S':
		st, ok := c.stmts[m.Name]
		if !ok {
			c.fail(noStatement(m.Name))
			return
		}
		oids := make([]uint32, len(st.paramTypes))
		for i, t := range st.paramTypes {
			oids[i] = uint32(t.Oid)
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: oids})
		c.sendRowDescription(st.cols, nil)
	case 'P':
		pt, ok := c.portals[m.Name]
		if !ok {
			c.fail(noPortal(m.Name))
			return
		}
		c.sendRowDescription(pt.cols, pt.formats)
	default:
		c.fail(pgerr.New(pgerr.ProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType))
	}
}

func (c *conn) execute(m *pgproto3.Execute) {
	pt, ok := c.portals[m.Portal]
	if !ok {
		c.fail(noPortal(m.Portal))
		return
	}
	if pt.p == nil {
		c.send(&pgproto3.EmptyQueryResponse{})
		return
	}
	if pt.completed && pt.cols == nil {
		c.fail(pgerr.New(pgerr.ObjectNotInPrerequisiteState, "portal \"%s\" cannot be run", m.Portal))
		return
	}
	ctx, done := c.statementContext()
	completed, err := c.run(ctx, pt.p, pt.formats, int(min(m.MaxRows, math.MaxInt32)), false, nil)
	done()
	pt.completed = completed
	if err != nil {
		c.fail(err)
	}
}

// closeObject closes a statement or portal. Closing one that does not exist
// is not an error.
func (c *conn) closeObject(m *pgproto3.Close) {
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		c.dropPortal(m.Name)
	default:
		c.fail(pgerr.New(pgerr.ProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType))
		return
	}
	c.send(&pgproto3.CloseComplete{})
}

func (c *conn) dropPortal(name string) {
	if pt, ok := c.portals[name]; ok {
		if pt.p != nil {
			c.closePortal(pt.p)
		}
		delete(c.portals, name)
	}
}

func noStatement(name string) error {
	if name == "" {
		return pgerr.New(pgerr.InvalidSQLStatementName, "unnamed prepared statement does not exist")
	}
	return pgerr.New(pgerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", name)
}

func noPortal(name string) error {
	return pgerr.New(pgerr.InvalidCursorName, "portal \"%s\" does not exist", name)
}
