package clienttest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/epochdb/epochdb"
	"github.com/epochdb/epochdb/pgwire"
	"github.com/jackc/pgx/v5"
)

var (
	againstPG = flag.Bool("pg", false, "run the clients against the PostgreSQL server at $EPOCHDB_PG_URL instead of an embedded epochdb")
	update    = flag.Bool("update", false, "with -pg, rewrite the psql golden files from PostgreSQL's output")
)

// clientsDir holds the client programs, relative to this package.
const clientsDir = "../../testdata/clients"

// programTimeout bounds one run of an external client.
const programTimeout = 60 * time.Second

// A target is the server one client talks to: a fresh embedded epochdb, or
// with -pg a fresh database on PostgreSQL. Every target takes trust auth and
// no TLS.
type target struct {
	host, port, user, database string
}

// startTarget starts the server for one client; it goes away with the test.
// With -capture the client gets a recording proxy in front of it.
func startTarget(t *testing.T) target {
	t.Helper()
	var tg target
	if *againstPG {
		tg = startPGDatabase(t)
	} else {
		tg = startEpochDB(t)
	}
	if *captureDir != "" {
		tg = captureTraffic(t, tg)
	}
	return tg
}

// startEpochDB starts an in-memory epochdb on a port of its own.
func startEpochDB(t *testing.T) target { return startEpochDBAs(t, "epochdb") }

// startEpochDBAs is startEpochDB with the superuser named user.
func startEpochDBAs(t *testing.T, user string) target {
	t.Helper()
	db, err := epochdb.Open("", &epochdb.Options{
		InMemory: true,
		User:     user,
		Logger:   slog.New(slog.NewTextHandler(testLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- db.Serve(l) }()
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-served; !errors.Is(err, pgwire.ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	host, port, _ := net.SplitHostPort(l.Addr().String())
	return target{host: host, port: port, user: user, database: "epochdb"}
}

// startPGDatabase creates a database of the test's own on the PostgreSQL
// server at $EPOCHDB_PG_URL, so that clients running in parallel do not meet.
func startPGDatabase(t *testing.T) target {
	t.Helper()
	pgURL := os.Getenv("EPOCHDB_PG_URL")
	if pgURL == "" {
		t.Fatal("-pg needs EPOCHDB_PG_URL, the URL of a PostgreSQL 15 server to compare with")
	}
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := "clienttest_" + strings.ToLower(regexp.MustCompile(`\W+`).ReplaceAllString(t.Name(), "_"))
	for _, q := range []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "CREATE DATABASE " + name} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, pgURL)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	cfg := conn.Config()
	return target{host: cfg.Host, port: strconv.Itoa(int(cfg.Port)), user: cfg.User, database: name}
}

// url is the target as a libpq URL, which pgx and lib/pq take too.
func (tg target) url() string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(tg.user),
		Host:     net.JoinHostPort(tg.host, tg.port),
		Path:     "/" + tg.database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// env is an external client's environment: libpq's variables, which psql and
// psycopg2 read themselves and the other programs read explicitly, in place
// of any PG* variables of the caller's. TZ=UTC makes the clients' local time
// (JavaScript's Date, the JVM's default zone), and PGCLIENTENCODING psql's
// output, independent of the machine.
func (tg target) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "TZ=") {
			env = append(env, kv)
		}
	}
	return append(env,
		"PGHOST="+tg.host, "PGPORT="+tg.port, "PGUSER="+tg.user, "PGDATABASE="+tg.database,
		"PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10", "PGCLIENTENCODING=UTF8", "TZ=UTC")
}

// missingClient skips the test because a client is not installed, or fails
// it when EPOCHDB_REQUIRE_CLIENTS=1 says that every client must run, as CI
// does.
func missingClient(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("EPOCHDB_REQUIRE_CLIENTS") == "1" {
		t.Fatalf("%s (EPOCHDB_REQUIRE_CLIENTS=1: every client must run)", msg)
	}
	t.Skip(msg)
}

// lookPath finds an executable, or reports the client missing.
func lookPath(t *testing.T, file string) string {
	t.Helper()
	path, err := exec.LookPath(file)
	if err != nil {
		missingClient(t, "%s is not installed: %v", file, err)
	}
	return path
}

// runProgram runs an external client against tg, in dir, and returns its
// output (stdout and stderr, interleaved) and exit code. The output is
// logged, so go test -v shows what every client did.
func runProgram(t *testing.T, tg target, dir string, name string, args ...string) (output string, exitCode int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), programTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = tg.env()
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	cmdline := filepath.Base(name) + " " + strings.Join(args, " ")
	t.Logf("$ %s\n%s", cmdline, out.String())
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case ctx.Err() != nil:
		t.Fatalf("%s: timed out after %v", cmdline, programTimeout)
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	default:
		t.Fatalf("%s: %v", cmdline, err)
	}
	panic("unreachable")
}

