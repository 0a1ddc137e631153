package txn

import (
	"context"
	"errors"
	"testing"
)

// The parts of one statement read what the statement reads, never each
// other's writes; MutateOnce and LockRow tell a row another part wrote
// from one the running part wrote, and the next statement sees it all.
func TestStatementParts(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	setup := s.Begin(ReadCommitted)
	for _, k := range []string{"a", "b", "c"} {
		if err := setup.Put(ctx, []byte(k), []byte("0")); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, setup)

	tx := s.Begin(ReadCommitted)
	tx.NextStatement()
	if err := tx.Put(ctx, []byte("a"), []byte("main")); err != nil {
		t.Fatal(err)
	}
	end := tx.StatementPart()
	if v, _, _ := tx.Get([]byte("a")); string(v) != "0" {
		t.Fatalf("a part reads %q, want the statement's snapshot 0", v)
	}
	if err := tx.MutateOnce(ctx, []byte("a"), func([]byte, bool) ([]byte, Op, error) {
		t.Fatal("MutateOnce called fn on a row another part wrote")
		return nil, Keep, nil
	}); !errors.Is(err, ErrWrittenByStatement) {
		t.Fatalf("MutateOnce of a row the main part wrote: %v, want ErrWrittenByStatement", err)
	}
	if err := tx.MutateOnce(ctx, []byte("b"), func([]byte, bool) ([]byte, Op, error) { return []byte("part"), Put, nil }); err != nil {
		t.Fatal(err)
	}
	// The part may write its own row again, as a foreign key action does.
	if err := tx.MutateOnce(ctx, []byte("b"), func([]byte, bool) ([]byte, Op, error) { return []byte("part2"), Put, nil }); err != nil {
		t.Fatal(err)
	}
	end()
	if v, _, _ := tx.Get([]byte("b")); string(v) != "0" {
		t.Fatalf("the main part reads %q, want the statement's snapshot 0", v)
	}
	if err := tx.MutateOnce(ctx, []byte("b"), func([]byte, bool) ([]byte, Op, error) { return nil, Delete, nil }); !errors.Is(err, ErrWrittenByStatement) {
		t.Fatalf("MutateOnce of a row the part wrote: %v, want ErrWrittenByStatement", err)
	}
	if got, err := tx.LockRow(ctx, []byte("b"), LockUpdate, false); err != nil || !got.ByStatement {
		t.Fatalf("LockRow of a row the part wrote: %+v, %v; want ByStatement", got, err)
	}
	if got, err := tx.LockRow(ctx, []byte("c"), LockUpdate, false); err != nil || got.ByStatement {
		t.Fatalf("LockRow of an untouched row: %+v, %v; want not ByStatement", got, err)
	}
	// Plain Mutate writes regardless.
	if err := tx.Put(ctx, []byte("b"), []byte("main")); err != nil {
		t.Fatal(err)
	}

	tx.NextStatement()
	for k, want := range map[string]string{"a": "main", "b": "main", "c": "0"} {
		if v, _, _ := tx.Get([]byte(k)); string(v) != want {
			t.Fatalf("next statement reads %s = %q, want %q", k, v, want)
		}
	}
	if err := tx.MutateOnce(ctx, []byte("a"), func([]byte, bool) ([]byte, Op, error) { return []byte("next"), Put, nil }); err != nil {
		t.Fatalf("MutateOnce in the next statement: %v", err)
	}
	mustCommit(t, tx)
}

// TestMutateOnceTellsTriggeredWrites checks that MutateOnce tells a row
// written by a statement nested in the one in progress (a trigger's, two
// levels down here) from one written by another part of the statement:
// PostgreSQL refuses the first (ErrWrittenByTrigger, 27000) and leaves
// the second alone (ErrWrittenByStatement). The next statement may write
// both.
func TestMutateOnceTellsTriggeredWrites(t *testing.T) {
	ctx := context.Background()
	s, _ := newMemStore(t, Options{})
	tx := s.Begin(ReadCommitted)
	defer tx.Rollback()
	for _, k := range []string{"a", "b", "c"} {
		if err := tx.Put(ctx, []byte(k), []byte("0")); err != nil {
			t.Fatal(err)
		}
	}
	tx.NextStatement()
	set1 := func([]byte, bool) ([]byte, Op, error) { return []byte("1"), Put, nil }
	end := tx.Nested()
	if err := tx.MutateOnce(ctx, []byte("a"), set1); err != nil {
		t.Fatal(err)
	}
	inner := tx.Nested()
	if err := tx.Put(ctx, []byte("c"), []byte("2")); err != nil {
		t.Fatal(err)
	}
	inner()
	end()
	part := tx.StatementPart()
	if err := tx.Put(ctx, []byte("b"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	part()
	for k, want := range map[string]error{"a": ErrWrittenByTrigger, "c": ErrWrittenByTrigger, "b": ErrWrittenByStatement} {
		if err := tx.MutateOnce(ctx, []byte(k), set1); !errors.Is(err, want) {
			t.Errorf("%s: MutateOnce gives %v, want %v", k, err, want)
		}
	}
	tx.NextStatement()
	for _, k := range []string{"a", "b", "c"} {
		if err := tx.MutateOnce(ctx, []byte(k), set1); err != nil {
			t.Errorf("%s, next statement: %v", k, err)
		}
	}
}
