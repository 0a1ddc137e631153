package sql

import (
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
)

// This file is the surface pgwire (and the embedded database/sql driver)
// program against. Both protocols go through the same three steps:
//
//	Prepare (parse + plan, infer parameter types)   -> *Prepared
//	Bind    (parameters as datums)                   -> *Portal
//	Execute (run or resume, up to n rows)            -> rows, then a command tag
//
// The simple query protocol prepares every statement of the query string,
// binds each without parameters and executes it to the end; then it calls
// Sync, which ends the implicit transaction, as the extended protocol's Sync
// message does.

// SessionParams describe a new session, from the startup message.
type SessionParams struct {
	User     string
	Database string
	// Options are the startup message's other parameters (application_name,
	// client_encoding, DateStyle, TimeZone, search_path, options, ...).
	Options map[string]string
	// PID is what pg_backend_pid() returns and BackendKeyData carries.
	PID int32
	// Notice receives NOTICE and WARNING messages as they happen; their
	// Severity is set. It may be nil.
	Notice func(*pgerr.Error)
	// Notify receives the notifications of the channels the session
	// LISTENs on, when the notifying transactions commit. It is called
	// from other sessions' goroutines and must not block. It may be nil.
	Notify func(Notification)
}

// CopySpec says that executing a portal runs a COPY, and how the data is
// framed, so pgwire can send CopyInResponse or CopyOutResponse.
type CopySpec struct {
	In      bool // COPY ... FROM STDIN (else TO STDOUT)
	Binary  bool // FORMAT binary (else text or csv: one textual format)
	Columns int  // number of columns
}

// CopySource delivers the CopyData of a COPY FROM STDIN. Next returns the
// next chunk (chunks need not align with rows), io.EOF after CopyDone, or an
// error for CopyFail (its message) or a broken connection.
type CopySource interface {
	Next() ([]byte, error)
}

// The methods below are implemented in session.go:
//
//	func (e *Engine) NewSession(p SessionParams) (*Session, error)   // 3D000 for an unknown database
//	func (s *Session) Close()
//	func (s *Session) StatusParams() map[string]string     // every ParameterStatus to send after startup
//	func (s *Session) ChangedParams() map[string]string    // those changed since the last call (after SET)
//	func (s *Session) Location() *time.Location            // the TimeZone timestamptz values are shown in
//	func (s *Session) TxStatus() byte                      // 'I', 'T' or 'E', for ReadyForQuery
//	func (s *Session) PrepareAll(ctx context.Context, query string) ([]*Prepared, error)  // simple protocol; zero statements for an empty query
//	func (s *Session) Prepare(ctx context.Context, query string, paramTypes []types.Oid) (*Prepared, error) // extended protocol; 0 in paramTypes = infer; 42P18 if a type cannot be inferred
//	func (p *Prepared) ParamTypes() []types.T
//	func (p *Prepared) Columns() []Column                  // nil: the statement returns no rows (NoData)
//	func (s *Session) Bind(ctx context.Context, p *Prepared, params []any) (*Portal, error) // params are datums (nil = NULL), decoded by the caller with ParamTypes
//	func (p *Portal) Columns() []Column
//	func (p *Portal) Copy() *CopySpec                      // non-nil for COPY ... STDIN/STDOUT
//	func (s *Session) Execute(ctx context.Context, p *Portal, maxRows int, emit func(row []any) error) (tag string, done bool, err error)
//	func (s *Session) CopyFrom(ctx context.Context, p *Portal, src CopySource) (tag string, err error)
//	func (s *Session) CopyTo(ctx context.Context, p *Portal, emit func(data []byte) error) (tag string, err error)
//	func (p *Portal) Close()
//	func (s *Session) Sync() error                          // ends an implicit transaction (commit, or rollback after an error)
//
// Errors are *pgerr.Error (use pgerr.Convert on anything else). A session is
// used by one goroutine at a time; ctx cancellation (CancelRequest) stops the
// running statement with 57014.

// Column describes one result column, as RowDescription carries it.
type Column = plan.Column
