package epochdb

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	stdsql "database/sql"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql"
	"github.com/epochdb/epochdb/sql/types"
)

// The database/sql driver "epochdb" runs SQL in-process: no socket, no
// protocol encoding, one sql.Session per connection. Its data source name
// is a directory, or ":memory:" for a fresh in-memory database per
// sql.Open; connections of one *sql.DB share one database, which the
// driver opens on first use and closes with the *sql.DB.
func init() { stdsql.Register("epochdb", &Driver{}) }

// Driver is the database/sql driver.
type Driver struct{}

// Open is not used: database/sql calls OpenConnector.
func (d *Driver) Open(name string) (driver.Conn, error) {
	c, err := d.OpenConnector(name)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector opens the database named by dsn.
func (d *Driver) OpenConnector(dsn string) (driver.Connector, error) {
	opts := &Options{}
	if dsn == ":memory:" {
		opts.InMemory = true
	}
	db, err := Open(dsn, opts)
	if err != nil {
		return nil, err
	}
	return &connector{db: db, owned: true}, nil
}

type connector struct {
	db    *DB
	owned bool // Close closes db: the driver opened it
	once  sync.Once
}

func (c *connector) Connect(context.Context) (driver.Conn, error) {
	s, err := c.db.engine.NewSession(sql.SessionParams{Database: sql.DatabaseName})
	if err != nil {
		return nil, err
	}
	return &conn{s: s}, nil
}

func (c *connector) Driver() driver.Driver { return &Driver{} }

// Close is called by database/sql when the *sql.DB closes.
func (c *connector) Close() error {
	var err error
	if c.owned {
		c.once.Do(func() { err = c.db.Close() })
	}
	return err
}

// conn is one session.
type conn struct {
	s *sql.Session
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	p, err := c.s.Prepare(ctx, query, nil)
	if err != nil {
		return nil, err
	}
	return &stmt{c: c, p: p}, nil
}

func (c *conn) Close() error {
	c.s.Close()
	return nil
}

func (c *conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	q := "BEGIN"
	switch stdsql.IsolationLevel(opts.Isolation) {
	case stdsql.LevelDefault:
	case stdsql.LevelReadCommitted:
		q += " ISOLATION LEVEL READ COMMITTED"
	case stdsql.LevelRepeatableRead, stdsql.LevelSnapshot:
		q += " ISOLATION LEVEL REPEATABLE READ"
	case stdsql.LevelSerializable:
		q += " ISOLATION LEVEL SERIALIZABLE"
	default:
		return nil, fmt.Errorf("epochdb: isolation level %v is not supported", stdsql.IsolationLevel(opts.Isolation))
	}
	if opts.ReadOnly {
		q += " READ ONLY"
	}
	if err := c.run(ctx, q); err != nil {
		return nil, err
	}
	return &tx{c: c}, nil
}

// run executes a statement without parameters or results.
func (c *conn) run(ctx context.Context, query string) error {
	p, err := c.s.Prepare(ctx, query, nil)
	if err != nil {
		return err
	}
	_, err = (&stmt{c: c, p: p}).ExecContext(ctx, nil)
	return err
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	p, err := c.s.Prepare(ctx, query, nil)
	if err != nil {
		c.sync()
		return nil, err
	}
	return (&stmt{c: c, p: p}).ExecContext(ctx, args)
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	p, err := c.s.Prepare(ctx, query, nil)
	if err != nil {
		c.sync()
		return nil, err
	}
	return (&stmt{c: c, p: p}).QueryContext(ctx, args)
}

// sync ends the implicit transaction of a statement outside BEGIN, as the
// protocol's Sync message does.
func (c *conn) sync() error { return c.s.Sync() }

type tx struct{ c *conn }

func (t *tx) Commit() error   { return t.c.run(context.Background(), "COMMIT") }
func (t *tx) Rollback() error { return t.c.run(context.Background(), "ROLLBACK") }

type stmt struct {
	c *conn
	p *sql.Prepared
}

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return len(s.p.ParamTypes()) }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

