package sql_test

import (
	"context"
	"sync"
	"testing"
)

// Concurrent UPDATE ... FROM statements on one row lose no update: each
// waits for the one before, then re-checks its WHERE clause on the newest
// version with the same FROM row, as PostgreSQL's EvalPlanQual does.
func TestUpdateFromLosesNoUpdate(t *testing.T) {
	const workers, each = 8, 25
	c := lockConns(t, workers, "CREATE TABLE acct (id int PRIMARY KEY, balance int)",
		"CREATE TABLE pay (id int PRIMARY KEY, acct int, amount int)",
		"INSERT INTO acct VALUES (1, 0), (2, 0)", "INSERT INTO pay VALUES (1, 1, 3)")
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for _, conn := range c {
		wg.Go(func() {
			for range each {
				if _, err := conn.Exec(context.Background(),
					"UPDATE acct SET balance = acct.balance + pay.amount FROM pay WHERE pay.acct = acct.id"); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := count(t, c[0], "SELECT balance FROM acct WHERE id = 1"); n != workers*each*3 {
		t.Fatalf("balance = %d, want %d", n, workers*each*3)
	}
	if n := count(t, c[0], "SELECT balance FROM acct WHERE id = 2"); n != 0 {
		t.Fatalf("unmatched row's balance = %d", n)
	}
}
