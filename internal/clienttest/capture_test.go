package clienttest

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var captureDir = flag.String("capture", "", "record what every client sends after its StartupMessage into this (empty) directory, one file per connection, for pgwire's fuzz seeds")

// captureNames lists the tests whose traffic -capture records, and names
// their captures <name>-<n>. Other tests talk to their server directly.
var captureNames = map[string]string{
	"TestPsql":         "psql",
	"TestPgx":          "pgx",
	"TestLibPQ":        "libpq",
	"TestJDBC":         "jdbc",
	"TestPsycopg2":     "psycopg2",
	"TestNodePostgres": "node-pg",
	"TestPostgresJS":   "postgresjs",
}

// captures numbers each client's connections across all its targets (pgx
// has one per subtest).
var captures struct {
	sync.Mutex
	n map[string]int // guarded by the mutex
}

// The startup packets a client may send before its StartupMessage, told
// apart by the code in place of a protocol version.
const (
	cancelRequest = 80877102
	sslRequest    = 80877103
	gssEncRequest = 80877104
)

// captureTraffic puts a recording proxy in front of tg and returns the proxy
// as the client's target. The server's side is relayed but not recorded.
func captureTraffic(t *testing.T, tg target) target {
	t.Helper()
	client, ok := captureNames[strings.SplitN(t.Name(), "/", 2)[0]]
	if !ok {
		t.Logf("-capture: %s is not in captureNames, so its traffic is not recorded", t.Name())
		return tg
	}
	if err := os.MkdirAll(*captureDir, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	upstream := net.JoinHostPort(tg.host, tg.port)
	stop := make(chan struct{})
	// The accept loop holds the group while it may still add to it.
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				if err := relay(c, upstream, client, stop); err != nil {
					t.Errorf("-capture: %v", err)
				}
			})
		}
	})
	t.Cleanup(func() {
		l.Close()
		close(stop)
		wg.Wait()
	})
	host, port, _ := net.SplitHostPort(l.Addr().String())
	tg.host, tg.port = host, port
	return tg
}

// relay connects c to upstream until one of them hangs up, and records what
// c sends after its StartupMessage. Once stop is closed, the connection has
// a few seconds left, so that a client that never hangs up cannot hold up
// the test.
func relay(c net.Conn, upstream, client string, stop <-chan struct{}) error {
	defer c.Close()
	s, err := net.Dial("tcp", upstream)
	if err != nil {
		return err
	}
	defer s.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-stop:
			deadline := time.Now().Add(5 * time.Second)
			c.SetDeadline(deadline)
			s.SetDeadline(deadline)
		case <-done:
		}
	}()
	replied := make(chan struct{})
	go func() {
		defer close(replied)
		io.Copy(c, s)
		c.Close() // the server hung up: so does the proxy, to the client too
	}()

	// Either side may hang up at any point, so the errors of the relaying
	// itself are not the test's; only failing to record is.
	var recordErr error
	if ok, _ := relayStartup(c, s); ok {
		recordErr = record(c, s, client)
	}
	s.(*net.TCPConn).CloseWrite()
	<-replied
	return recordErr
}

// relayStartup relays the client's startup packets up to and including its
// StartupMessage, and reports whether it got that far: a CancelRequest's
// connection has nothing else to say. The server answers an SSLRequest or
// GSSENCRequest with 'N', and the client goes on in the clear.
func relayStartup(c, s net.Conn) (bool, error) {
	for {
		var head [8]byte
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return false, err
		}
		n := binary.BigEndian.Uint32(head[:4])
		if n < 8 || n > 10000 {
			return false, fmt.Errorf("startup packet of %d bytes", n)
		}
		pkt := make([]byte, n)
		copy(pkt, head[:])
		if _, err := io.ReadFull(c, pkt[8:]); err != nil {
			return false, err
		}
		if _, err := s.Write(pkt); err != nil {
			return false, err
		}
		switch binary.BigEndian.Uint32(head[4:]) {
		case cancelRequest:
			return false, nil
		case sslRequest, gssEncRequest:
		default:
			return true, nil
		}
	}
}

// record relays the rest of what c sends to s, and writes it to the client's
// next capture file first, so that the file has every byte the server saw.
func record(c, s net.Conn, client string) error {
	captures.Lock()
	if captures.n == nil {
		captures.n = map[string]int{}
	}
	captures.n[client]++
	name := filepath.Join(*captureDir, fmt.Sprintf("%s-%d", client, captures.n[client]))
	captures.Unlock()

	f, err := os.Create(name)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.MultiWriter(f, s), c)
	if errors.As(err, new(*fs.PathError)) {
		f.Close()
		return err
	}
	return f.Close()
}
