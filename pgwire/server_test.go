package pgwire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// SSLRequest and GSSENCRequest are refused with a single 'N', after which
// the client starts up in the clear, as libpq does with sslmode=prefer.
func TestEncryptionRequestsAnsweredN(t *testing.T) {
	ts := startServer(t, nil)
	c := dial(t, ts.addr)
	for _, code := range []uint32{80877103, 80877104} { // SSLRequest, GSSENCRequest
		req := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), code)
		c.write(req)
		b := make([]byte, 1)
		c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(c.nc, b); err != nil || b[0] != 'N' {
			t.Fatalf("answer to request %d: %q, %v; want N", code, b, err)
		}
	}
	out := c.startup(map[string]string{"user": "u", "database": "epochdb"})
	if out[len(out)-1] != "ReadyForQuery I" {
		t.Fatalf("startup after the requests: %v", out)
	}
}

func TestStartupProtocolVersions(t *testing.T) {
	ts := startServer(t, nil)

	// 3.2 is negotiated down to 3.0: pgx asks for it with
	// max_protocol_version=latest.
	conn, err := pgconnect(t, ts.addr, "u", "", "max_protocol_version=latest")
	if err != nil {
		t.Fatalf("3.2 client: %v", err)
	}
	if _, err := conn.Exec(context.Background(), "insert").ReadAll(); err != nil {
		t.Fatal(err)
	}

	// Protocol 2 is long gone.
	c := dial(t, ts.addr)
	c.write([]byte{0, 0, 0, 8, 0, 2, 0, 0})
	got := c.readUntil("(closed)", 1)
	if len(got) != 2 || !strings.HasPrefix(got[0], "ErrorResponse FATAL 08P01") {
		t.Fatalf("protocol 2: %v", got)
	}
}

// A CancelRequest with the BackendKeyData of a connection cancels its
// running statement (57014); with a wrong secret it does nothing.
func TestCancelRequest(t *testing.T) {
	ts := startServer(t, func(_ *Server, e *fakeEngine) { e.allowSleep = true })
	conn, err := pgconnect(t, ts.addr, "u", "")
	if err != nil {
		t.Fatal(err)
	}
	result := make(chan error, 1)
	go func() {
		_, err := conn.Exec(context.Background(), "sleep").ReadAll()
		result <- err
	}()
	<-ts.eng.sleeping

	wrong := dial(t, ts.addr)
	wrong.send(&pgproto3.CancelRequest{ProcessID: conn.PID(), SecretKey: []byte{1, 2, 3, 4}})
	if got := wrong.receive(); got != "(closed)" {
		t.Fatalf("cancel connection answered %s", got)
	}
	select {
	case err := <-result:
		t.Fatalf("a wrong secret cancelled the statement: %v", err)
	case <-time.After(50 * time.Millisecond):
	}

	if err := conn.CancelRequest(context.Background()); err != nil {
		t.Fatal(err)
	}
	var pe *pgconn.PgError
	if err := <-result; !errors.As(err, &pe) || pe.Code != "57014" {
		t.Fatalf("cancelled statement: %v, want 57014", err)
	}
	if rows, err := conn.Exec(context.Background(), "rows 2").ReadAll(); err != nil || len(rows[0].Rows) != 2 {
		t.Fatalf("after cancel: %v, %v", rows, err)
	}
	// A cancel that finds the connection idle cancels nothing, not even
	// the statement after it (statements share a context until one is
	// cancelled).
	if err := conn.CancelRequest(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the cancel connection is served on its own goroutine
	for range 2 {
		if rows, err := conn.Exec(context.Background(), "rows 2").ReadAll(); err != nil || len(rows[0].Rows) != 2 {
			t.Fatalf("after a cancel while idle: %v, %v", rows, err)
		}
	}
}

// A connection that breaks the protocol closes; the others, including one
// in the middle of a transaction, do not notice.
func TestBadInputClosesOnlyThatConnection(t *testing.T) {
	ts := startServer(t, nil)
	good := connect(t, ts.addr)
	if got := good.simple("begin; insert"); got[len(got)-1] != "ReadyForQuery T" {
		t.Fatal(got)
	}
	var wg sync.WaitGroup
	for i, bad := range [][]byte{
		{'Q', 0x7f, 0xff, 0xff, 0xff}, // 2 GiB
		{'Q', 0, 0, 0, 2},             // shorter than its length field
		{'?', 0, 0, 0, 4},             // no such message
		{'B', 0, 0, 0, 5, 0},          // truncated body
		{'E', 0, 0, 0, 4},             // Execute without its portal name
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := connect(t, ts.addr)
			c.write(bad)
			got := c.readUntil("(closed)", 1)
			if len(got) != 2 || !strings.HasPrefix(got[0], "ErrorResponse FATAL 08P01") {
				t.Errorf("bad input %d (%x): %v", i, bad, got)
			}
		}()
	}
	wg.Wait()
	if got := good.simple("insert; commit"); !slices.Equal(got, []string{`CommandComplete "INSERT 0 1"`, `CommandComplete "COMMIT"`, "ReadyForQuery I"}) {
		t.Fatalf("the good connection after the bad ones: %v", got)
	}
}

