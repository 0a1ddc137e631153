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

// Children found through an index on the foreign key are the ones a scan
// finds: two children, one indexed three ways and one not, stay equal
// under random cascading deletes and key changes of their parents.
func TestForeignKeyChildIndexMatchesScan(t *testing.T) {
	c := lockConns(t, 1, "CREATE TABLE p (a int, b int, PRIMARY KEY (a, b))",
		"CREATE TABLE plain (id int PRIMARY KEY, a int, b int, FOREIGN KEY (a, b) REFERENCES p ON DELETE CASCADE ON UPDATE CASCADE)",
		"CREATE TABLE idx (id int PRIMARY KEY, a int, b int, FOREIGN KEY (b, a) REFERENCES p (b, a) ON DELETE CASCADE ON UPDATE CASCADE)",
		"CREATE INDEX idx_ba ON idx (b, a, id)",
		"CREATE TABLE byuniq (a int, b int, n int, UNIQUE (a, b, n), FOREIGN KEY (a, b) REFERENCES p ON DELETE SET NULL ON UPDATE CASCADE)",
		"CREATE TABLE bypk (a int, b int, n int, PRIMARY KEY (a, b, n), FOREIGN KEY (a, b) REFERENCES p ON DELETE CASCADE ON UPDATE CASCADE)",
		"INSERT INTO p SELECT a, b FROM generate_series(1, 6) a, generate_series(1, 6) b",
		"INSERT INTO plain SELECT g, g % 6 + 1, g % 5 + 1 FROM generate_series(1, 300) g",
		"INSERT INTO idx SELECT id, a, b FROM plain",
		"INSERT INTO byuniq SELECT a, b, id FROM plain",
		"INSERT INTO bypk SELECT a, b, id FROM plain")
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		a, b := r.IntN(6)+1, r.IntN(6)+1
		q := fmt.Sprintf("DELETE FROM p WHERE a = %d AND b = %d", a, b)
		if i%2 == 0 {
			q = fmt.Sprintf("UPDATE p SET a = a + 100 WHERE a = %d AND b = %d", a, b)
		}
		mustExec(t, c[0], q)
	}
	for _, q := range []string{
		"SELECT count(*) FROM (SELECT * FROM plain EXCEPT SELECT * FROM idx) d",
		"SELECT count(*) FROM (SELECT * FROM idx EXCEPT SELECT * FROM plain) d",
		"SELECT count(*) FROM (SELECT a, b, id FROM plain EXCEPT SELECT a, b, n FROM bypk) d",
		"SELECT count(*) FROM (SELECT a, b, n FROM bypk EXCEPT SELECT a, b, id FROM plain) d",
		"SELECT count(*) FROM byuniq u LEFT JOIN plain p ON p.id = u.n WHERE (p.id IS NULL) <> (u.a IS NULL) OR p.a <> u.a",
	} {
		if n := count(t, c[0], q); n != 0 {
			t.Fatalf("%s: %d rows differ", q, n)
		}
	}
	if n := count(t, c[0], "SELECT count(*) FROM plain"); n == 300 || n == 0 {
		t.Fatalf("%d rows left: the changes touched nothing, or everything", n)
	}
}

// A key of char(n), whose trailing spaces do not count, never pairs with
// one of text or varchar, whose do: PostgreSQL allows it, and a parent
// 'ab' then stands for both 'ab' and 'ab  ' among the children, which the
// key encoding cannot find in one lookup. It is refused instead of
// leaving orphans.
func TestForeignKeyCharAgainstTextRefused(t *testing.T) {
	c := lockConns(t, 1, "CREATE TABLE pc (k char(4) PRIMARY KEY)", "CREATE TABLE pv (k varchar(5) PRIMARY KEY)")
	for _, q := range []string{
		"CREATE TABLE ct (k text REFERENCES pc)",
		"CREATE TABLE cc (k char(5) REFERENCES pv)",
	} {
		if _, err := c[0].Exec(context.Background(), q); sqlstate(err) != "42804" {
			t.Errorf("%s: %v, want 42804", q, err)
		}
	}
}

// Adding children does not hold back updates of their parent's other
// columns: the foreign key check's FOR KEY SHARE lock and a FOR NO KEY
// UPDATE write do not conflict. Two transactions that each add a line to
// one order and then update its total both commit, where waiting for each
// other's key share locks would deadlock.
func TestForeignKeyCheckLetsNonKeyUpdatesPass(t *testing.T) {
	c := lockConns(t, 3, "CREATE TABLE orders (id int PRIMARY KEY, total int)",
		"CREATE TABLE lines (id int PRIMARY KEY, oid int REFERENCES orders, amt int)",
		"INSERT INTO orders VALUES (1, 0)")
	for _, conn := range c[:2] {
		mustExec(t, conn, "SET lock_timeout = '20s'") // a wrong wait fails instead of hanging
	}
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "INSERT INTO lines VALUES (1, 1, 5)")
	mustExec(t, c[1], "BEGIN")
	mustExec(t, c[1], "INSERT INTO lines VALUES (2, 1, 7)")
	mustExec(t, c[0], "UPDATE orders SET total = total + 5 WHERE id = 1") // passes c[1]'s key share lock
	second := blocked(t, c[1], "UPDATE orders SET total = total + 7 WHERE id = 1")
	mustExec(t, c[0], "COMMIT")
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	mustExec(t, c[1], "COMMIT")
	if n := count(t, c[2], "SELECT total FROM orders WHERE id = 1"); n != 12 {
		t.Fatalf("total = %d, want 12", n)
	}
	// A child may also be added under a parent whose other columns are
	// being changed; a change of the key itself still waits.
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "UPDATE orders SET total = 0 WHERE id = 1")
	mustExec(t, c[1], "INSERT INTO lines VALUES (3, 1, 1)")
	mustExec(t, c[0], "COMMIT")
	mustExec(t, c[1], "BEGIN")
	mustExec(t, c[1], "INSERT INTO lines VALUES (4, 1, 1)")
	keyChange := blocked(t, c[0], "UPDATE orders SET id = 2 WHERE id = 1")
	mustExec(t, c[1], "COMMIT")
	if err := <-keyChange; sqlstate(err) != "23503" {
		t.Fatalf("key change with children: %v, want 23503", err)
	}
}
