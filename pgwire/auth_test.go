package pgwire

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

func pgconnect(t *testing.T, addr, user, password string, extra ...string) (*pgconn.PgConn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dsn := fmt.Sprintf("postgres://%s:%s@%s/epochdb?sslmode=disable&%s", user, password, addr, strings.Join(extra, "&"))
	conn, err := pgconn.Connect(ctx, dsn)
	if err == nil {
		t.Cleanup(func() { conn.Close(context.Background()) })
	}
	return conn, err
}

// pgx's own authentication code is the client here: the exchange must work
// with a real driver, not just with what the server's author thinks SCRAM is.
func TestPasswordAuthentication(t *testing.T) {
	for _, method := range []string{"", authSCRAM, authMD5, authCleartext} {
		t.Run(cmpOr(method, "default"), func(t *testing.T) {
			ts := startServer(t, func(s *Server, _ *fakeEngine) {
				s.Password, s.AuthMethod, s.User = "s3cret, ü", method, "admin"
			})
			conn, err := pgconnect(t, ts.addr, "admin", "s3cret,%20%C3%BC")
			if err != nil {
				t.Fatalf("right password: %v", err)
			}
			if rows, err := conn.Exec(context.Background(), "rows 1").ReadAll(); err != nil || len(rows[0].Rows) != 1 {
				t.Fatalf("query after authentication: %v %v", rows, err)
			}
			for _, c := range []struct{ user, password string }{
				{"admin", "wrong"},
				{"admin", ""},
				{"someone", "s3cret,%20%C3%BC"}, // the right password for another role
			} {
				_, err := pgconnect(t, ts.addr, c.user, c.password)
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != "28P01" || pe.Severity != "FATAL" ||
					pe.Message != fmt.Sprintf("password authentication failed for user %q", c.user) {
					t.Errorf("user %s password %q: got %v, want FATAL 28P01", c.user, c.password, err)
				}
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// The example exchange of RFC 7677, section 3, with its fixed nonces and
// salt.
func TestSCRAMRFC7677(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	secret, err := deriveSCRAMSecret("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	x := scramExchange{secret: secret}
	serverFirst, err := x.first([]byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"), "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0")
	if want := "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"; err != nil || serverFirst != want {
		t.Fatalf("server-first = %q, %v; want %q", serverFirst, err, want)
	}
	serverFinal, ok, err := x.final([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if want := "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="; err != nil || !ok || serverFinal != want {
		t.Fatalf("server-final = %q, %v, %v; want %q", serverFinal, ok, err, want)
	}

	// One flipped bit of the proof is a wrong password, not an error.
	x = scramExchange{secret: secret}
	x.first([]byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"), "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0")
	if _, ok, err := x.final([]byte("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVU=")); ok || err != nil {
		t.Fatalf("wrong proof: ok=%v err=%v, want a plain failure", ok, err)
	}
}

func TestSCRAMRejectsMalformedMessages(t *testing.T) {
	secret, err := deriveSCRAMSecret("pencil", []byte("salt"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	for _, first := range []string{
		"", "n", "n,", "x,,n=user,r=abc", "p=tls-server-end-point,,n=user,r=abc",
		"n,a=admin,n=user,r=abc", "n,,m=ext,n=user,r=abc", "n,,n=user", "n,,n=user,r=", "n,,n=user,r=a,b",
	} {
		x := scramExchange{secret: secret}
		if _, err := x.first([]byte(first), "server"); err == nil {
			t.Errorf("client-first %q accepted", first)
		}
	}
	for _, final := range []string{
		"", "c=biws,r=abcserver", "c=biws,r=abcserver,p=!!", "c=biws,r=abcserver,p=AAAA",
		"c=eSws,r=abcserver,p=" + base64.StdEncoding.EncodeToString(make([]byte, 32)), // binding flag differs from client-first
		"c=biws,r=abcother,p=" + base64.StdEncoding.EncodeToString(make([]byte, 32)),
	} {
		x := scramExchange{secret: secret}
		if _, err := x.first([]byte("n,,n=user,r=abc"), "server"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := x.final([]byte(final)); err == nil {
			t.Errorf("client-final %q accepted", final)
		}
	}
}

// A client that answers the SASL request with something else is refused.
func TestAuthenticationProtocolViolation(t *testing.T) {
	ts := startServer(t, func(s *Server, _ *fakeEngine) { s.Password = "pw" })
	c := dial(t, ts.addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "epochdb"}})
	c.receive()
	c.send(&pgproto3.Query{String: "rows 1"})
	got := c.readUntil("(closed)", 1)
	if want := `ErrorResponse FATAL 08P01 "expected SASLInitialResponse message, got Query"`; got[0] != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}
