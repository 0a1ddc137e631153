package pgwire

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/epochdb/epochdb/sql"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/jackc/pgx/v5/pgproto3"
)

const (
	// startupTimeout bounds startup and authentication, as PostgreSQL's
	// authentication_timeout does, so a silent client cannot hold a slot.
	startupTimeout = time.Minute
	// maxStartupMessageSize bounds the messages of an unauthenticated
	// client (PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH).
	maxStartupMessageSize = 65535
	// flushThreshold is how much output a long result buffers before it is
	// written, whatever the client asked for.
	flushThreshold = 32 << 10
	// maxIdleBuffer is the largest output buffer kept between writes.
	maxIdleBuffer = 1 << 20
)

// aLongTimeAgo is a read deadline that has passed: reads fail at once.
var aLongTimeAgo = time.Unix(1, 0)

// conn is one client connection. Its goroutine (serve) owns every field
// except those under mu.
type conn struct {
	srv *Server
	// nc is what the conversation reads and writes: raw, or TLS over raw.
	// Only the connection's goroutine touches nc; others (shutdown, the
	// statement timeout) reach the socket through raw, which never changes.
	nc, raw net.Conn
	pid     int32
	secret  [4]byte
	log     *slog.Logger
	be      *pgproto3.Backend // decodes client messages; replies are encoded into out

	tls bool // the conversation runs over TLS
	// bytesRead counts what has come off nc, to tell whether a client sent
	// more than its SSLRequest before the handshake.
	bytesRead          int64
	encryptionRequests int    // answered 'N' before the startup message
	out                []byte // replies not yet written
	werr               error  // the first write error: the connection is dead
	closed             bool   // the conversation is over; nothing more is sent

	sess           Session
	loc            *time.Location // the session's TimeZone, for text datums
	stmts          map[string]*statement
	portals        map[string]*portal
	txStatus       byte // as of the last ReadyForQuery
	ignoreTillSync bool // an extended-protocol message failed
	panicked       bool // a Session call panicked; recoverSession must run
	quiet          bool // drop notices

	ctx  context.Context // the connection's; stop cancels it
	stop context.CancelFunc
	// stmtCtx is the statements' context, a child of ctx, and stmtCancel
	// cancels it. Statements share it until one is cancelled; see
	// statementContext.
	stmtCtx    context.Context
	stmtCancel context.CancelFunc
	endStmt    func() // endStatement, as a func made once

	// desc and descNames are sendRowDescription's scratch, and completion
	// complete's.
	desc       pgproto3.RowDescription
	descNames  []byte
	completion pgproto3.CommandComplete

	mu     sync.Mutex
	cancel context.CancelFunc // the running statement's, or nil

	// Notifications (LISTEN/NOTIFY) arrive from other sessions'
	// goroutines into pending. While the connection is idle, waiting for
	// the client's next command outside a transaction block,
	// deliverNotifications writes them to the socket at once; otherwise
	// they wait for the next ReadyForQuery that leaves the session idle.
	// wmu guards idle, pending and every write to nc.
	wmu     sync.Mutex
	idle    bool
	pending []sql.Notification
	wake    chan struct{} // tells deliverNotifications of a new one
	atReady bool          // ReadyForQuery was the last reply, and no message has come since
}

// statement is a prepared statement, by name. p is nil for an empty query.
type statement struct {
	p          Prepared
	paramTypes []types.T
	cols       []sql.Column
}

// portal is a bound statement, by name. p is nil for an empty query.
type portal struct {
	p       Portal
	cols    []sql.Column
	formats []int16 // result format per column
	// completed says an Execute sent the portal's CommandComplete. One
	// that returns rows can be executed again, for none; one that does
	// not cannot, as in PostgreSQL.
	completed bool
}

func newConn(s *Server, nc net.Conn, pid int32, secret [4]byte) *conn {
	c := &conn{
		srv:      s,
		nc:       nc,
		raw:      nc,
		pid:      pid,
		secret:   secret,
		log:      s.logger().With("pid", pid, "remote", nc.RemoteAddr().String()),
		loc:      time.UTC,
		stmts:    map[string]*statement{},
		portals:  map[string]*portal{},
		txStatus: 'I',
	}
	c.ctx, c.stop = context.WithCancel(context.Background())
	c.endStmt = c.endStatement
	c.wake = make(chan struct{}, 1)
	c.be = pgproto3.NewBackend(connReader{c}, nil)
	return c
}

