package sql_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/epochdb/epochdb"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// The differential tests run every ../testdata/sql/*.test file against a
// fresh in-memory epochdb and, when EPOCHDB_PG_URL names a PostgreSQL 15
// server, against a fresh database there too, and require the same answers.
//
// A file is a sequence of blocks separated by blank lines:
//
//	-- unordered
//	SELECT a, b FROM t WHERE a > 1;
//	----
//	a:int4 | b:text
//	2 | two
//	3 | NULL
//	SELECT 2
//
// A block's SQL (which has no blank lines) is sent as one simple-protocol
// Query message, so it may hold several statements separated by
// semicolons, and they run as PostgreSQL runs such a message: in one
// implicit transaction. Below the "----" line is the expected output, each
// statement's result in turn: for a statement that returns rows, a header
// of column names and types, the rows and the command tag; for any other,
// its command tag; for a failed one, "ERROR sqlstate: message", which ends
// the message. NOTICE and WARNING lines follow, in the order they came.
// Values are PostgreSQL's text output. NULL is NULL, and a value that
// could be mistaken for something else (an empty string, the string NULL,
// a value with a "|" or surrounding spaces) is written as a Go string
// literal. A block of only comment lines is prose.
//
// Directives are one-word comment lines at the start of a block (so a
// one-word comment there must be one of them):
//
//	-- unordered   compare rows as a multiset, for a query without ORDER BY
//	-- message     compare the messages of errors and notices, not just
//	               their SQLSTATEs
//	-- detail      compare their messages and DETAIL lines too
//	-- context     compare their messages, DETAIL, HINT and CONTEXT lines
//	-- plan        compare EXPLAIN's plans by their shape: the nodes and
//	               their nesting, without costs, counts, times or the
//	               nodes' properties (planShape)
//
// The expected outputs are PostgreSQL's. With PostgreSQL at hand, the test
// compares epochdb with it statement by statement, and checks that the
// recorded outputs are current; without it, it compares epochdb with the
// recorded outputs, unless EPOCHDB_REQUIRE_CLIENTS=1 demands PostgreSQL.
// To record the outputs after adding or changing a block:
//
//	EPOCHDB_PG_URL=postgres://postgres@127.0.0.1:55439/postgres?sslmode=disable \
//		go test ./sql -run TestDiff -rewrite
//
// Each file gets a database of its own on PostgreSQL, difftest_<file>,
// made afresh and dropped afterwards, so files run in parallel and again.
var rewrite = flag.Bool("rewrite", false, "record the expected outputs in testdata/sql/*.test from the PostgreSQL at EPOCHDB_PG_URL")

func TestDiff(t *testing.T) {
	pgURL := os.Getenv("EPOCHDB_PG_URL")
	switch {
	case pgURL == "" && os.Getenv("EPOCHDB_REQUIRE_CLIENTS") == "1":
		t.Fatal("EPOCHDB_REQUIRE_CLIENTS=1 but EPOCHDB_PG_URL is unset")
	case pgURL == "" && *rewrite:
		t.Fatal("-rewrite records PostgreSQL's answers: set EPOCHDB_PG_URL")
	case pgURL == "":
		t.Log("EPOCHDB_PG_URL is unset: comparing epochdb with the recorded outputs only")
	}
	files, err := filepath.Glob("../testdata/sql/*.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/sql/*.test files")
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".test")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runDiffFile(t, path, name, pgURL)
		})
	}
}

