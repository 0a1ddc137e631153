package pgwire

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/sql"
	"github.com/epochdb/epochdb/txn"
	"github.com/epochdb/epochdb/wal"
	"github.com/jackc/pgx/v5/pgproto3"
)

// startEngineServer starts a Server over the real SQL engine, in memory,
// for conversations whose answers are the engine's rather than the fake's.
func startEngineServer(t *testing.T) string {
	t.Helper()
	store, err := txn.Open("/epochdb", txn.Options{FS: vfs.NewMem(), WAL: wal.Options{NoSync: true}, Logger: slogDiscard()})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := sql.NewEngine(store, sql.EngineOptions{Superuser: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := &Server{Engine: Adapt(engine.NewSession), Logger: slogDiscard()}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		<-served
		if err := store.Close(); err != nil {
			t.Errorf("store.Close: %v", err)
		}
	})
	return l.Addr().String()
}

// portalServers are the servers a portal conversation runs against: the
// engine, and PostgreSQL when EPOCHDB_PG_URL names one, so that the
// expectations below are shown to be PostgreSQL's.
func portalServers(t *testing.T) map[string]func() *client {
	servers := map[string]func() *client{}
	addr := startEngineServer(t)
	servers["epochdb"] = func() *client { return connect(t, addr) }
	if pg := os.Getenv("EPOCHDB_PG_URL"); pg != "" {
		u, err := url.Parse(pg)
		if err != nil {
			t.Fatal(err)
		}
		servers["postgresql"] = func() *client {
			c := dial(t, u.Host)
			out := c.startup(map[string]string{"user": u.User.Username(), "database": strings.TrimPrefix(u.Path, "/")})
			if last := out[len(out)-1]; last != "ReadyForQuery I" {
				t.Fatalf("startup on %s ended with %s", u.Host, last)
			}
			return c
		}
	}
	return servers
}

// conversation sends msgs, and a Sync unless they are a Query, and returns
// the replies up to ReadyForQuery, without the ParameterStatus messages a
// server may add.
func (c *client) conversation(msgs ...pgproto3.FrontendMessage) []string {
	c.t.Helper()
	if _, ok := msgs[0].(*pgproto3.Query); !ok {
		msgs = append(msgs, &pgproto3.Sync{})
	}
	c.send(msgs...)
	var out []string
	for _, m := range c.readUntil("ReadyForQuery", 1) {
		if !strings.HasPrefix(m, "ParameterStatus") {
			out = append(out, m)
		}
	}
	return out
}

