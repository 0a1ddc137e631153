package sql_test

import (
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/epochdb/epochdb"
)

// openDB opens an in-memory database that lives as long as the test, and
// runs setup statements in it.
func openDB(t *testing.T, setup ...string) *epochdb.DB {
	t.Helper()
	db, err := epochdb.Open("", &epochdb.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	for _, q := range setup {
		if _, err := db.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db
}

// serve serves an in-memory database on a loopback port for the test and
// returns its URL.
func serve(t *testing.T) string {
	t.Helper()
	db := openDB(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go db.Serve(l)
	return fmt.Sprintf("postgres://epochdb@%s/epochdb?sslmode=disable", l.Addr())
}