// connReader flushes pending replies before every read from the socket:
// the server is about to wait for the client, and the client may be waiting
// for those replies, though it sent no Flush.
//
// Its errors are socketErrors, so that readFailed can tell a broken
// connection from a malformed message: pgproto3 reports both as plain
// errors, and a truncated message body even as io.EOF.
type connReader struct{ c *conn }

func (r connReader) Read(p []byte) (int, error) {
	if err := r.c.flush(); err != nil {
		return 0, socketError{err}
	}
	r.c.setIdle(true)
	n, err := r.c.nc.Read(p)
	r.c.setIdle(false)
	r.c.bytesRead += int64(n)
	if err != nil {
		err = socketError{err}
	}
	return n, err
}

type socketError struct{ err error }

func (e socketError) Error() string { return e.err.Error() }
func (e socketError) Unwrap() error { return e.err }

func (c *conn) serve() {
	defer c.srv.untrack(c)
	defer c.nc.Close()
	defer c.stop()
	defer c.closeSession()
	defer func() {
		if r := recover(); r != nil {
			// A bug in pgwire itself: pending output may end mid-message.
			c.log.Error("pgwire: connection panicked", "panic", r, "stack", string(debug.Stack()))
			c.out = c.out[:0]
			c.fatal(pgerr.New(pgerr.InternalError, "internal error: %v", r))
		}
	}()
	if c.startup() {
		go c.deliverNotifications()
		c.loop()
	}
	c.flush()
}

// loop reads and answers messages until the client leaves or the
// connection must close.
func (c *conn) loop() {
	for !c.closed && c.werr == nil {
		msg, err := c.be.Receive()
		if err != nil {
			c.readFailed(err, "invalid frontend message")
			return
		}
		c.atReady = false
		if c.ignoreTillSync {
			switch msg.(type) {
			case *pgproto3.Sync, *pgproto3.Terminate:
			default:
				continue
			}
		}
		switch m := msg.(type) {
		case *pgproto3.Query:
			c.query(m.String)
		case *pgproto3.Parse:
			c.parse(m)
		case *pgproto3.Bind:
			c.bind(m)
		case *pgproto3.Describe:
			c.describe(m)
		case *pgproto3.Execute:
			c.execute(m)
		case *pgproto3.Close:
			c.closeObject(m)
		case *pgproto3.Flush:
			c.flush()
		case *pgproto3.Sync:
			c.ignoreTillSync = false
			c.ready()
		case *pgproto3.Terminate:
			return
		case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
			// The rest of a COPY FROM STDIN that failed: the client sends
			// it before it reads the error. PostgreSQL drops it too.
		case *pgproto3.FunctionCall:
			c.sendError(pgerr.New(pgerr.FeatureNotSupported, "the function call protocol is not supported"))
			c.ready()
		default:
			c.fatal(pgerr.New(pgerr.ProtocolViolation, "unexpected %s message", messageName(msg)))
		}
	}
}

// readFailed ends the connection after a failed read: quietly if the client
// went away, with FATAL if it broke the protocol or the server is shutting
// down.
func (c *conn) readFailed(err error, what string) {
	var se socketError
	if errors.As(err, &se) {
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout() && c.srv.isClosing():
			c.fatal(pgerr.New(pgerr.AdminShutdown, "terminating connection due to administrator command"))
		case errors.As(err, &ne) && ne.Timeout():
			c.log.Info("pgwire: startup timed out")
		}
		c.closed = true
		return
	}
	c.log.Info("pgwire: protocol violation", "err", err)
	var tooLong *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &tooLong) {
		c.fatal(pgerr.New(pgerr.ProtocolViolation, "message of %d bytes exceeds the maximum of %d", tooLong.ActualBodyLen, tooLong.MaxExpectedBodyLen))
		return
	}
	c.fatal(pgerr.New(pgerr.ProtocolViolation, "%s: %s", what, strings.TrimSpace(err.Error())))
}

