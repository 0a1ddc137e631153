// Package check is what the Go ORM and migration programs share: steps
// that report themselves, checks that end a step, and the server's
// address from libpq's environment.
//
// Each program runs its steps in order, printing "ok" or "FAIL" and the
// reason for each, and exits 1 if any failed (see
// internal/clienttest/orm_py_go_test.go in the main module).
package check

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"reflect"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
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

// Finish exits 1 if any step failed, 0 otherwise.
func Finish() {
	if len(failed) > 0 {
		fmt.Printf("%d step(s) failed: %s\n", len(failed), strings.Join(failed, ", "))
		os.Exit(1)
	}
	os.Exit(0)
}
