package pgwire

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
)

// testServer is a Server on 127.0.0.1:0 over a fakeEngine.
type testServer struct {
	*Server
	eng  *fakeEngine
	addr string
	logs *logRecorder
}

func startServer(t testing.TB, configure func(*Server, *fakeEngine)) *testServer {
	t.Helper()
	eng := newFakeEngine()
	logs := &logRecorder{}
	srv := &Server{Engine: eng.engine(), Logger: slog.New(logs), MaxMessageSize: 1 << 20}
	if configure != nil {
		configure(srv, eng)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	ts := &testServer{Server: srv, eng: eng, addr: l.Addr().String(), logs: logs}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		if n := eng.misuse.Load(); n > 0 {
			t.Errorf("the server used a session concurrently or after Close %d times", n)
		}
		for _, s := range eng.openSessions() {
			t.Errorf("session of pid %d was not closed", s.params.PID)
		}
		for _, r := range logs.unexpectedPanics() {
			t.Errorf("unexpected panic: %s", r)
		}
	})
	return ts
}

func slogDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// logRecorder is a slog.Handler that keeps every record of at least its
// level as one line.
type logRecorder struct {
	level slog.Level
	mu    sync.Mutex
	lines []string
}

func (h *logRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h *logRecorder) WithGroup(string) slog.Handler                { return h }
func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	h.mu.Lock()
	h.lines = append(h.lines, b.String())
	h.mu.Unlock()
	return nil
}

// unexpectedPanics returns the panics logged other than those the fake
// engine makes on purpose (the panic statement and the mismatched datum).
func (h *logRecorder) unexpectedPanics() []string {
	return unexpectedPanics(h.records())
}

// takeUnexpectedPanics is unexpectedPanics, forgetting every record so far.
func (h *logRecorder) takeUnexpectedPanics() []string {
	h.mu.Lock()
	lines := h.lines
	h.lines = nil
	h.mu.Unlock()
	return unexpectedPanics(lines)
}

func unexpectedPanics(records []string) []string {
	var out []string
	for _, r := range records {
		if strings.Contains(r, "panic") && !strings.Contains(r, fakePanic) && !strings.Contains(r, "is string, not int64") {
			out = append(out, r)
		}
	}
	return out
}

func (h *logRecorder) records() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.lines...)
}

// client is a hand-driven frontend.
type client struct {
	t  testing.TB
	nc net.Conn
	fe *pgproto3.Frontend
}

func dial(t testing.TB, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
}

// connect dials and starts up a trusted session, checking it gets to
// ReadyForQuery.
func connect(t testing.TB, addr string) *client {
	t.Helper()
	c := dial(t, addr)
	out := c.startup(map[string]string{"user": "test", "database": "epochdb"})
	if last := out[len(out)-1]; last != "ReadyForQuery I" {
		t.Fatalf("startup ended with %s:\n%s", last, strings.Join(out, "\n"))
	}
	return c
}

func (c *client) startup(params map[string]string) []string {
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: params})
	return c.readUntil("ReadyForQuery", 1)
}

func (c *client) send(msgs ...pgproto3.FrontendMessage) {
	c.t.Helper()
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) write(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// receive returns the next message, rendered, "(closed)" at EOF or
// "(timeout)" if none comes.
func (c *client) receive() string {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	m, err := c.fe.Receive()
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed):
		return "(closed)"
	case err != nil:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return "(timeout)"
		}
		if errors.As(err, &ne) {
			return "(closed)" // reset
		}
		c.t.Fatalf("receive: %v", err)
	}
	return render(m)
}

// readUntil reads until the n'th message of type name, or until the server
// closes the connection.
func (c *client) readUntil(name string, n int) []string {
	c.t.Helper()
	var out []string
	for {
		s := c.receive()
		out = append(out, s)
		if s == "(closed)" || s == "(timeout)" {
			return out
		}
		if strings.HasPrefix(s, name) {
			if n--; n <= 0 {
				return out
			}
		}
	}
}

// simple runs a simple query and returns its replies.
func (c *client) simple(q string) []string {
	c.t.Helper()
	c.send(&pgproto3.Query{String: q})
	return c.readUntil("ReadyForQuery", 1)
}

// render shows a server message on one line, for comparing with the
// expectations in testdata.
func render(m pgproto3.BackendMessage) string {
	switch m := m.(type) {
	case *pgproto3.ParameterStatus:
		return fmt.Sprintf("ParameterStatus %s=%q", m.Name, m.Value)
	case *pgproto3.BackendKeyData:
		return "BackendKeyData" // random
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery " + string(m.TxStatus)
	case *pgproto3.RowDescription:
		var b strings.Builder
		b.WriteString("RowDescription")
		for _, f := range m.Fields {
			fmt.Fprintf(&b, " %s:%d", f.Name, f.DataTypeOID)
			if f.Format == 1 {
				b.WriteString(":binary")
			}
		}
		return b.String()
	case *pgproto3.DataRow:
		var b strings.Builder
		b.WriteString("DataRow")
		for _, v := range m.Values {
			b.WriteString(" " + renderValue(v))
		}
		return b.String()
	case *pgproto3.CommandComplete:
		return fmt.Sprintf("CommandComplete %q", m.CommandTag)
	case *pgproto3.ErrorResponse:
		return renderError("ErrorResponse", m)
	case *pgproto3.NoticeResponse:
		return renderError("NoticeResponse", (*pgproto3.ErrorResponse)(m))
	case *pgproto3.ParameterDescription:
		var b strings.Builder
		b.WriteString("ParameterDescription")
		for _, oid := range m.ParameterOIDs {
			fmt.Fprintf(&b, " %d", oid)
		}
		return b.String()
	case *pgproto3.CopyInResponse:
		return fmt.Sprintf("CopyInResponse %d %v", m.OverallFormat, m.ColumnFormatCodes)
	case *pgproto3.CopyOutResponse:
		return fmt.Sprintf("CopyOutResponse %d %v", m.OverallFormat, m.ColumnFormatCodes)
	case *pgproto3.CopyData:
		return "CopyData " + renderValue(m.Data)
	case *pgproto3.NegotiateProtocolVersion:
		return fmt.Sprintf("NegotiateProtocolVersion %d %v", m.NewestMinorProtocol, m.UnrecognizedOptions)
	case *pgproto3.AuthenticationSASL:
		return fmt.Sprintf("AuthenticationSASL %v", m.AuthMechanisms)
	}
	return messageName(m)
}

func renderError(kind string, e *pgproto3.ErrorResponse) string {
	s := fmt.Sprintf("%s %s %s %q", kind, e.Severity, e.Code, e.Message)
	for _, f := range []struct{ name, v string }{{"detail", e.Detail}, {"hint", e.Hint}, {"table", e.TableName}, {"column", e.ColumnName}, {"constraint", e.ConstraintName}} {
		if f.v != "" {
			s += fmt.Sprintf(" %s=%q", f.name, f.v)
		}
	}
	if e.Position != 0 {
		s += fmt.Sprintf(" position=%d", e.Position)
	}
	return s
}

// renderValue shows a value as a quoted string if it is text, else as hex.
func renderValue(v []byte) string {
	if v == nil {
		return "NULL"
	}
	if utf8.Valid(v) && !strings.ContainsFunc(string(v), func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' }) {
		return strconv.Quote(string(v))
	}
	return "x" + hex.EncodeToString(v)
}
