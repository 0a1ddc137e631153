package pgwire

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/epochdb/epochdb/sql"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
)

// fakeEngine is a scripted stand-in for the SQL layer, so the protocol can be
// tested before (and apart from) the real engine. Its "SQL" is one command
// per statement, statements separated by ';':
//
//	rows N                 one int8 column "n", rows 1..N; SELECT k
//	echo $1 $2 ...         one column per parameter, of its type; one row of the parameters
//	insert                 no result; INSERT 0 1
//	begin | commit | end | rollback
//	error CODE             fails at Execute with SQLSTATE CODE (aborting a block)
//	badsyntax              fails at Prepare with 42601 and a position
//	undetermined $1        fails at Prepare with 42P18
//	panic                  panics at Execute
//	mismatch               an int8 column whose datum is a string: a bug in the engine
//	sleep                  waits until its context is cancelled or the engine wakes it; SLEEP
//	                       (only when the engine allows it)
//	notice                 sends a NOTICE; DO
//	set NAME VALUE         changes a reported parameter; SET
//	copy in [binary] [N]   COPY FROM STDIN with N columns (default 2); COPY <lines>
//	copy out               COPY TO STDOUT of two text lines; COPY 2
//
// A parameter without a type from the client is inferred as int4.
type fakeEngine struct {
	allowSleep bool          // sleep is not available to the fuzzer, which would hang
	sleeping   chan struct{} // receives when a sleep starts
	wake       chan struct{} // closing it ends every sleep

	mu     sync.Mutex
	open   map[*fakeSession]bool // sessions not yet closed
	misuse atomic.Int32          // calls made concurrently or after Close
}

// fakePanic is what the "panic" statement panics with, so tests can tell it
// from a real bug.
const fakePanic = "fake engine panic"

func newFakeEngine() *fakeEngine {
	return &fakeEngine{sleeping: make(chan struct{}, 16), wake: make(chan struct{}), open: map[*fakeSession]bool{}}
}

func (e *fakeEngine) engine() Engine {
	return Adapt(e.NewSession)
}

func (e *fakeEngine) NewSession(p sql.SessionParams) (*fakeSession, error) {
	if p.Options["application_name"] == "reject me" {
		return nil, pgerr.New(pgerr.TooManyConnections, "sorry, too many clients already")
	}
	s := &fakeSession{e: e, params: p, status: 'I', settings: map[string]string{
		"application_name":              p.Options["application_name"],
		"client_encoding":               "UTF8",
		"DateStyle":                     "ISO, MDY",
		"default_transaction_read_only": "off",
		"in_hot_standby":                "off",
		"integer_datetimes":             "on",
		"IntervalStyle":                 "postgres",
		"is_superuser":                  "on",
		"server_encoding":               "UTF8",
		"server_version":                "15.0 (epochdb)",
		"session_authorization":         p.User,
		"standard_conforming_strings":   "on",
		"TimeZone":                      "UTC",
	}, changed: map[string]string{}}
	e.mu.Lock()
	e.open[s] = true
	e.mu.Unlock()
	return s, nil
}

func (e *fakeEngine) openSessions() []*fakeSession {
	e.mu.Lock()
	defer e.mu.Unlock()
	var open []*fakeSession
	for s := range e.open {
		open = append(open, s)
	}
	return open
}

type fakeSession struct {
	e      *fakeEngine
	params sql.SessionParams
	busy   sync.Mutex // TryLock catches concurrent use
	closed atomic.Bool

	status   byte
	settings map[string]string
	changed  map[string]string
	executed []string // statements run, for tests
	copied   [][]byte // COPY FROM chunks, kept as received
}

type fakeStmt struct {
	s      *fakeSession
	query  string
	words  []string
	params []types.T
	cols   []sql.Column
	copy   *sql.CopySpec
}

type fakePortal struct {
	st     *fakeStmt
	params []any
	pos    int
	closed bool
}

func (s *fakeSession) enter() func() {
	if !s.busy.TryLock() || s.closed.Load() {
		s.e.misuse.Add(1)
		return func() {}
	}
	return s.busy.Unlock
}

func (s *fakeSession) StatusParams() map[string]string {
	defer s.enter()()
	return s.settings
}

