package txn

import (
	"context"
	"testing"
	"time"
)

// A Mutate callback that panics leaves its row unlocked: the SQL layer
// recovers such a panic per session, and a row left locked would stop
// every other writer of it for good.
func TestPanickingCallbackUnlocksRow(t *testing.T) {
	s, _ := newMemStore(t, Options{})
	ctx := context.Background()
	for _, existing := range []bool{false, true} {
		k := key(0)
		if existing {
			k = key(1)
			tx := s.Begin(ReadCommitted)
			if err := tx.Put(ctx, k, []byte("v")); err != nil {
				t.Fatal(err)
			}
			mustCommit(t, tx)
		}
		tx := s.Begin(ReadCommitted)
		func() {
			defer func() { _ = recover() }()
			_ = tx.Mutate(ctx, k, func([]byte, bool) ([]byte, Op, error) { panic("bug") })
		}()
		_ = tx.Rollback()
		done := make(chan error, 1)
		go func() {
			other := s.Begin(ReadCommitted)
			done <- other.Put(ctx, k, []byte("w"))
			_ = other.Rollback()
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("existing=%v: a write after the panic still waits for the row", existing)
		}
	}
}