// runClient runs a client program that checks everything itself, and fails
// the test unless it exits 0.
func runClient(t *testing.T, tg target, dir string, name string, args ...string) {
	t.Helper()
	if _, code := runProgram(t, tg, dir, name, args...); code != 0 {
		t.Fatalf("%s exited %d (its output is above)", filepath.Base(name), code)
	}
}

// testLogWriter sends the embedded server's warnings (recovered panics,
// broken connections) to the test log.
type testLogWriter struct{ t *testing.T }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Logf("server: %s", bytes.TrimRight(p, "\n"))
	return len(p), nil
}

// checkGolden compares got with the golden file, PostgreSQL's output. With
// -pg -update it rewrites the file instead.
func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if !*againstPG {
			t.Fatal("-update needs -pg: the golden files are PostgreSQL's output, not epochdb's")
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (PostgreSQL's), first at line %d:\n%s\n--- got:\n%s",
			file, firstDiffLine(got, string(want)), lineDiff(got, string(want)), got)
	}
}

func firstDiffLine(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		if i >= len(al) || i >= len(bl) || al[i] != bl[i] {
			return i + 1
		}
	}
	return 0
}

// lineDiff shows the lines of got and want that differ, as a minimal
// line-based diff (longest common subsequence): "-" want, "+" got.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	lcs := make([][]int, len(w)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(g)+1)
	}
	for i := len(w) - 1; i >= 0; i-- {
		for j := len(g) - 1; j >= 0; j-- {
			if w[i] == g[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case i < len(w) && j < len(g) && w[i] == g[j]:
			i, j = i+1, j+1
		case j < len(g) && (i == len(w) || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(&b, "+%4d %s\n", j+1, g[j])
			j++
		default:
			fmt.Fprintf(&b, "-%4d %s\n", i+1, w[i])
			i++
		}
	}
	return b.String()
}

// TestPsql drives psql with -f and golden output, with -c, with
// ON_ERROR_STOP, and with \copy.
func TestPsql(t *testing.T) {
	t.Parallel()
	psql := lookPath(t, "psql")
	tg := startTarget(t)
	dir := filepath.Join(clientsDir, "psql")
	psqlArgs := func(args ...string) []string {
		return append([]string{"-X", "-v", "VERBOSITY=sqlstate"}, args...)
	}

	// The whole matrix as one script, which creates the table the rest use.
	t.Run("script", func(t *testing.T) {
		out, code := runProgram(t, tg, dir, psql, psqlArgs("-f", "matrix.sql")...)
		if code != 0 {
			t.Errorf("exit %d, want 0 (psql goes on after an error without ON_ERROR_STOP)", code)
		}
		checkGolden(t, filepath.Join(dir, "matrix.out"), out)
	})

	t.Run("commands", func(t *testing.T) {
		out, code := runProgram(t, tg, dir, psql, psqlArgs("-At",
			"-c", "INSERT INTO matrix (id, c_text) VALUES (40, 'forty')",
			"-c", "SELECT id, c_text FROM matrix WHERE id = 40",
			// One -c with several statements is one simple Query message;
			// psql 15 shows every result.
			"-c", "UPDATE matrix SET c_int4 = 41 WHERE id = 40; SELECT c_int4 FROM matrix WHERE id = 40",
			"-c", "SELECT c_numeric * 2, c_bytea, c_uuid FROM matrix WHERE id = 1",
		)...)
		want := "INSERT 0 1\n40|forty\nUPDATE 1\n41\n24691357802469135780.246913578|\\x00ff10|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\n"
		if code != 0 || out != want {
			t.Errorf("exit %d, output\n%s\nwant exit 0, output\n%s", code, out, want)
		}
	})

	// stop.sql inserts :id, then a duplicate, then :id + 1.
	count := func(t *testing.T, id int) string {
		t.Helper()
		out, _ := runProgram(t, tg, dir, psql, psqlArgs("-At", "-c",
			fmt.Sprintf("SELECT count(*) FROM matrix WHERE id IN (%d, %d)", id, id+1))...)
		return strings.TrimSpace(out)
	}
	t.Run("on_error_stop", func(t *testing.T) {
		for _, c := range []struct {
			args      []string
			id        int
			wantCode  int
			wantCount string
		}{
			// Without ON_ERROR_STOP psql reports the error and goes on.
			{[]string{"-f", "stop.sql"}, 50, 0, "2"},
			// With it, psql stops at the error and exits 3 (1 for -c).
			{[]string{"-v", "ON_ERROR_STOP=1", "-f", "stop.sql"}, 60, 3, "1"},
			// With --single-transaction the whole file rolls back.
			{[]string{"-v", "ON_ERROR_STOP=1", "--single-transaction", "-f", "stop.sql"}, 70, 3, "0"},
			{[]string{"-v", "ON_ERROR_STOP=1", "-c", "INSERT INTO matrix (id) VALUES (80)", "-c", "SELECT 1/0", "-c", "INSERT INTO matrix (id) VALUES (81)"}, 80, 1, "1"},
		} {
			args := psqlArgs(append([]string{"-v", fmt.Sprintf("id=%d", c.id)}, c.args...)...)
			out, code := runProgram(t, tg, dir, psql, args...)
			if code != c.wantCode {
				t.Errorf("psql %s: exit %d, want %d\n%s", strings.Join(args, " "), code, c.wantCode, out)
			}
			if !strings.Contains(out, "ERROR:  23505") && !strings.Contains(out, "ERROR:  22012") {
				t.Errorf("psql %s: no 23505 or 22012 error in\n%s", strings.Join(args, " "), out)
			}
			if got := count(t, c.id); got != c.wantCount {
				t.Errorf("psql %s: %s of ids %d and %d are in the table, want %s", strings.Join(args, " "), got, c.id, c.id+1, c.wantCount)
			}
		}
	})

	t.Run("copy", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "out.csv")
		_, code := runProgram(t, tg, dir, psql, psqlArgs(
			"-v", "ON_ERROR_STOP=1",
			"-c", `\copy matrix (id, c_text, c_float8) from 'copy.csv' with (format csv, header)`,
			"-c", fmt.Sprintf(`\copy (SELECT id, c_text, c_float8 FROM matrix WHERE id >= 90 ORDER BY id) to '%s' with (format csv)`, file),
		)...)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want := "90,first,1.5\n91,\"with \"\"quotes\"\", and a comma\",-2.25e-10\n92,,\n"
		if string(got) != want {
			t.Errorf("\\copy to a file wrote\n%s\nwant\n%s", got, want)
		}
	})
}