// A panic is logged with its stack, and the session is rolled back with
// its own ROLLBACK, without a warning reaching the client.
func TestPanicIsLoggedAndRolledBack(t *testing.T) {
	ts := startServer(t, nil)
	c := connect(t, ts.addr)
	got := c.simple("panic")
	if !slices.Equal(got, []string{`ErrorResponse ERROR XX000 "internal error: fake engine panic"`, "ReadyForQuery I"}) {
		t.Fatalf("got %v", got)
	}
	var logged bool
	for _, r := range ts.logs.records() {
		logged = logged || strings.Contains(r, "panic=fake engine panic") && strings.Contains(r, "fake_test.go")
	}
	if !logged {
		t.Errorf("no log record with the panic and its stack:\n%s", strings.Join(ts.logs.records(), "\n"))
	}
	s := ts.eng.openSessions()[0]
	if !slices.Equal(s.executed, []string{"panic", "ROLLBACK"}) {
		t.Errorf("session ran %q, want the panic and then ROLLBACK", s.executed)
	}
}

// countingListener counts the writes to every connection it accepts.
type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	return &countingConn{nc, &l.writes}, err
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countingConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// A pipelined batch (pgx's Batch, JDBC's executeBatch: many statements, one
// Sync) is answered with a few large writes, not one per reply.
func TestPipelinedBatchIsAnsweredInFewWrites(t *testing.T) {
	eng := newFakeEngine()
	srv := &Server{Engine: eng.engine(), Logger: slogDiscard()}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &countingListener{Listener: inner}
	go srv.Serve(l)
	defer srv.Shutdown(context.Background())

	c := connect(t, inner.Addr().String())
	before := l.writes.Load()
	const n = 200
	for range n {
		c.fe.Send(&pgproto3.Parse{Query: "rows 1"})
		c.fe.Send(&pgproto3.Bind{})
		c.fe.Send(&pgproto3.Execute{})
	}
	c.send(&pgproto3.Sync{}) // one write of the whole batch
	if got := c.readUntil("ReadyForQuery", 1); len(got) != 4*n+1 {
		t.Fatalf("%d replies, want %d: %v", len(got), 4*n+1, got[len(got)-3:])
	}
	if w := l.writes.Load() - before; w > 3 {
		t.Errorf("%d writes for a batch of %d statements", w, n)
	}
}

func TestCopyFromKeepsEveryByte(t *testing.T) {
	ts := startServer(t, nil)
	conn, err := pgconnect(t, ts.addr, "u", "")
	if err != nil {
		t.Fatal(err)
	}
	var data bytes.Buffer
	for i := range 50000 {
		fmt.Fprintf(&data, "%d\trow number %d\n", i, i)
	}
	tag, err := conn.CopyFrom(context.Background(), bytes.NewReader(data.Bytes()), "copy in")
	if err != nil || tag.String() != "COPY 50000" {
		t.Fatalf("CopyFrom: %v %v", tag, err)
	}
	s := ts.eng.openSessions()[0]
	if got := bytes.Join(s.copied, nil); !bytes.Equal(got, data.Bytes()) {
		t.Fatalf("the session got %d bytes in %d chunks, not the %d sent", len(got), len(s.copied), data.Len())
	}

	var out bytes.Buffer
	if tag, err := conn.CopyTo(context.Background(), &out, "copy out"); err != nil || out.String() != "1\tone\n2\ttwo\n" || tag.String() != "COPY 2" {
		t.Fatalf("CopyTo: %q %v %v", out.String(), tag, err)
	}
}