// startup runs the connection from its first byte to the first
// ReadyForQuery, and reports whether it got there.
func (c *conn) startup() bool {
	c.nc.SetReadDeadline(time.Now().Add(startupTimeout))
	c.be.SetMaxBodyLen(maxStartupMessageSize)
	sm := c.receiveStartup()
	if sm == nil {
		return false
	}

	// Protocol 3.2 and "_pq_." options are newer than this server: say so
	// and carry on with 3.0, as PostgreSQL 17 does.
	var unrecognized []string
	opts := map[string]string{}
	for k, v := range sm.Parameters {
		switch {
		case strings.HasPrefix(k, "_pq_."):
			unrecognized = append(unrecognized, k)
		case k != "user" && k != "database":
			opts[k] = v
		}
	}
	if sm.ProtocolVersion != pgproto3.ProtocolVersion30 || len(unrecognized) > 0 {
		slices.Sort(unrecognized)
		c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unrecognized})
	}

	user := sm.Parameters["user"]
	if user == "" {
		c.fatal(pgerr.New(pgerr.InvalidAuthorizationSpec, "no PostgreSQL user name specified in startup packet"))
		return false
	}
	if !c.authenticate(user) {
		return false
	}
	c.send(&pgproto3.AuthenticationOk{})

	db := cmp.Or(sm.Parameters["database"], user)
	if db != "epochdb" && db != "postgres" {
		c.fatal(pgerr.New(pgerr.InvalidCatalogName, "database \"%s\" does not exist", db))
		return false
	}
	params := sql.SessionParams{User: c.srv.user(), Database: db, Options: opts, PID: c.pid, Notice: c.notice, Notify: c.notify}
	err := c.call(func() (err error) {
		c.sess, err = c.srv.Engine.NewSession(params)
		return err
	})
	if err != nil {
		c.fatal(err)
		return false
	}
	c.sendParams(c.sess.StatusParams())
	c.send(&pgproto3.BackendKeyData{ProcessID: uint32(c.pid), SecretKey: c.secret[:]})

	// Clear the startup deadline unless Shutdown has set its own; the
	// server's mutex orders the two.
	c.srv.mu.Lock()
	closing := c.srv.closing
	if !closing {
		c.nc.SetReadDeadline(time.Time{})
	}
	c.srv.mu.Unlock()
	if closing {
		c.fatal(pgerr.New(pgerr.AdminShutdown, "terminating connection due to administrator command"))
		return false
	}
	c.be.SetAuthType(pgproto3.AuthTypeOk)
	c.be.SetMaxBodyLen(c.srv.maxMessageSize())
	c.txStatus = c.sess.TxStatus()
	c.send(&pgproto3.ReadyForQuery{TxStatus: c.txStatus})
	return c.flush() == nil
}

// receiveStartup answers encryption requests until the startup message
// arrives: an SSLRequest with 'S' and a TLS handshake if the server has a
// TLSConfig, anything else with 'N'. A cancel request is served and ends
// the connection; so does anything else, with nil.
func (c *conn) receiveStartup() *pgproto3.StartupMessage {
	for {
		msg, err := c.be.ReceiveStartupMessage()
		if err != nil {
			c.readFailed(err, "invalid startup packet")
			return nil
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest:
			if c.srv.TLSConfig == nil || c.tls {
				c.out = append(c.out, 'N')
				continue
			}
			// The request is the 8 bytes read so far (after any earlier
			// encryption requests, 8 bytes each, answered 'N').
			if c.bytesRead != int64(8*(1+c.encryptionRequests)) {
				c.fatal(pgerr.New(pgerr.ProtocolViolation, "received unencrypted data after SSL request"))
				return nil
			}
			if !c.startTLS() {
				return nil
			}
		case *pgproto3.GSSEncRequest:
			c.out = append(c.out, 'N')
			c.encryptionRequests++
		case *pgproto3.CancelRequest:
			c.srv.cancel(m.ProcessID, m.SecretKey)
			c.closed = true
			return nil
		case *pgproto3.StartupMessage:
			return m
		}
	}
}

