package types

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// The files in testdata/ hold cases and PostgreSQL's answers to them, one
// case a line, fields separated by tabs, the last field the expected
// result: a value as PostgreSQL prints it, or ERROR sqlstate: message. A
// field that starts with a double quote is a Go string literal, so that
// spaces, tabs and empty strings stay visible. A line "timezone Zone" sets
// the session time zone for the cases after it; # starts a comment.
//
// The expectations were recorded from PostgreSQL 15. To add cases, write
// them with any expected value and record PostgreSQL's answers with
//
//	go test ./sql/types -run TestData -rewrite -pg 'host=/tmp/pgtypes port=55439 user=postgres'
//
// which needs psql and a running server; the tests themselves do not.
var (
	rewrite = flag.Bool("rewrite", false, "record the expected results in testdata/ from the PostgreSQL server at -pg")
	pgConn  = flag.String("pg", "host=/tmp/pgtypes port=55439 user=postgres", "libpq connection string of the PostgreSQL server -rewrite asks")
)

// dataLine is one line of a testdata file. For a case, fields holds the
// decoded fields, the expected result last.
type dataLine struct {
	text     string // comment, blank or directive line, verbatim
	fields   []string
	timezone string // the zone in effect for this case
	lineNo   int
}

func readDataFile(t *testing.T, path string) []dataLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []dataLine
	zone := "UTC"
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			lines = append(lines, dataLine{text: text, lineNo: n})
			continue
		}
		if z, ok := strings.CutPrefix(text, "timezone "); ok {
			zone = z
			lines = append(lines, dataLine{text: text, lineNo: n})
			continue
		}
		var fields []string
		for f := range strings.SplitSeq(text, "\t") {
			if strings.HasPrefix(f, `"`) {
				u, err := strconv.Unquote(f)
				if err != nil {
					t.Fatalf("%s:%d: bad quoted field %s: %v", path, n, f, err)
				}
				f = u
			}
			fields = append(fields, f)
		}
		lines = append(lines, dataLine{fields: fields, timezone: zone, lineNo: n})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func quoteField(s string) string {
	if s == "" || strings.HasPrefix(s, `"`) || strings.TrimSpace(s) != s || strings.ContainsAny(s, "\t\n\r") {
		return strconv.Quote(s)
	}
	return s
}

func writeDataFile(t *testing.T, path string, lines []dataLine) {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		if l.fields == nil {
			b.WriteString(l.text)
		} else {
			for i, f := range l.fields {
				if i > 0 {
					b.WriteByte('\t')
				}
				b.WriteString(quoteField(f))
			}
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runDataFile calls run for each case of a testdata file with its fields
// but the expected one, and compares its result with the expected one. With
// -rewrite it first replaces the expectations with what oracle returns, the
// SQL query whose result PostgreSQL should give. The cases of path may go on
// in files named path_something, which keep one type's cases together.
func runDataFile(t *testing.T, path string, oracle func(fields []string) string, run func(t *testing.T, loc *time.Location, fields []string) string) {
	more, err := filepath.Glob(path + "_*")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append([]string{path}, more...) {
		runOneDataFile(t, p, oracle, run)
	}
}

func runOneDataFile(t *testing.T, path string, oracle func(fields []string) string, run func(t *testing.T, loc *time.Location, fields []string) string) {
	lines := readDataFile(t, path)
	if *rewrite {
		for i, l := range lines {
			if l.fields != nil {
				lines[i].fields[len(l.fields)-1] = askPostgres(t, l.timezone, oracle(l.fields[:len(l.fields)-1]))
			}
		}
		writeDataFile(t, path, lines)
	}
	for _, l := range lines {
		if l.fields == nil {
			continue
		}
		loc, err := LoadZone(l.timezone)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, l.lineNo, err)
		}
		args, want := l.fields[:len(l.fields)-1], l.fields[len(l.fields)-1]
		t.Run(fmt.Sprintf("%s:%d", filepath.Base(path), l.lineNo), func(t *testing.T) {
			if got := run(t, loc, args); got != want {
				t.Errorf("%s:%d: %q\n got: %s\nwant: %s", path, l.lineNo, args, got, want)
			}
		})
	}
}

// askPostgres runs one query with psql and returns its single result, or
// its error in errString's form.
func askPostgres(t *testing.T, zone, query string) string {
	t.Helper()
	cmd := exec.Command("psql", *pgConn, "-X", "-A", "-t", "-q", "-v", "VERBOSITY=verbose", "-c", query)
	cmd.Env = append(os.Environ(), "PGTZ="+zone)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("psql: %v", err)
	}
	var msg, detail string
	for line := range strings.SplitSeq(stderr.String(), "\n") {
		if m, ok := strings.CutPrefix(line, "ERROR:  "); ok {
			msg = m
		}
		if d, ok := strings.CutPrefix(line, "DETAIL:  "); ok {
			detail = d
		}
	}
	if msg != "" {
		code, text, _ := strings.Cut(msg, ": ")
		return errString(&pgerr.Error{Code: code, Message: text, Detail: detail})
	}
	if err != nil {
		t.Fatalf("psql %q: %v: %s", query, err, stderr.String())
	}
	out := strings.TrimSuffix(stdout.String(), "\n")
	// Some queries run setup statements first; the last line is the answer.
	if i := strings.LastIndexByte(out, '\n'); i >= 0 && strings.HasPrefix(query, "create") {
		out = out[i+1:]
	}
	return out
}

// errString formats an error the way the testdata files record it.
func errString(err error) string {
	e := pgerr.Convert(err)
	s := "ERROR " + e.Code + ": " + e.Message
	if e.Detail != "" {
		s += " DETAIL: " + e.Detail
	}
	return s
}

// sqlLiteral quotes s as a SQL string literal.
func sqlLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func mustType(t *testing.T, name string) T {
	t.Helper()
	typ, err := ParseTypeName(name)
	if err != nil {
		t.Fatalf("type %q: %v", name, err)
	}
	return typ
}