// TestNodePostgres runs node-postgres (pg), installed by npm ci from
// testdata/clients/node/package-lock.json.
func TestNodePostgres(t *testing.T) {
	t.Parallel()
	runNode(t, "pg.js", "pg")
}

// TestPostgresJS runs postgres.js (postgres), installed the same way.
func TestPostgresJS(t *testing.T) {
	t.Parallel()
	runNode(t, "postgresjs.js", "postgres")
}

func runNode(t *testing.T, program, module string) {
	node := lookPath(t, "node")
	dir := filepath.Join(clientsDir, "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", module, "package.json")); err != nil {
		missingClient(t, "the npm module %s is not installed (run npm ci in %s): %v", module, dir, err)
	}
	runClient(t, startTarget(t), dir, node, program)
}

// TestPsycopg2 runs psycopg2 with Debian's python3, which has Debian's
// python3-psycopg2; a python3 earlier on PATH may not.
func TestPsycopg2(t *testing.T) {
	t.Parallel()
	const python = "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		missingClient(t, "%s is not installed: %v", python, err)
	}
	if out, err := exec.Command(python, "-c", "import psycopg2").CombinedOutput(); err != nil {
		missingClient(t, "psycopg2 is not installed (apt-get install python3-psycopg2): %v\n%s", err, out)
	}
	runClient(t, startTarget(t), filepath.Join(clientsDir, "python"), python, "psycopg2_matrix.py")
}

// TestJDBC compiles the JDBC program against Debian's PostgreSQL JDBC driver
// and runs it.
func TestJDBC(t *testing.T) {
	t.Parallel()
	const jar = "/usr/share/java/postgresql.jar"
	javac, java := lookPath(t, "javac"), lookPath(t, "java")
	if _, err := os.Stat(jar); err != nil {
		missingClient(t, "the JDBC driver is not installed (apt-get install libpostgresql-jdbc-java): %v", err)
	}
	src, err := filepath.Abs(filepath.Join(clientsDir, "java", "JdbcMatrix.java"))
	if err != nil {
		t.Fatal(err)
	}
	classes := t.TempDir()
	if out, err := exec.Command(javac, "-encoding", "UTF-8", "-cp", jar, "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	tg := startTarget(t)
	runClient(t, tg, classes, java, "-cp", classes+string(os.PathListSeparator)+jar, "JdbcMatrix")
}