func (s *fakeSession) Location() *time.Location {
	defer s.enter()()
	loc, err := time.LoadLocation(s.settings["TimeZone"])
	if err != nil {
		return time.UTC
	}
	return loc
}

func (s *fakeSession) ChangedParams() map[string]string {
	defer s.enter()()
	c := s.changed
	s.changed = map[string]string{}
	return c
}

func (s *fakeSession) TxStatus() byte {
	defer s.enter()()
	return s.status
}

func (s *fakeSession) Sync() error {
	defer s.enter()()
	return nil
}

func (s *fakeSession) Close() {
	defer s.enter()()
	s.closed.Store(true)
	s.e.mu.Lock()
	delete(s.e.open, s)
	s.e.mu.Unlock()
}

func (s *fakeSession) PrepareAll(ctx context.Context, query string) ([]*fakeStmt, error) {
	defer s.enter()()
	var stmts []*fakeStmt
	for q := range strings.SplitSeq(query, ";") {
		if strings.TrimSpace(q) == "" {
			continue
		}
		st, err := s.prepare(q, nil, query)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, st)
	}
	return stmts, nil
}

func (s *fakeSession) Prepare(ctx context.Context, query string, paramTypes []types.Oid) (*fakeStmt, error) {
	defer s.enter()()
	return s.prepare(query, paramTypes, query)
}

var paramRef = regexp.MustCompile(`\$([0-9]+)`)

// prepare prepares one statement of whole, the query string errors point
// into.
func (s *fakeSession) prepare(query string, oids []types.Oid, whole string) (*fakeStmt, error) {
	st := &fakeStmt{s: s, query: strings.TrimSpace(query), words: strings.Fields(query)}
	n := len(oids)
	for _, m := range paramRef.FindAllStringSubmatch(query, -1) {
		i, err := strconv.Atoi(m[1])
		if err != nil || i > 65535 {
			return nil, pgerr.New(pgerr.ProgramLimitExceeded, "too many parameters")
		}
		n = max(n, i)
	}
	for i := range n {
		t := types.Int4
		if i < len(oids) && oids[i] != 0 {
			t = types.T{Oid: oids[i], Mod: -1}
		}
		st.params = append(st.params, t)
	}
	if len(st.words) == 0 {
		return nil, pgerr.New(pgerr.SyntaxError, "empty statement")
	}
	arity := map[string]int{"rows": 1, "error": 1, "set": 2}
	if n, ok := arity[strings.ToLower(st.words[0])]; ok && len(st.words) != n+1 {
		return nil, pgerr.New(pgerr.SyntaxError, "%s takes %d arguments", st.words[0], n)
	}
	switch strings.ToLower(st.words[0]) {
	case "rows", "mismatch", "sleep":
		st.cols = []sql.Column{{Name: "n", Type: types.Int8}}
	case "echo":
		st.cols = []sql.Column{}
		for i, t := range st.params {
			st.cols = append(st.cols, sql.Column{Name: fmt.Sprintf("p%d", i+1), Type: t})
		}
	case "copy":
		st.copy = &sql.CopySpec{In: len(st.words) > 1 && st.words[1] == "in", Columns: 2}
		for _, w := range st.words[min(2, len(st.words)):] {
			if w == "binary" {
				st.copy.Binary = true
			} else if n, err := strconv.Atoi(w); err == nil && 0 <= n && n <= 1600 {
				st.copy.Columns = n
			}
		}
	case "badsyntax":
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"badsyntax\"").WithPosition(strings.Index(whole, "badsyntax") + 1)
	case "undetermined":
		return nil, pgerr.New(pgerr.IndeterminateDatatype, "could not determine data type of parameter $1")
	case "insert", "begin", "commit", "end", "rollback", "error", "panic", "notice", "set":
	default:
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", st.words[0]).WithPosition(strings.Index(whole, st.words[0]) + 1)
	}
	return st, nil
}

func (p *fakeStmt) ParamTypes() []types.T   { return p.params }
func (p *fakeStmt) Columns() []sql.Column   { return p.cols }
func (p *fakePortal) Columns() []sql.Column { return p.st.cols }
func (p *fakePortal) Copy() *sql.CopySpec   { return p.st.copy }
func (p *fakePortal) Binary() bool          { return false }
func (p *fakePortal) Close()                { p.closed = true }