func runDiffFile(t *testing.T, path, name, pgURL string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseDiffFile(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ctx := t.Context()
	epoch := startEpochdb(t)
	var pg *server
	if pgURL != "" {
		pg = freshPGDatabase(t, pgURL, "difftest_"+name)
	}
	for _, b := range blocks {
		if b.sql == "" {
			continue
		}
		where := fmt.Sprintf("%s:%d", path, b.line)
		got := b.render(epoch.run(ctx, b.sql))
		if pg == nil {
			if !b.hasOutput {
				t.Errorf("%s: no expected output; record it with -rewrite\n%s", where, b.sql)
			} else if b.normalize(got) != b.normalize(b.output) {
				t.Errorf("%s: epochdb differs from the recorded output\n%s\n--- epochdb\n%s\n--- recorded (PostgreSQL)\n%s", where, b.sql, got, b.output)
			}
			continue
		}
		want := b.render(pg.run(ctx, b.sql))
		if b.normalize(got) != b.normalize(want) {
			t.Errorf("%s: epochdb differs from PostgreSQL\n%s\n--- epochdb\n%s\n--- PostgreSQL\n%s", where, b.sql, got, want)
		}
		switch {
		case *rewrite:
			b.output, b.hasOutput = want, true
		case !b.hasOutput:
			t.Errorf("%s: no expected output; record it with -rewrite", where)
		case b.normalize(want) != b.normalize(b.output):
			t.Errorf("%s: the recorded output is stale; record it again with -rewrite\n%s\n--- PostgreSQL\n%s\n--- recorded\n%s", where, b.sql, want, b.output)
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(formatDiffFile(blocks)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// startEpochdb serves a fresh in-memory database on a loopback port for the
// length of the test and connects to it.
func startEpochdb(t *testing.T) *server {
	db, err := epochdb.Open("", &epochdb.Options{
		InMemory: true,
		Logger:   slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go db.Serve(l)
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return connect(t, "postgres://epochdb@"+l.Addr().String()+"/epochdb?sslmode=disable", "")
}

// freshPGDatabase creates database name on the server at url, replacing
// any left over from an earlier run, connects to it, and drops it when the
// test ends.
func freshPGDatabase(t *testing.T, url, name string) *server {
	admin := connect(t, url, "")
	exec := func(sql string) error { return admin.conn.Exec(context.Background(), sql).Close() }
	quoted := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	if err := exec("DROP DATABASE IF EXISTS " + quoted + " WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	// epochdb orders and cases text by code point, as the C.UTF-8 locale
	// does, whatever locale the server was initialized with.
	if err := exec("CREATE DATABASE " + quoted + " TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'"); err != nil {
		t.Fatal(err)
	}
	conn := connect(t, url, name)
	t.Cleanup(func() {
		// Cleanups run last-in first-out: conn is closed by now.
		if err := exec("DROP DATABASE " + quoted + " WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	return conn
}

// server is a connection to one of the two servers.
type server struct {
	conn    *pgconn.PgConn
	notices []*pgconn.Notice // since the last run
}

// connect opens a connection to url (to database, if set) with the
// session settings every file starts from on both servers.
func connect(t *testing.T, url, database string) *server {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	if database != "" {
		cfg.Database = database
	}
	cfg.RuntimeParams["TimeZone"] = "UTC"
	s := &server{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { s.notices = append(s.notices, n) }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s.conn, err = pgconn.ConnectConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.conn.Close(context.Background()) })
	return s
}

// reply is what a server answered to one Query message.
type reply struct {
	results []*pgconn.Result
	err     error // the error that ended the query, if any
	notices []*pgconn.Notice
}

// run sends sql as one Query message. Unlike ReadAll, it keeps the
// columns of a query that returns no rows.
func (s *server) run(ctx context.Context, sql string) reply {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	s.notices = nil
	mrr := s.conn.Exec(ctx, sql)
	var results []*pgconn.Result
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		r := &pgconn.Result{FieldDescriptions: slices.Clone(rr.FieldDescriptions())}
		for rr.NextRow() {
			row := make([][]byte, len(rr.Values()))
			for i, v := range rr.Values() {
				if v != nil {
					row[i] = slices.Clone(v)
				}
			}
			r.Rows = append(r.Rows, row)
		}
		r.CommandTag, r.Err = rr.Close()
		results = append(results, r)
	}
	err := mrr.Close()
	return reply{results: results, err: err, notices: s.notices}
}

// diffBlock is one block of a .test file.
type diffBlock struct {
	line      int    // of the block's first line
	head      string // directives, comments and SQL, verbatim
	sql       string // empty for prose
	unordered bool
	message   bool
	detail    bool
	context   bool   // HINT and CONTEXT lines too
	plan      bool   // EXPLAIN output by its shape
	output    string // the expected output, as recorded
	hasOutput bool
}

var directiveRE = regexp.MustCompile(`^--\s*([a-z-]+)\s*$`)

func parseDiffFile(text string) ([]*diffBlock, error) {
	var blocks []*diffBlock
	var cur *diffBlock
	var head, out []string
	inOutput := false
	flush := func() error {
		if cur == nil {
			return nil
		}
		cur.head = strings.Join(head, "\n")
		cur.output = strings.Join(out, "\n")
		body := head
		for len(body) > 0 {
			m := directiveRE.FindStringSubmatch(body[0])
			if m == nil {
				break
			}
			switch m[1] {
			case "unordered":
				cur.unordered = true
			case "message":
				cur.message = true
			case "detail":
				cur.message, cur.detail = true, true
			case "context":
				cur.message, cur.detail, cur.context = true, true, true
			case "plan":
				cur.plan = true
			default:
				return fmt.Errorf("line %d: unknown directive %q", cur.line, m[1])
			}
			body = body[1:]
		}
		if slices.ContainsFunc(body, func(l string) bool { return !strings.HasPrefix(strings.TrimSpace(l), "--") }) {
			cur.sql = strings.Join(body, "\n")
		} else if cur.hasOutput || cur.unordered || cur.message || cur.plan {
			return fmt.Errorf("line %d: a block with directives or output needs SQL", cur.line)
		}
		blocks = append(blocks, cur)
		cur, head, out, inOutput = nil, nil, nil, false
		return nil
	}
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		switch {
		case strings.TrimSpace(l) == "":
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		case cur == nil:
			cur = &diffBlock{line: i + 1}
		}
		switch {
		case inOutput:
			out = append(out, l)
		case l == "----":
			inOutput, cur.hasOutput = true, true
		default:
			head = append(head, l)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return blocks, nil
}

func formatDiffFile(blocks []*diffBlock) string {
	var sb strings.Builder
	for i, b := range blocks {
		if i > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(b.head + "\n")
		if b.hasOutput {
			sb.WriteString("----\n" + b.output + "\n")
		}
	}
	return sb.String()
}

// render prints the results of a block's Query message, then the notices
// and warnings it raised.
func (b *diffBlock) render(rep reply) string {
	var lines []string
	for _, r := range rep.results {
		if r.Err != nil {
			lines = append(lines, b.renderError(r.Err))
			continue
		}
		if r.FieldDescriptions != nil {
			lines = append(lines, renderHeader(r.FieldDescriptions))
			rows := make([]string, len(r.Rows))
			for i, row := range r.Rows {
				cells := make([]string, len(row))
				for j, v := range row {
					cells[j] = renderValue(v)
				}
				rows[i] = strings.Join(cells, " | ")
			}
			if b.plan && len(r.FieldDescriptions) == 1 && r.FieldDescriptions[0].Name == "QUERY PLAN" {
				var plan []string
				for _, row := range r.Rows {
					plan = append(plan, string(row[0]))
				}
				rows = planShape(plan)
			}
			if b.unordered {
				slices.Sort(rows)
			}
			lines = append(lines, rows...)
		}
		lines = append(lines, r.CommandTag.String())
	}
	// A failed statement that had not described any rows has no result.
	if rep.err != nil && (len(rep.results) == 0 || rep.results[len(rep.results)-1].Err == nil) {
		lines = append(lines, b.renderError(rep.err))
	}
	for _, n := range rep.notices {
		lines = append(lines, n.Severity+" "+n.Code+": "+n.Message)
		if b.detail && n.Detail != "" {
			lines = append(lines, "DETAIL: "+n.Detail)
		}
		lines = append(lines, b.hintAndContext(n.Hint, n.Where)...)
	}
	return strings.Join(lines, "\n")
}

// planShape is an EXPLAIN's output as the plan tests compare it: each
// node's name (with its relation and index) at its depth, and the
// InitPlan, SubPlan and CTE lines, without costs, counts, times or
// properties, which differ between the engines. FORMAT JSON becomes the
// same outline, of each node's "Node Type" and "Parent Relationship".
func planShape(lines []string) []string {
	var out []string
	if len(lines) == 1 && strings.HasPrefix(lines[0], "[") {
		var doc []struct{ Plan map[string]any }
		if err := json.Unmarshal([]byte(lines[0]), &doc); err != nil || len(doc) != 1 {
			return []string{"invalid JSON plan: " + fmt.Sprint(err)}
		}
		var walk func(n map[string]any, depth int)
		walk = func(n map[string]any, depth int) {
			line := strings.Repeat("  ", depth) + fmt.Sprint(n["Node Type"])
			if rel, ok := n["Parent Relationship"]; ok {
				line += " (" + fmt.Sprint(rel) + ")"
			}
			out = append(out, line)
			kids, _ := n["Plans"].([]any)
			for _, k := range kids {
				walk(k.(map[string]any), depth+1)
			}
		}
		walk(doc[0].Plan, 0)
		return out
	}
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		word, _, _ := strings.Cut(trimmed, " ")
		switch {
		case i == 0, strings.HasPrefix(trimmed, "->"):
			if j := strings.Index(l, "  ("); j >= 0 {
				l = l[:j]
			}
			if j := strings.Index(l, " (actual"); j >= 0 {
				l = l[:j]
			}
			out = append(out, strings.TrimSuffix(l, " (never executed)"))
		case word == "InitPlan" || word == "SubPlan" || word == "CTE":
			f := strings.Fields(trimmed)
			out = append(out, l[:len(l)-len(trimmed)]+f[0]+" "+f[1])
		}
	}
	return out
}

var typeMap = pgtype.NewMap()

func renderHeader(fields []pgconn.FieldDescription) string {
	cols := make([]string, len(fields))
	for i, f := range fields {
		typ := strconv.FormatUint(uint64(f.DataTypeOID), 10)
		if t, ok := typeMap.TypeForOID(f.DataTypeOID); ok {
			typ = t.Name
		} else if f.DataTypeOID >= 16384 {
			// A type CREATE TYPE made: its oid differs between servers
			// and runs (FirstNormalObjectId and up).
			typ = "user-defined"
		}
		cols[i] = renderValue([]byte(f.Name)) + ":" + typ
	}
	return strings.Join(cols, " | ")
}

func (b *diffBlock) renderError(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		lines := []string{"ERROR " + pe.Code + ": " + pe.Message}
		if b.detail && pe.Detail != "" {
			lines = append(lines, "DETAIL: "+pe.Detail)
		}
		return strings.Join(append(lines, b.hintAndContext(pe.Hint, pe.Where)...), "\n")
	}
	return "ERROR (no SQLSTATE): " + err.Error()
}

// hintAndContext are the HINT and CONTEXT lines of an error or notice,
// for a block that compares them.
func (b *diffBlock) hintAndContext(hint, where string) []string {
	if !b.context {
		return nil
	}
	var lines []string
	if hint != "" {
		lines = append(lines, "HINT: "+hint)
	}
	for _, w := range strings.Split(where, "\n") {
		if w != "" {
			lines = append(lines, "CONTEXT: "+w)
		}
	}
	return lines
}

// renderValue prints a value so that it cannot be mistaken for NULL, for
// another value, or for the end of a row.
func renderValue(v []byte) string {
	if v == nil {
		return "NULL"
	}
	s := string(v)
	quote := s == "" || s == "NULL" || strings.HasPrefix(s, `"`) || strings.Contains(s, "|") || strings.TrimSpace(s) != s ||
		strings.HasPrefix(s, "ERROR") || strings.HasPrefix(s, "WARNING") || strings.HasPrefix(s, "NOTICE")
	for _, r := range s {
		quote = quote || !unicode.IsPrint(r)
	}
	if quote {
		return strconv.Quote(s)
	}
	return s
}

var errorMessageRE = regexp.MustCompile(`(?m)^((?:ERROR|WARNING|NOTICE) \S+): .*$`)

// normalize drops what the comparison ignores: the messages of errors and
// notices, unless the block asks for them.
func (b *diffBlock) normalize(out string) string {
	if b.message {
		return out
	}
	return errorMessageRE.ReplaceAllString(out, "$1")
}
