// Package check is what the Go ORM and migration programs share: steps
// that report themselves, checks that end a step, and the server's
// address from libpq's environment.
//
// Each program runs its steps in order, printing "ok" or "FAIL" and the
// reason for each, and exits 1 if any failed (see
// internal/clienttest/orm_py_go_test.go in the main module).
package check

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing/fstest"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"
)

var failed []string

// A T is one step: its checks end it at the first mismatch.
type T struct{}

// failure is the panic by which a check ends its step.
type failure string

// Step runs fn as the step called name, at once, and reports how it went.
func Step(name string, fn func(t *T)) {
	defer func() {
		switch r := recover().(type) {
		case nil:
			fmt.Printf("ok   %s\n", name)
		case failure:
			failed = append(failed, name)
			fmt.Printf("FAIL %s: %s\n", name, r)
		default:
			panic(r)
		}
	}()
	fn(&T{})
}

// Fatalf ends the step as failed.
func (t *T) Fatalf(format string, args ...any) {
	panic(failure(fmt.Sprintf(format, args...)))
}

// Eq ends the step unless got and want are deeply equal.
func (t *T) Eq(got, want any, what string) {
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %#v, want %#v", what, got, want)
	}
}

// NoErr ends the step if err is not nil.
func (t *T) NoErr(err error, what string) {
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// SQLState is the SQLSTATE of the server error in err's chain, or "".
func SQLState(err error) string {
	if pg := PgError(err); pg != nil {
		return pg.Code
	}
	return ""
}

// PgError is the server error in err's chain, or nil.
func PgError(err error) *pgconn.PgError {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg
	}
	return nil
}

// URL is the server that libpq's environment (PGHOST, PGPORT, PGUSER,
// PGDATABASE) names, as a postgres URL with scheme.
func URL(scheme string) string {
	u := url.URL{
		Scheme:   scheme,
		User:     url.User(os.Getenv("PGUSER")),
		Host:     net.JoinHostPort(os.Getenv("PGHOST"), os.Getenv("PGPORT")),
		Path:     "/" + os.Getenv("PGDATABASE"),
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// OpenDB opens the server of libpq's environment with pgx's database/sql
// driver (an empty DSN: pgx reads PGHOST, PGPORT, ... itself), or fails a
// step and exits.
func OpenDB() *sql.DB {
	db, err := sql.Open("pgx", "")
	if err != nil {
		Step("open", func(t *T) { t.NoErr(err, "sql.Open") })
		Finish()
	}
	return db
}

// Querier is a *sql.DB or a *sql.Tx.
type Querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

// Texts runs q and returns its rows' one text column.
func (t *T) Texts(db Querier, q string) []string {
	rows, err := db.Query(q)
	t.NoErr(err, q)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		t.NoErr(rows.Scan(&s), q)
		out = append(out, s)
	}
	t.NoErr(rows.Err(), q)
	return out
}

// WithFiles is the files of fsys under dir and the extra ones, which name
// their paths under dir too: a set of migrations with one more.
func WithFiles(fsys fs.FS, dir string, extra map[string]string) fs.FS {
	files := fstest.MapFS{}
	entries, _ := fs.ReadDir(fsys, dir)
	for _, e := range entries {
		data, _ := fs.ReadFile(fsys, dir+"/"+e.Name())
		files[dir+"/"+e.Name()] = &fstest.MapFile{Data: data}
	}
	for name, text := range extra {
		files[dir+"/"+name] = &fstest.MapFile{Data: []byte(text)}
	}
	return files
}

// ErrString is err's text, or "no error".
func ErrString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// Finish exits 1 if any step failed, 0 otherwise.
func Finish() {
	if len(failed) > 0 {
		fmt.Printf("%d step(s) failed: %s\n", len(failed), strings.Join(failed, ", "))
		os.Exit(1)
	}
	os.Exit(0)
}
