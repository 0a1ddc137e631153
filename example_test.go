package epochdb_test

import (
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/epochdb/epochdb"
	"github.com/jackc/pgx/v5"
)

// A Go test can start an embedded server on a free loopback port and talk
// to it with any PostgreSQL driver: no Docker, no external binary.
func Example() {
	db, err := epochdb.Open("", &epochdb.Options{InMemory: true})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go db.Serve(l)

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://epochdb@%s/epochdb?sslmode=disable", l.Addr()))
	if err != nil {
		panic(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE greetings (id int PRIMARY KEY, text text NOT NULL)"); err != nil {
		panic(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO greetings VALUES ($1, $2)", 1, "hello from epochdb"); err != nil {
		panic(err)
	}
	var text string
	if err := conn.QueryRow(ctx, "SELECT text FROM greetings WHERE id = $1", 1).Scan(&text); err != nil {
		panic(err)
	}
	fmt.Println(text)
	// Output: hello from epochdb
}

// BenchmarkOpenFirstQuery measures what a test pays to get an in-memory
// database: Open, then the first query through the in-process driver.
func BenchmarkOpenFirstQuery(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		db, err := epochdb.Open("", &epochdb.Options{InMemory: true})
		if err != nil {
			b.Fatal(err)
		}
		var one int
		if err := db.SQL().QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			b.Fatal(one, err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenServeFirstQuery adds a listener and a pgx connection.
func BenchmarkOpenServeFirstQuery(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		db, err := epochdb.Open("", &epochdb.Options{InMemory: true})
		if err != nil {
			b.Fatal(err)
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		go db.Serve(l)
		conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://epochdb@%s/epochdb?sslmode=disable", l.Addr()))
		if err != nil {
			b.Fatal(err)
		}
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
			b.Fatal(err)
		}
		_ = conn.Close(ctx)
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
