package sql_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// A child insert in flight keeps its parent from going: the delete waits
// for it, then finds the child and fails. A parent delete in flight makes
// a child insert wait, then fail.
func TestForeignKeyRaces(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE p (id int PRIMARY KEY)", "CREATE TABLE ch (id int PRIMARY KEY, pid int REFERENCES p)",
		"INSERT INTO p VALUES (1), (2)")
	ctx := context.Background()

	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "INSERT INTO ch VALUES (1, 1)")
	done := blocked(t, c[1], "DELETE FROM p WHERE id = 1")
	mustExec(t, c[0], "COMMIT")
	if code := sqlstate(<-done); code != "23503" {
		t.Fatalf("deleting a parent a child committed meanwhile: SQLSTATE %q, want 23503", code)
	}

	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "DELETE FROM p WHERE id = 2")
	done = blocked(t, c[1], "INSERT INTO ch VALUES (2, 2)")
	mustExec(t, c[0], "COMMIT")
	if code := sqlstate(<-done); code != "23503" {
		t.Fatalf("a child of a parent deleted meanwhile: SQLSTATE %q, want 23503", code)
	}

	// A rolled-back delete lets the waiting child in.
	mustExec(t, c[0], "INSERT INTO p VALUES (2)")
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "DELETE FROM p WHERE id = 2")
	done = blocked(t, c[1], "INSERT INTO ch VALUES (2, 2)")
	mustExec(t, c[0], "ROLLBACK")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := c[1].Exec(ctx, "DELETE FROM p"); sqlstate(err) != "23503" {
		t.Fatalf("deleting referenced parents: %v", err)
	}
}

// Sessions inserting children and deleting parents at random never leave
// an orphan, whatever the interleaving.
func TestForeignKeyNoOrphans(t *testing.T) {
	const sessions, parents, rounds = 4, 8, 60
	c := lockConns(t, sessions, "CREATE TABLE p (id int PRIMARY KEY)",
		"CREATE TABLE ch (id serial PRIMARY KEY, pid int REFERENCES p)")
	ctx := context.Background()
	var wg sync.WaitGroup
	for w, conn := range c {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range rounds {
				id := r.IntN(parents)
				var q string
				switch r.IntN(3) {
				case 0:
					q = fmt.Sprintf("INSERT INTO p VALUES (%d) ON CONFLICT DO NOTHING", id)
				case 1:
					q = fmt.Sprintf("INSERT INTO ch (pid) VALUES (%d)", id)
				default:
					q = fmt.Sprintf("DELETE FROM p WHERE id = %d", id)
				}
				_, err := conn.Exec(ctx, q)
				if code := sqlstate(err); err != nil && code != "23503" && code != "40P01" {
					t.Errorf("%s: %v", q, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := count(t, c[0], "SELECT count(*) FROM ch WHERE pid NOT IN (SELECT id FROM p)"); n != 0 {
		t.Fatalf("%d orphaned children", n)
	}
}

// ON DELETE CASCADE follows a chain of any length, and ON UPDATE CASCADE
// carries a new key down to every child.
func TestForeignKeyCascadeChain(t *testing.T) {
	const depth = 60
	c := lockConns(t, 1, "CREATE TABLE node (id int PRIMARY KEY, up int REFERENCES node ON DELETE CASCADE ON UPDATE CASCADE)",
		"INSERT INTO node VALUES (1, NULL)",
		fmt.Sprintf("INSERT INTO node SELECT g, g - 1 FROM generate_series(2, %d) g", depth))
	mustExec(t, c[0], "UPDATE node SET id = 1000 WHERE id = 1")
	if n := count(t, c[0], "SELECT count(*) FROM node WHERE up = 1000"); n != 1 {
		t.Fatalf("%d children follow the new key, want 1", n)
	}
	mustExec(t, c[0], "DELETE FROM node WHERE id = 1000")
	if n := count(t, c[0], "SELECT count(*) FROM node"); n != 0 {
		t.Fatalf("%d nodes left after deleting the root, want 0", n)
	}
}
