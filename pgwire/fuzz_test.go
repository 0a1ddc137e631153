package pgwire

import (
	"cmp"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var captured = flag.String("captured", "", "turn the client traffic captured in this directory (go test ./internal/clienttest -capture DIR) into seeds for FuzzServerMessages")

// FuzzServerMessages feeds arbitrary bytes to a started-up connection and
// checks that the server neither crashes nor panics, and that it hangs up
// once the client has nothing more to say. The seeds are every client
// conversation in testdata/protocol, plus testdata/fuzz/FuzzServerMessages:
// hand-made ones, and capture-<client>-<n>, what the real clients of
// internal/clienttest sent after their StartupMessage, one connection each.
//
//	go test -run '^$' -fuzz FuzzServerMessages ./pgwire
//
// Every try costs a connection, so minimizing a new interesting input for
// the default minute stalls a short run; -fuzzminimizetime 5s keeps it
// fuzzing.
//
// To capture the clients' traffic again, into an empty directory, and turn
// it into seeds (replacing the capture-* ones):
//
//	EPOCHDB_REQUIRE_CLIENTS=1 go test ./internal/clienttest -capture /tmp/cap
//	go test ./pgwire -run TestCapturedSeeds -captured /tmp/cap
func FuzzServerMessages(f *testing.F) {
	files, err := filepath.Glob("testdata/protocol/*.test")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		cases, _ := parseProtocolFile(f, file)
		for _, pc := range cases {
			if strings.HasPrefix(pc.directive, "send") {
				f.Add(frontendBytes(f, pc.input))
			}
		}
	}
	ts := startServer(f, func(s *Server, _ *fakeEngine) {
		// Only errors: protocol violations are the point here, and a long
		// run would otherwise keep millions of log lines.
		s.Logger = slog.New(&logRecorder{level: slog.LevelError})
	})
	logs := ts.Logger.Handler().(*logRecorder)

	f.Fuzz(func(t *testing.T, data []byte) {
		c := connect(t, ts.addr)
		c.write(data)
		c.nc.(*net.TCPConn).CloseWrite()
		c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.Copy(io.Discard, c.nc); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the server did not hang up after %d bytes: %q", len(data), data)
			}
		}
		if p := logs.takeUnexpectedPanics(); len(p) > 0 {
			t.Fatalf("panic on %q:\n%s", data, strings.Join(p, "\n"))
		}
	})
}

// TestCapturedSeeds writes testdata/fuzz/FuzzServerMessages/capture-* from
// the capture files <client>-<n> in the -captured directory. Captures that
// trim to nothing, or to the same bytes as an earlier one, are left out.
func TestCapturedSeeds(t *testing.T) {
	if *captured == "" {
		t.Skip("needs -captured DIR")
	}
	const seedDir = "testdata/fuzz/FuzzServerMessages"
	type capture struct {
		client string
		n      int
		path   string
	}
	entries, err := os.ReadDir(*captured)
	if err != nil {
		t.Fatal(err)
	}
	var caps []capture
	for _, e := range entries {
		i := strings.LastIndexByte(e.Name(), '-')
		n, err := strconv.Atoi(e.Name()[i+1:])
		if i < 0 || err != nil {
			t.Fatalf("%s is not a capture file, <client>-<n>", e.Name())
		}
		caps = append(caps, capture{e.Name()[:i], n, filepath.Join(*captured, e.Name())})
	}
	slices.SortFunc(caps, func(a, b capture) int {
		return cmp.Or(strings.Compare(a.client, b.client), a.n-b.n)
	})

	old, err := filepath.Glob(filepath.Join(seedDir, "capture-*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range old {
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	seeds := map[string]int{}
	for _, c := range caps {
		raw, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		seed := trimCapture(raw)
		if len(seed) == 0 || seen[string(seed)] {
			continue
		}
		seen[string(seed)] = true
		seeds[c.client]++
		name := filepath.Join(seedDir, fmt.Sprintf("capture-%s-%d", c.client, seeds[c.client]))
		if err := os.WriteFile(name, fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", seed), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seeds per client: %v", seeds)
}

// A seed is kept small: each COPY keeps its first maxMessage bytes of data,
// any other message longer than maxMessage (a value of megabytes) is left
// out, and the seed ends before the message that would take it past maxSeed.
const (
	maxSeed    = 64 << 10
	maxMessage = 4 << 10
)

// trimCapture returns the messages of a capture that make its seed. A torn
// last message is left out.
func trimCapture(raw []byte) []byte {
	var seed []byte
	copyLeft := maxMessage
	for len(raw) >= 5 {
		n := 1 + int(binary.BigEndian.Uint32(raw[1:5]))
		if n < 5 || n > len(raw) {
			break
		}
		msg := raw[:n]
		raw = raw[n:]
		if msg[0] == 'd' {
			// COPY data is a stream, so a CopyData cut short is still one.
			data := msg[5:min(n, 5+copyLeft)]
			if len(data) == 0 {
				continue
			}
			copyLeft -= len(data)
			msg = append(binary.BigEndian.AppendUint32([]byte{'d'}, uint32(4+len(data))), data...)
		} else {
			copyLeft = maxMessage
			if n > maxMessage {
				continue
			}
		}
		if len(seed)+len(msg) > maxSeed {
			break
		}
		seed = append(seed, msg...)
	}
	return seed
}