func (s *fakeSession) Bind(ctx context.Context, st *fakeStmt, params []any) (*fakePortal, error) {
	defer s.enter()()
	if st.s != s {
		s.e.misuse.Add(1)
	}
	if len(params) != len(st.params) {
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(params), len(st.params))
	}
	return &fakePortal{st: st, params: params}, nil
}

func (s *fakeSession) Execute(ctx context.Context, p *fakePortal, maxRows int, emit func(row []any) error) (string, bool, error) {
	defer s.enter()()
	if p.closed {
		s.e.misuse.Add(1)
	}
	w := p.st.words
	cmd := strings.ToLower(w[0])
	s.executed = append(s.executed, p.st.query)
	if s.status == 'E' && cmd != "rollback" && cmd != "commit" && cmd != "end" {
		return "", false, pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	switch cmd {
	case "rows":
		total, err := strconv.Atoi(w[1])
		if err != nil || total > 1e6 {
			return "", false, pgerr.New(pgerr.ProgramLimitExceeded, "the fake returns at most a million rows")
		}
		n := 0
		for p.pos < total && (maxRows == 0 || n < maxRows) {
			p.pos++
			n++
			if err := emit([]any{int64(p.pos)}); err != nil {
				return "", false, err
			}
		}
		return fmt.Sprintf("SELECT %d", n), maxRows == 0 || n < maxRows, nil
	case "echo":
		if err := emit(p.params); err != nil {
			return "", false, err
		}
		return "SELECT 1", true, nil
	case "mismatch":
		return "", false, emit([]any{"not an int8"})
	case "insert":
		return "INSERT 0 1", true, nil
	case "begin":
		s.status = 'T'
		return "BEGIN", true, nil
	case "commit", "end":
		tag := "COMMIT"
		if s.status == 'E' {
			tag = "ROLLBACK"
		}
		s.status = 'I'
		return tag, true, nil
	case "rollback":
		if s.status == 'I' {
			s.params.Notice(&pgerr.Error{Severity: "WARNING", Code: pgerr.NoActiveSQLTransaction, Message: "there is no transaction in progress"})
		}
		s.status = 'I'
		return "ROLLBACK", true, nil
	case "error":
		if s.status == 'T' {
			s.status = 'E'
		}
		return "", false, pgerr.New(w[1], "fake error").WithDetail("detail").WithHint("hint")
	case "panic":
		panic(fakePanic)
	case "sleep":
		if !s.e.allowSleep {
			return "", false, pgerr.New(pgerr.FeatureNotSupported, "sleep is disabled")
		}
		s.e.sleeping <- struct{}{}
		select {
		case <-ctx.Done():
			return "", false, ctx.Err()
		case <-s.e.wake:
			return "SLEEP", true, nil
		}
	case "notice":
		s.params.Notice(&pgerr.Error{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: "hello from the fake"})
		return "DO", true, nil
	case "set":
		s.settings[w[1]] = w[2]
		s.changed[w[1]] = w[2]
		return "SET", true, nil
	}
	return "", false, pgerr.New(pgerr.FeatureNotSupported, "cannot execute %s", cmd)
}

func (s *fakeSession) CopyFrom(ctx context.Context, p *fakePortal, src sql.CopySource) (string, error) {
	defer s.enter()()
	s.copied = nil
	for {
		chunk, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		if bytes.Contains(chunk, []byte("bad")) {
			return "", pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type integer: \"bad\"")
		}
		s.copied = append(s.copied, chunk)
	}
	return fmt.Sprintf("COPY %d", bytes.Count(bytes.Join(s.copied, nil), []byte("\n"))), nil
}

func (s *fakeSession) CopyTo(ctx context.Context, p *fakePortal, emit func([]byte) error) (string, error) {
	defer s.enter()()
	for _, line := range []string{"1\tone\n", "2\ttwo\n"} {
		if err := emit([]byte(line)); err != nil {
			return "", err
		}
	}
	return "COPY 2", nil
}