// startTLS answers 'S' and runs the server side of the TLS handshake; from
// then on the connection reads and writes through TLS. The client sends
// nothing between its SSLRequest and the handshake, so no buffered byte is
// lost in the switch.
func (c *conn) startTLS() bool {
	c.out = append(c.out, 'S')
	if c.flush() != nil {
		return false
	}
	tc := tls.Server(c.nc, c.srv.TLSConfig)
	ctx, cancel := context.WithTimeout(c.ctx, tlsHandshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		c.log.Info("pgwire: TLS handshake failed", "err", err)
		return false
	}
	c.nc, c.tls = tc, true
	c.be = pgproto3.NewBackend(connReader{c}, nil)
	return true
}

// tlsHandshakeTimeout bounds a TLS handshake, so that a client that stalls
// in one does not hold its connection open.
const tlsHandshakeTimeout = 30 * time.Second

// query runs a simple Query message: every statement in it, stopping at the
// first error, then Sync.
func (c *conn) query(q string) {
	ctx, done := c.statementContext()
	err := c.runQuery(ctx, q)
	done()
	if err != nil {
		c.sendError(err)
	}
	c.ready()
}

func (c *conn) runQuery(ctx context.Context, q string) error {
	var stmts []Prepared
	err := c.call(func() (err error) {
		stmts, err = c.sess.PrepareAll(ctx, q)
		return err
	})
	if err != nil {
		return err
	}
	if len(stmts) == 0 {
		c.send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	for i, st := range stmts {
		var p Portal
		err := c.call(func() (err error) {
			p, err = c.sess.Bind(ctx, st, nil)
			return err
		})
		if err != nil {
			return err
		}
		// The query's last statement ends its implicit transaction before
		// its CommandComplete, as in PostgreSQL, so that an error of the
		// commit (a deferred check, a held cursor's rows) comes instead of
		// the tag, not after it.
		var commit func() error
		if i == len(stmts)-1 {
			commit = func() error { return c.call(c.sess.Sync) }
		}
		_, err = c.run(ctx, p, nil, 0, true, commit)
		c.closePortal(p)
		if err != nil || c.closed {
			return err
		}
	}
	return nil
}

// run executes a portal up to maxRows rows (0: all), sending its rows in
// formats and then CommandComplete, or PortalSuspended if rows remain
// (done is false). The simple protocol also wants the RowDescription first
// (describe), and may end its transaction before CommandComplete (end).
func (c *conn) run(ctx context.Context, p Portal, formats []int16, maxRows int, describe bool, end func() error) (done bool, err error) {
	if spec := p.Copy(); spec != nil {
		return true, c.runCopy(ctx, p, spec)
	}
	cols := p.Columns()
	if describe && cols != nil {
		if p.Binary() {
			formats = slices.Repeat([]int16{1}, len(cols))
		}
		c.sendRowDescription(cols, formats)
	}
	var tag string
	err = c.call(func() (err error) {
		tag, done, err = c.sess.Execute(ctx, p, maxRows, func(row []any) error {
			return c.writeRow(cols, formats, row)
		})
		return err
	})
	if err == nil && done && end != nil {
		err = end()
	}
	if err != nil {
		return true, err
	}
	if done {
		c.complete(tag)
	} else {
		c.send(&pgproto3.PortalSuspended{})
	}
	c.sendParams(c.sess.ChangedParams())
	return done, nil
}

// ready ends a Query or a Sync: it ends the implicit transaction and tells
// the client the transaction status.
func (c *conn) ready() {
	if !c.panicked {
		if err := c.call(c.sess.Sync); err != nil {
			c.sendError(err)
		}
	}
	if c.panicked && !c.recoverSession() {
		c.fatal(pgerr.New(pgerr.InternalError, "terminating connection because of an internal error inside a transaction block"))
		return
	}
	c.sendParams(c.sess.ChangedParams())
	c.txStatus = c.sess.TxStatus()
	if c.txStatus == 'I' {
		// Portals live as long as their transaction.
		c.closePortals()
	}
	if c.txStatus == 'I' {
		c.wmu.Lock()
		for _, n := range c.pending {
			c.send(&pgproto3.NotificationResponse{PID: uint32(n.PID), Channel: n.Channel, Payload: n.Payload})
		}
		c.pending = nil
		c.wmu.Unlock()
	}
	c.send(&pgproto3.ReadyForQuery{TxStatus: c.txStatus})
	c.flush()
	c.atReady = true
}

// notify takes a notification for a channel the session listens on. It
// runs on the notifying session's goroutine and must not block on this
// connection's client: deliverNotifications writes it.
func (c *conn) notify(n sql.Notification) {
	c.wmu.Lock()
	c.pending = append(c.pending, n)
	c.wmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default: // a wakeup is pending already
	}
}

