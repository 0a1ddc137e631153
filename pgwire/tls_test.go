package pgwire

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/epochdb/epochdb/internal/testcert"
	"github.com/jackc/pgx/v5/pgconn"
)

// With a TLSConfig, a client that asks for TLS gets it, one that verifies
// the certificate accepts it, and one that does not ask still connects in
// the clear.
func TestTLS(t *testing.T) {
	cert, certFile, _ := testcert.SelfSigned(t, t.TempDir())
	ts := startServer(t, func(s *Server, _ *fakeEngine) {
		s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	})
	for _, c := range []struct {
		sslmode string
		tls     bool
	}{
		{"require", true},
		{"verify-full&sslrootcert=" + certFile, true},
		{"prefer", true},
		{"disable", false},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := pgconn.Connect(ctx, fmt.Sprintf("postgres://u@%s/epochdb?sslmode=%s", ts.addr, c.sslmode))
		cancel()
		if err != nil {
			t.Fatalf("sslmode=%s: %v", c.sslmode, err)
		}
		if _, isTLS := conn.Conn().(*tls.Conn); isTLS != c.tls {
			t.Errorf("sslmode=%s: TLS %v, want %v", c.sslmode, isTLS, c.tls)
		}
		if _, err := conn.Exec(context.Background(), "insert").ReadAll(); err != nil {
			t.Errorf("sslmode=%s: %v", c.sslmode, err)
		}
		conn.Close(context.Background())
	}
}

// Bytes sent after an SSLRequest, before the handshake, are unencrypted
// and may be a man in the middle's: the server refuses them at once, as
// PostgreSQL does, instead of swallowing them into the handshake.
func TestTLSRefusesDataAfterSSLRequest(t *testing.T) {
	cert, _, _ := testcert.SelfSigned(t, t.TempDir())
	ts := startServer(t, func(s *Server, _ *fakeEngine) {
		s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	})
	c := dial(t, ts.addr)
	c.write(append(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), 80877103), "garbage!"...))
	got := c.readUntil("(closed)", 1)
	if len(got) == 0 || !strings.HasPrefix(got[0], "ErrorResponse FATAL 08P01") {
		t.Fatalf("after SSLRequest and cleartext: %v", got)
	}
}