func (s *stmt) bind(ctx context.Context, args []driver.NamedValue) (*sql.Portal, error) {
	pts := s.p.ParamTypes()
	params := make([]any, len(pts))
	for i, a := range args {
		if i >= len(pts) {
			return nil, fmt.Errorf("epochdb: %d arguments for %d parameters", len(args), len(pts))
		}
		v, err := toDatum(a.Value, pts[i])
		if err != nil {
			return nil, err
		}
		params[i] = v
	}
	return s.c.s.Bind(ctx, s.p, params)
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	pt, err := s.bind(ctx, args)
	if err != nil {
		s.c.sync()
		return nil, err
	}
	defer pt.Close()
	tag, _, err := s.c.s.Execute(ctx, pt, 0, func([]any) error { return nil })
	if serr := s.c.sync(); err == nil {
		err = serr
	}
	if err != nil {
		return nil, err
	}
	return result(tag), nil
}

// result reads the affected-row count from a command tag.
type result string

func (r result) LastInsertId() (int64, error) {
	return 0, fmt.Errorf("epochdb: LastInsertId is not supported; use RETURNING")
}

func (r result) RowsAffected() (int64, error) {
	f := strings.Fields(string(r))
	if len(f) == 0 {
		return 0, nil
	}
	var n int64
	_, err := fmt.Sscan(f[len(f)-1], &n)
	return n, err
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	pt, err := s.bind(ctx, args)
	if err != nil {
		s.c.sync()
		return nil, err
	}
	return &rows{ctx: ctx, c: s.c, pt: pt, cols: pt.Columns()}, nil
}

// rows pulls results from the portal in batches.
type rows struct {
	ctx  context.Context
	c    *conn
	pt   *sql.Portal
	cols []sql.Column
	buf  [][]any
	done bool
	err  error
}

func (r *rows) Columns() []string {
	names := make([]string, len(r.cols))
	for i, c := range r.cols {
		names[i] = c.Name
	}
	return names
}

func (r *rows) Close() error {
	r.pt.Close()
	if !r.done {
		r.done = true
		return r.c.sync()
	}
	return nil
}

func (r *rows) Next(dest []driver.Value) error {
	for len(r.buf) == 0 {
		if r.done {
			if r.err != nil {
				return r.err
			}
			return io.EOF
		}
		_, done, err := r.c.s.Execute(r.ctx, r.pt, 256, func(row []any) error {
			r.buf = append(r.buf, row)
			return nil
		})
		if done || err != nil {
			r.done = true
			serr := r.c.sync()
			if err == nil {
				err = serr
			}
			r.err = err
		}
	}
	row := r.buf[0]
	r.buf = r.buf[1:]
	for i, v := range row {
		dest[i] = toDriver(v, r.cols[i].Type)
	}
	return nil
}

// toDatum converts a Go argument to a datum of parameter type t.
func toDatum(v any, t types.T) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch x := v.(type) {
	case string:
		return types.ParseText(t, x, time.UTC)
	case []byte:
		if t.Oid == types.OidBytea {
			return append([]byte(nil), x...), nil
		}
		return types.ParseText(t, string(x), time.UTC)
	case time.Time:
		return types.Cast(x.UTC(), types.Timestamptz, t, time.UTC)
	case int64:
		return types.Cast(x, types.Int8, t, time.UTC)
	case float64:
		return types.Cast(x, types.Float8, t, time.UTC)
	case bool:
		return types.Cast(x, types.Bool, t, time.UTC)
	}
	return nil, fmt.Errorf("epochdb: cannot convert %T to %s", v, t)
}

// toDriver converts a datum to a database/sql value.
func toDriver(v any, t types.T) driver.Value {
	switch x := v.(type) {
	case nil, int64, float64, bool, string, []byte, time.Time:
		return x
	case *apd.Decimal:
		return x.String()
	}
	return string(types.AppendText(nil, t, v, time.UTC))
}