// deliverNotifications writes the notifications that arrive while the
// connection is idle, until the connection ends. A client that does not
// read blocks this goroutine alone.
func (c *conn) deliverNotifications() {
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.wake:
		}
		c.wmu.Lock()
		if c.idle {
			c.writePending()
		}
		c.wmu.Unlock()
	}
}

// writePending writes the pending notifications to the socket. c.wmu is
// held.
func (c *conn) writePending() {
	if len(c.pending) == 0 || c.werr != nil {
		return
	}
	var buf []byte
	for _, n := range c.pending {
		buf, _ = (&pgproto3.NotificationResponse{PID: uint32(n.PID), Channel: n.Channel, Payload: n.Payload}).Encode(buf)
	}
	c.pending = nil
	_, c.werr = c.nc.Write(buf)
}

// setIdle marks the connection as waiting for the client, or as no longer
// waiting. Waiting for a command outside a transaction block, it first
// writes the notifications that arrived meanwhile.
func (c *conn) setIdle(waiting bool) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.idle = waiting && c.atReady && c.txStatus == 'I' && !c.closed && c.werr == nil
	if c.idle {
		c.writePending()
	}
}

// recoverSession puts the session back to idle after a Session call
// panicked, by rolling back with the session's own ROLLBACK: what
// PostgreSQL does to a statement that fails outside a transaction block. A
// client inside a block expects it to be aborted, not gone, and nothing
// here can give it that, so then recoverSession reports false and the
// connection closes.
func (c *conn) recoverSession() bool {
	c.panicked = false
	c.closePortals()
	if c.panicked || c.txStatus != 'I' {
		return false
	}
	c.quiet = true // no "there is no transaction in progress" warning
	defer func() { c.quiet = false }()
	err := c.call(func() error {
		stmts, err := c.sess.PrepareAll(c.ctx, "ROLLBACK")
		if err != nil {
			return err
		}
		for _, st := range stmts {
			p, err := c.sess.Bind(c.ctx, st, nil)
			if err != nil {
				return err
			}
			_, _, err = c.sess.Execute(c.ctx, p, 0, func([]any) error { return nil })
			p.Close()
			if err != nil {
				return err
			}
		}
		return c.sess.Sync()
	})
	if err != nil {
		c.log.Error("pgwire: could not roll back after a panic", "err", err)
		return false
	}
	return c.sess.TxStatus() == 'I'
}

// call runs f, a call into the SQL layer, and turns a panic into XX000. The
// session's state is unknown after that, so ready recovers it before the
// next ReadyForQuery.
func (c *conn) call(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			c.panicked = true
			err = c.internalError(r)
		}
	}()
	return f()
}

func (c *conn) internalError(r any) error {
	c.log.Error("pgwire: panic in a statement", "panic", r, "stack", string(debug.Stack()))
	return pgerr.New(pgerr.InternalError, "internal error: %v", r)
}

// statementContext returns the context of a statement that a CancelRequest
// may cancel, and the function that ends it.
func (c *conn) statementContext() (context.Context, func()) {
	if c.stmtCtx == nil || c.stmtCtx.Err() != nil {
		c.stmtCtx, c.stmtCancel = context.WithCancel(c.ctx)
	}
	c.mu.Lock()
	c.cancel = c.stmtCancel
	c.mu.Unlock()
	return c.stmtCtx, c.endStmt
}

// endStatement ends the statement that statementContext began: a
// CancelRequest from now on finds nothing to cancel. The context stays for
// the next statement unless a cancel reached it.
func (c *conn) endStatement() {
	c.mu.Lock()
	c.cancel = nil
	c.mu.Unlock()
}

