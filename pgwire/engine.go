package pgwire

import (
	"context"
	"time"

	"github.com/epochdb/epochdb/sql"
	"github.com/epochdb/epochdb/sql/types"
)

// Engine starts sessions. It is the whole of the SQL layer the server sees,
// as interfaces rather than *sql.Engine so that tests can drive the protocol
// with a scripted fake. Adapt makes one from *sql.Engine:
//
//	pgwire.Adapt(engine.NewSession) // engine is a *sql.Engine
//
// NewSession's error, a *pgerr.Error (3D000 for an unknown database, say),
// is sent to the client as a FATAL ErrorResponse.
type Engine interface {
	NewSession(sql.SessionParams) (Session, error)
}

// Session is one connection's conversation with the SQL layer; sql/api.go
// documents each method. The server calls it from one goroutine only.
type Session interface {
	StatusParams() map[string]string
	ChangedParams() map[string]string
	Location() *time.Location
	TxStatus() byte
	PrepareAll(ctx context.Context, query string) ([]Prepared, error)
	Prepare(ctx context.Context, query string, paramTypes []types.Oid) (Prepared, error)
	Bind(ctx context.Context, p Prepared, params []any) (Portal, error)
	Execute(ctx context.Context, p Portal, maxRows int, emit func(row []any) error) (tag string, done bool, err error)
	CopyFrom(ctx context.Context, p Portal, src sql.CopySource) (tag string, err error)
	CopyTo(ctx context.Context, p Portal, emit func(data []byte) error) (tag string, err error)
	Sync() error
	Close()
}

// Prepared is a parsed and planned statement. Columns is nil for a statement
// that returns no rows.
type Prepared interface {
	ParamTypes() []types.T
	Columns() []sql.Column
}

// Portal is a statement bound to its parameters. Copy is non-nil when
// executing it runs COPY FROM STDIN or COPY TO STDOUT. Binary says the
// simple protocol sends its rows in the binary format: a FETCH from a
// BINARY cursor.
type Portal interface {
	Columns() []sql.Column
	Copy() *sql.CopySpec
	Binary() bool
	Close()
}

// Adapt makes an Engine from a constructor of sessions whose methods take and
// return their own concrete statement and portal types, as *sql.Session's
// do. The server only ever hands a session the statements and portals that
// session made, so the conversions back cannot fail.
func Adapt[S session[P, Q], P Prepared, Q Portal](newSession func(sql.SessionParams) (S, error)) Engine {
	return adapter[S, P, Q](newSession)
}

// session is Session with concrete statement and portal types.
type session[P Prepared, Q Portal] interface {
	StatusParams() map[string]string
	ChangedParams() map[string]string
	Location() *time.Location
	TxStatus() byte
	PrepareAll(ctx context.Context, query string) ([]P, error)
	Prepare(ctx context.Context, query string, paramTypes []types.Oid) (P, error)
	Bind(ctx context.Context, p P, params []any) (Q, error)
	Execute(ctx context.Context, p Q, maxRows int, emit func(row []any) error) (tag string, done bool, err error)
	CopyFrom(ctx context.Context, p Q, src sql.CopySource) (tag string, err error)
	CopyTo(ctx context.Context, p Q, emit func(data []byte) error) (tag string, err error)
	Sync() error
	Close()
}

type adapter[S session[P, Q], P Prepared, Q Portal] func(sql.SessionParams) (S, error)

func (a adapter[S, P, Q]) NewSession(params sql.SessionParams) (Session, error) {
	s, err := a(params)
	if err != nil {
		return nil, err
	}
	return adapted[S, P, Q]{s}, nil
}

type adapted[S session[P, Q], P Prepared, Q Portal] struct{ s S }

func (a adapted[S, P, Q]) StatusParams() map[string]string  { return a.s.StatusParams() }
func (a adapted[S, P, Q]) ChangedParams() map[string]string { return a.s.ChangedParams() }
func (a adapted[S, P, Q]) Location() *time.Location         { return a.s.Location() }
func (a adapted[S, P, Q]) TxStatus() byte                   { return a.s.TxStatus() }
func (a adapted[S, P, Q]) Sync() error                      { return a.s.Sync() }
func (a adapted[S, P, Q]) Close()                           { a.s.Close() }

func (a adapted[S, P, Q]) PrepareAll(ctx context.Context, query string) ([]Prepared, error) {
	ps, err := a.s.PrepareAll(ctx, query)
	if err != nil {
		return nil, err
	}
	out := make([]Prepared, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out, nil
}

// Prepare and Bind return a nil interface, not a typed nil, on error.
func (a adapted[S, P, Q]) Prepare(ctx context.Context, query string, paramTypes []types.Oid) (Prepared, error) {
	p, err := a.s.Prepare(ctx, query, paramTypes)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (a adapted[S, P, Q]) Bind(ctx context.Context, p Prepared, params []any) (Portal, error) {
	q, err := a.s.Bind(ctx, p.(P), params)
	if err != nil {
		return nil, err
	}
	return q, nil
}

func (a adapted[S, P, Q]) Execute(ctx context.Context, p Portal, maxRows int, emit func(row []any) error) (string, bool, error) {
	return a.s.Execute(ctx, p.(Q), maxRows, emit)
}

func (a adapted[S, P, Q]) CopyFrom(ctx context.Context, p Portal, src sql.CopySource) (string, error) {
	return a.s.CopyFrom(ctx, p.(Q), src)
}

func (a adapted[S, P, Q]) CopyTo(ctx context.Context, p Portal, emit func(data []byte) error) (string, error) {
	return a.s.CopyTo(ctx, p.(Q), emit)
}
