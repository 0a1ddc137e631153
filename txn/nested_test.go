package txn

import (
	"context"
	"testing"
)

// A nested statement (a routine's, a trigger's) reads the writes of the
// statement it runs in, made before it began; once it ends, the
// enclosing statement still reads neither its own writes nor the nested
// one's, and the next statement reads both.
func TestNestedStatementVisibility(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	tx := s.Begin(ReadCommitted)
	defer func() { _ = tx.Rollback() }()
	tx.NextStatement()
	if err := tx.Put(ctx, key(1), []byte("outer")); err != nil {
		t.Fatal(err)
	}
	visible := func(i int) bool {
		t.Helper()
		_, ok, err := tx.Get(key(i))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if visible(1) {
		t.Fatal("a statement reads its own write")
	}
	end := tx.Nested()
	if !visible(1) {
		t.Fatal("a nested statement does not read the enclosing statement's write")
	}
	if err := tx.Put(ctx, key(2), []byte("inner")); err != nil {
		t.Fatal(err)
	}
	end()
	if visible(1) || visible(2) {
		t.Fatalf("back in the enclosing statement, its write visible %v, the nested one's %v; want neither", visible(1), visible(2))
	}
	tx.NextStatement()
	if !visible(1) || !visible(2) {
		t.Fatal("the next statement does not read both writes")
	}
}
