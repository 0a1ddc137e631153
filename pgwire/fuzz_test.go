package pgwire

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzServerMessages feeds arbitrary bytes to a started-up connection and
// checks that the server neither crashes nor panics, and that it hangs up
// once the client has nothing more to say. The seeds are every client
// conversation in testdata/protocol, plus testdata/fuzz/FuzzServerMessages.
//
//	go test -fuzz FuzzServerMessages ./pgwire
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