// TestPortalResumeTags reads a five-row query through every sequence of
// Execute sizes (0, meaning all, and 1 to 6) until it completes, and once
// more after that. The CommandComplete of a portal resumed after
// PortalSuspended counts the rows of that last Execute only, a portal
// suspended exactly at its end completes with SELECT 0 at the next
// Execute, and so does an Execute of a portal already complete.
func TestPortalResumeTags(t *testing.T) {
	const n = 5
	var sequences [][]uint32
	var grow func(seq []uint32, left int)
	grow = func(seq []uint32, left int) {
		for k := range uint32(n + 2) {
			next := append(seq[:len(seq):len(seq)], k)
			if k == 0 || int(k) > left {
				sequences = append(sequences, next)
			} else {
				grow(next, left-int(k))
			}
		}
	}
	grow(nil, n)
	if len(sequences) != 193 {
		t.Fatalf("%d sequences of Execute sizes, want 193", len(sequences))
	}
	for name, open := range portalServers(t) {
		t.Run(name, func(t *testing.T) {
			c := open()
			if got := c.conversation(&pgproto3.Parse{Name: "five", Query: fmt.Sprintf("SELECT g FROM generate_series(1, %d) g", n)}); got[0] != "ParseComplete" {
				t.Fatalf("Parse: %v", got)
			}
			for _, seq := range sequences {
				msgs := []pgproto3.FrontendMessage{&pgproto3.Bind{PreparedStatement: "five"}}
				want := []string{"BindComplete"}
				sent := 0
				for _, k := range append(seq, 0) {
					msgs = append(msgs, &pgproto3.Execute{MaxRows: k})
					batch := n - sent
					if k != 0 && int(k) <= batch {
						batch = int(k)
					}
					for i := range batch {
						want = append(want, fmt.Sprintf("DataRow %q", fmt.Sprint(sent+i+1)))
					}
					sent += batch
					if k != 0 && batch == int(k) {
						want = append(want, "PortalSuspended")
					} else {
						want = append(want, fmt.Sprintf("CommandComplete \"SELECT %d\"", batch))
					}
				}
				want = append(want, "ReadyForQuery I")
				if got := c.conversation(msgs...); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("Execute sizes %v, then 0:\ngot:\n%s\nwant:\n%s", seq, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

// TestPortalResumeStatements resumes the portals of statements other than
// SELECT: a write's RETURNING rows and a FETCH from a cursor, held or
// not, count the rows of each Execute in their own tags; SHOW and EXPLAIN
// have no count; a statement that returns no rows cannot be executed
// again.
func TestPortalResumeStatements(t *testing.T) {
	rows := func(from, to int) []string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, fmt.Sprintf("DataRow %q", fmt.Sprint(i)))
		}
		return out
	}
	cat := func(parts ...any) []string {
		var out []string
		for _, p := range parts {
			switch p := p.(type) {
			case string:
				out = append(out, p)
			case []string:
				out = append(out, p...)
			}
		}
		return out
	}
	exec := func(query string, sizes ...uint32) []pgproto3.FrontendMessage {
		msgs := []pgproto3.FrontendMessage{&pgproto3.Parse{Query: query}, &pgproto3.Bind{}}
		for _, k := range sizes {
			msgs = append(msgs, &pgproto3.Execute{MaxRows: k})
		}
		return msgs
	}
	simple := func(query string) []pgproto3.FrontendMessage {
		return []pgproto3.FrontendMessage{&pgproto3.Query{String: query}}
	}
	steps := []struct {
		msgs []pgproto3.FrontendMessage
		want []string
	}{
		{simple("CREATE TEMP TABLE resumed (id int)"), nil},
		{exec("SELECT g FROM generate_series(1, 1000) g", 200, 0),
			cat("ParseComplete", "BindComplete", rows(1, 200), "PortalSuspended", rows(201, 1000), `CommandComplete "SELECT 800"`, "ReadyForQuery I")},
		{exec("INSERT INTO resumed SELECT g FROM generate_series(1, 5) g RETURNING id", 2, 0, 2),
			cat("ParseComplete", "BindComplete", rows(1, 2), "PortalSuspended", rows(3, 5), `CommandComplete "INSERT 0 3"`, `CommandComplete "INSERT 0 0"`, "ReadyForQuery I")},
		{exec("UPDATE resumed SET id = id RETURNING id", 4, 4, 4),
			cat("ParseComplete", "BindComplete", rows(1, 4), "PortalSuspended", rows(5, 5), `CommandComplete "UPDATE 1"`, `CommandComplete "UPDATE 0"`, "ReadyForQuery I")},
		{exec("DELETE FROM resumed WHERE id > 3 RETURNING id", 1, 1, 1),
			cat("ParseComplete", "BindComplete", rows(4, 4), "PortalSuspended", rows(5, 5), "PortalSuspended", `CommandComplete "DELETE 0"`, "ReadyForQuery I")},
		{exec("INSERT INTO resumed VALUES (9)", 1, 0),
			cat("ParseComplete", "BindComplete", `CommandComplete "INSERT 0 1"`, `ErrorResponse ERROR 55000 "portal \"\" cannot be run"`, "ReadyForQuery I")},
		{simple("BEGIN; DECLARE c CURSOR FOR SELECT g FROM generate_series(1, 10) g"), nil},
		{exec("FETCH 5 FROM c", 2, 2, 2, 2),
			cat("ParseComplete", "BindComplete", rows(1, 2), "PortalSuspended", rows(3, 4), "PortalSuspended", rows(5, 5), `CommandComplete "FETCH 1"`, `CommandComplete "FETCH 0"`, "ReadyForQuery T")},
		{exec("EXPLAIN SELECT 1", 1, 0, 1),
			cat("ParseComplete", "BindComplete", "*", "PortalSuspended", `CommandComplete "EXPLAIN"`, `CommandComplete "EXPLAIN"`, "ReadyForQuery T")},
		{exec("SHOW TimeZone", 1, 1, 1),
			cat("ParseComplete", "BindComplete", "*", "PortalSuspended", `CommandComplete "SHOW"`, `CommandComplete "SHOW"`, "ReadyForQuery T")},
		{simple("COMMIT"), nil},
		// A cursor declared WITH HOLD through the extended protocol, with
		// a parameter, outlives the implicit transaction that Sync ends.
		{[]pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "DECLARE held CURSOR WITH HOLD FOR SELECT g FROM generate_series(1, $1::int4) g"},
			&pgproto3.Bind{Parameters: [][]byte{[]byte("4")}}, &pgproto3.Execute{},
		}, cat("ParseComplete", "BindComplete", `CommandComplete "DECLARE CURSOR"`, "ReadyForQuery I")},
		{exec("FETCH ALL FROM held", 3, 3),
			cat("ParseComplete", "BindComplete", rows(1, 3), "PortalSuspended", rows(4, 4), `CommandComplete "FETCH 1"`, "ReadyForQuery I")},
		// A portal suspended in a block reads its first Execute's
		// snapshot to the end, past an UPDATE of every row it has yet to
		// send and a statement after it, and past more rows than a scan
		// reads at once.
		{simple("CREATE TEMP TABLE snap (id int PRIMARY KEY, v int); INSERT INTO snap SELECT g, 0 FROM generate_series(1, 600) g; BEGIN"), nil},
		{[]pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "SELECT v FROM snap"}, &pgproto3.Bind{DestinationPortal: "p"}, &pgproto3.Execute{Portal: "p", MaxRows: 1},
		}, cat("ParseComplete", "BindComplete", `DataRow "0"`, "PortalSuspended", "ReadyForQuery T")},
		{exec("UPDATE snap SET v = 1", 0), cat("ParseComplete", "BindComplete", `CommandComplete "UPDATE 600"`, "ReadyForQuery T")},
		{simple("SELECT 1"), nil},
		{[]pgproto3.FrontendMessage{&pgproto3.Execute{Portal: "p"}},
			cat(slices.Repeat([]string{`DataRow "0"`}, 599), `CommandComplete "SELECT 599"`, "ReadyForQuery T")},
		{simple("COMMIT"), nil},
	}
	for name, open := range portalServers(t) {
		t.Run(name, func(t *testing.T) {
			c := open()
			for _, st := range steps {
				got := c.conversation(st.msgs...)
				if st.want == nil {
					if last := got[len(got)-1]; strings.HasPrefix(got[0], "ErrorResponse") || !strings.HasPrefix(last, "ReadyForQuery") {
						t.Fatalf("%v: %v", st.msgs[0], got)
					}
					continue
				}
				// "*" is a row whose text is the server's own (a plan, a
				// time zone).
				ok := len(got) == len(st.want)
				for i := 0; ok && i < len(got); i++ {
					ok = got[i] == st.want[i] || st.want[i] == "*" && strings.HasPrefix(got[i], "DataRow")
				}
				if !ok {
					t.Errorf("%v:\ngot:\n%s\nwant:\n%s", st.msgs[0], strings.Join(got, "\n"), strings.Join(st.want, "\n"))
				}
			}
		})
	}
}