// pgconn's extended-protocol paths: parameters and results in text and
// binary, prepared statements, and large results spanning many writes.
func TestPgconnExtendedProtocol(t *testing.T) {
	ts := startServer(t, nil)
	conn, err := pgconnect(t, ts.addr, "u", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res := conn.ExecParams(ctx, "echo $1 $2",
		[][]byte{binary.BigEndian.AppendUint64(nil, 42), []byte("hi")}, []uint32{20, 25},
		[]int16{1, 0}, []int16{0, 1}).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "42" || string(res.Rows[0][1]) != "hi" {
		t.Fatalf("ExecParams: %v %q", res.Err, res.Rows)
	}
	if res.FieldDescriptions[1].Format != 1 || res.FieldDescriptions[0].DataTypeOID != 20 {
		t.Fatalf("field descriptions %+v", res.FieldDescriptions)
	}

	sd, err := conn.Prepare(ctx, "stmt", "echo $1", nil)
	if err != nil || !slices.Equal(sd.ParamOIDs, []uint32{23}) {
		t.Fatalf("Prepare: %+v %v", sd, err)
	}
	for i := range 3 {
		res := conn.ExecPrepared(ctx, "stmt", [][]byte{fmt.Appendf(nil, "%d", i)}, nil, nil).Read()
		if res.Err != nil || string(res.Rows[0][0]) != fmt.Sprint(i) {
			t.Fatalf("ExecPrepared %d: %v %q", i, res.Err, res.Rows)
		}
	}

	rows, err := conn.Exec(ctx, "rows 100000").ReadAll()
	if err != nil || len(rows[0].Rows) != 100000 || string(rows[0].Rows[99999][0]) != "100000" {
		t.Fatalf("large result: %v", err)
	}
}

// Shutdown lets a running statement finish and answer, closes idle
// connections with 57P01, closes every session and stops accepting.
func TestShutdownWaitsForRunningStatements(t *testing.T) {
	eng := newFakeEngine()
	eng.allowSleep = true
	srv := &Server{Engine: eng.engine(), Logger: slogDiscard()}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()

	idle := connect(t, l.Addr().String())
	busy := connect(t, l.Addr().String())
	busy.send(&pgproto3.Query{String: "sleep"})
	<-eng.sleeping

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(ctx) }()

	if got := idle.readUntil("(closed)", 1); !slices.Equal(got, []string{`ErrorResponse FATAL 57P01 "terminating connection due to administrator command"`, "(closed)"}) {
		t.Fatalf("idle connection: %v", got)
	}
	if err := <-served; !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := net.Dial("tcp", l.Addr().String()); err == nil {
		t.Fatal("the server still accepts connections")
	}
	// The sleeping statement outlives the deadline: Shutdown cancels it and
	// closes the connection.
	if err := <-shut; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	if got := busy.readUntil("(closed)", 1); !slices.Equal(got, []string{"(closed)"}) {
		t.Fatalf("busy connection: %v", got)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown after the connections are gone: %v", err)
	}
	for _, s := range eng.openSessions() {
		t.Errorf("session %d not closed", s.params.PID)
	}
}

// A statement that finishes in time, say a COMMIT waiting for its fsync, is
// answered before its connection closes.
func TestShutdownAnswersFinishedStatement(t *testing.T) {
	eng := newFakeEngine()
	eng.allowSleep = true
	srv := &Server{Engine: eng.engine(), Logger: slogDiscard()}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	busy := connect(t, l.Addr().String())
	busy.send(&pgproto3.Query{String: "sleep"})
	<-eng.sleeping
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	time.Sleep(20 * time.Millisecond) // Shutdown is waiting for the statement
	close(eng.wake)
	got := busy.readUntil("(closed)", 1)
	want := []string{
		"RowDescription n:20",
		`CommandComplete "SLEEP"`,
		"ReadyForQuery I",
		`ErrorResponse FATAL 57P01 "terminating connection due to administrator command"`,
		"(closed)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
}

func TestServeRejectsBadConfiguration(t *testing.T) {
	for _, s := range []*Server{
		{},
		{Engine: newFakeEngine().engine(), Password: "pw", AuthMethod: "trust"},
		{Engine: newFakeEngine().engine(), AuthMethod: "md5"},
	} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Serve(l); err == nil || errors.Is(err, ErrServerClosed) {
			t.Errorf("%+v: Serve returned %v", s, err)
		}
		if _, err := net.Dial("tcp", l.Addr().String()); err == nil {
			t.Errorf("%+v: the listener is still open", s)
		}
	}
}
