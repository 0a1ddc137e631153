package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/epochdb/epochdb/internal/testcert"
	"github.com/epochdb/epochdb/txn"
)

// Without a password every client is the superuser, so serve refuses any
// address but loopback, says why, and touches nothing.
func TestServeRefusesNonLoopbackWithoutPassword(t *testing.T) {
	t.Setenv("EPOCHDB_PASSWORD", "")
	for _, listen := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		dir := filepath.Join(t.TempDir(), "data")
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve", "--listen", listen, "--data-dir", dir}, io.Discard, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), "refusing to listen on "+listen+" without a password") ||
			!strings.Contains(stderr.String(), "--password") {
			t.Errorf("--listen %s: exit %d, %q", listen, code, stderr.String())
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("--listen %s: the data directory was created", listen)
		}
	}
}

func TestListenAddr(t *testing.T) {
	for _, c := range []struct {
		listen   string
		password bool
		ok       bool
	}{
		{"127.0.0.1:5433", false, true},
		{"[::1]:5433", false, true},
		{"localhost:5433", false, true},
		{"0.0.0.0:5433", false, false},
		{":5433", false, false},
		{"0.0.0.0:5433", true, true},
		{":5433", true, true},
		{"127.0.0.1", false, false}, // no port
	} {
		if _, err := listenAddr(c.listen, c.password); (err == nil) != c.ok {
			t.Errorf("listenAddr(%q, password=%v): %v", c.listen, c.password, err)
		}
	}
}

// syncBuffer is a bytes.Buffer safe to write from the server's goroutines
// while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveInProcess runs serve on a loopback port until ctx ends, and returns
// its address, its log, and its exit code once it exits.
func serveInProcess(t *testing.T, ctx context.Context, args ...string) (string, *syncBuffer, chan int) {
	t.Helper()
	stderr := &syncBuffer{}
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), io.Discard, stderr)
	}()
	addrRE := regexp.MustCompile(`msg="epochdb: serving" addr=(\S+)`)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], stderr, exited
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", stderr.String())
		}
	}
}

// serve answers on its address until its context ends (SIGINT or SIGTERM
// in main), then stops accepting and closes the store cleanly.
func TestServeStopsCleanly(t *testing.T) {
	dir := t.TempDir()
	ctx, stop := context.WithCancel(context.Background())
	addr, stderr, exited := serveInProcess(t, ctx, "--data-dir", dir)

	// An SSLRequest is answered without the SQL layer: the server is up.
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.Write([]byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f})
	b := make([]byte, 1)
	if _, err := io.ReadFull(nc, b); err != nil || b[0] != 'N' {
		t.Fatalf("SSLRequest: %q %v", b, err)
	}
	nc.Close()

	stop()
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(stderr.String(), "epochdb: stopped") {
		t.Errorf("no clean stop in the log:\n%s", stderr.String())
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("still accepting after the shutdown")
	}
	s, err := txn.Open(dir, txn.Options{})
	if err != nil {
		t.Fatalf("reopening the store: %v", err)
	}
	s.Close()
}

// With --tls-cert and --tls-key, psql's sslmode=require gets TLS; one flag
// without the other is an error.
func TestServeTLS(t *testing.T) {
	psql := requireClient(t, "psql")
	dir := t.TempDir()
	_, certFile, keyFile := testcert.SelfSigned(t, dir)
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--tls-cert", certFile, "--data-dir", filepath.Join(dir, "x")}, io.Discard, &stderr); code == 0 ||
		!strings.Contains(stderr.String(), "--tls-cert and --tls-key go together") {
		t.Fatalf("--tls-cert alone: exit %d, %q", code, stderr.String())
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addr, _, exited := serveInProcess(t, ctx, "--data-dir", filepath.Join(dir, "data"), "--tls-cert", certFile, "--tls-key", keyFile)
	host, port, _ := strings.Cut(addr, ":")
	out, err := exec.Command(psql, "-X", "-c", `\conninfo`, "-c", "SELECT 40 + 2",
		"host="+host+" port="+port+" user=epochdb dbname=epochdb sslmode=verify-full sslrootcert="+certFile).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SSL connection") || !strings.Contains(string(out), "42") {
		t.Fatalf("psql over TLS: %v\n%s", err, out)
	}
	stop()
	<-exited
}