func (c *conn) cancelStatement() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
	}
}

// interrupt makes the connection's next wait for the client fail, so that it
// closes once its running statement is done. Shutdown calls it with the
// server's mutex held.
func (c *conn) interrupt() { c.raw.SetReadDeadline(aLongTimeAgo) }

// kill closes the socket and then cancels the running statement, whose
// reply therefore goes nowhere.
func (c *conn) kill() {
	c.raw.Close()
	c.stop()
}

func (c *conn) closePortal(p Portal) {
	c.call(func() error {
		p.Close()
		return nil
	})
}

func (c *conn) closePortals() {
	for name, pt := range c.portals {
		if pt.p != nil {
			c.closePortal(pt.p)
		}
		delete(c.portals, name)
	}
}

func (c *conn) closeSession() {
	if c.sess == nil {
		return
	}
	c.closePortals()
	c.call(func() error {
		c.sess.Close()
		return nil
	})
}

// notice is the session's Notice callback. The session calls it while it
// runs one of its methods, on the connection's goroutine.
func (c *conn) notice(e *pgerr.Error) {
	if !c.quiet {
		c.send((*pgproto3.NoticeResponse)(errorResponse(e, cmp.Or(e.Severity, "NOTICE"))))
	}
}

// sendParams sends ParameterStatus for each parameter, in PostgreSQL's
// order (by name, ignoring case).
func (c *conn) sendParams(params map[string]string) {
	if len(params) == 0 {
		return
	}
	names := slices.SortedFunc(maps.Keys(params), func(a, b string) int {
		return cmp.Compare(strings.ToLower(a), strings.ToLower(b))
	})
	for _, name := range names {
		v := params[name]
		c.send(&pgproto3.ParameterStatus{Name: name, Value: v})
		if name == "TimeZone" {
			c.loc = c.sess.Location() // the zone SQL uses, however it was spelled
		}
	}
}

// complete sends CommandComplete with tag.
func (c *conn) complete(tag string) {
	c.completion.CommandTag = append(c.completion.CommandTag[:0], tag...)
	c.send(&c.completion)
}

// sendError sends err as an ErrorResponse.
func (c *conn) sendError(err error) {
	e := pgerr.Convert(err)
	c.send(errorResponse(e, cmp.Or(e.Severity, "ERROR")))
}

// fatal sends err as a FATAL ErrorResponse and ends the conversation.
func (c *conn) fatal(err error) {
	c.send(errorResponse(pgerr.Convert(err), "FATAL"))
	c.flush()
	c.closed = true
}

// errorResponse maps e onto an ErrorResponse of the given severity.
func errorResponse(e *pgerr.Error, severity string) *pgproto3.ErrorResponse {
	return &pgproto3.ErrorResponse{
		Severity:            severity,
		SeverityUnlocalized: severity,
		Code:                cmp.Or(e.Code, pgerr.InternalError),
		Message:             e.Message,
		Detail:              e.Detail,
		Hint:                e.Hint,
		Where:               e.Where,
		Position:            int32(e.Position),
		TableName:           e.Table,
		ColumnName:          e.Column,
		ConstraintName:      e.Constraint,
	}
}

// send appends m to the pending output.
func (c *conn) send(m pgproto3.BackendMessage) {
	if c.closed {
		return
	}
	out, err := m.Encode(c.out)
	if err != nil {
		// Only a message beyond the protocol's limits (1 GiB) fails.
		c.log.Error("pgwire: cannot encode a reply", "msg", messageName(m), "err", err)
		c.closed = true
		return
	}
	c.out = out
}

// flush writes the pending output.
func (c *conn) flush() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil || len(c.out) == 0 {
		return c.werr
	}
	_, c.werr = c.nc.Write(c.out)
	if cap(c.out) > maxIdleBuffer {
		c.out = nil
	} else {
		c.out = c.out[:0]
	}
	return c.werr
}

// messageName is a message's name for errors: "Bind" for *pgproto3.Bind,
// "Password" for *pgproto3.PasswordMessage.
func messageName(m any) string {
	name := fmt.Sprintf("%T", m)
	return strings.TrimSuffix(name[strings.LastIndexByte(name, '.')+1:], "Message")
}
