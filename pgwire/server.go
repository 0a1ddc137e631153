package pgwire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"
)

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("pgwire: server closed")

// Server serves the PostgreSQL protocol for an Engine. Set its fields, then
// call Serve; they must not change after that.
type Server struct {
	Engine Engine
	// User is the superuser role every session runs as. Default "epochdb".
	User string
	// Password, if set, must be presented by clients, as AuthMethod says.
	// Without it any user name is trusted as User.
	Password string
	// AuthMethod is what the server asks a client for when Password is set,
	// named as in pg_hba.conf: "scram-sha-256" (the default), or "md5" or
	// "password" (cleartext) for clients that predate SCRAM.
	AuthMethod string
	// Logger receives connection errors and recovered panics. Default
	// slog.Default().
	Logger *slog.Logger
	// MaxMessageSize bounds a client message, in bytes; a longer one closes
	// the connection with 08P01. It bounds the memory a connection can make
	// the server allocate. Default 64 MiB.
	MaxMessageSize int
	// TLSConfig, if set, is offered to clients that ask for TLS (sslmode
	// prefer, require, verify-ca or verify-full); without it they are told
	// 'N' and go on in clear text, or give up.
	TLSConfig *tls.Config

	initOnce sync.Once
	initErr  error
	scram    *scramSecret // the SCRAM verifier of Password

	mu        sync.Mutex // guards the fields below
	closing   bool
	listeners map[net.Listener]struct{}
	conns     map[int32]*conn // by process id
	lastPID   int32
	wg        sync.WaitGroup // one per connection
}

const defaultMaxMessageSize = 64 << 20

func (s *Server) init() error {
	s.initOnce.Do(func() {
		switch {
		case s.Engine == nil:
			s.initErr = errors.New("pgwire: Server.Engine is nil")
		case s.Password == "" && s.AuthMethod != "":
			s.initErr = errors.New("pgwire: Server.AuthMethod set without a Password")
		case s.Password != "":
			switch s.AuthMethod {
			case "", authSCRAM:
				s.scram, s.initErr = newSCRAMSecret(s.Password)
			case authMD5, authCleartext:
			default:
				s.initErr = fmt.Errorf("pgwire: unknown AuthMethod %q (want %q, %q or %q)", s.AuthMethod, authSCRAM, authMD5, authCleartext)
			}
		}
	})
	return s.initErr
}

func (s *Server) user() string {
	if s.User == "" {
		return "epochdb"
	}
	return s.User
}

func (s *Server) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

func (s *Server) maxMessageSize() int {
	if s.MaxMessageSize <= 0 {
		return defaultMaxMessageSize
	}
	return s.MaxMessageSize
}

// Serve accepts connections on l and serves each on its own goroutine until
// l fails or Shutdown is called, when it returns ErrServerClosed. It closes l
// before it returns.
func (s *Server) Serve(l net.Listener) error {
	if err := s.init(); err != nil {
		l.Close()
		return err
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	if s.listeners == nil {
		s.listeners = map[net.Listener]struct{}{}
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		l.Close()
	}()

	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosing() {
				return ErrServerClosed
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Running out of file descriptors, say, passes; keep serving
			// the connections we have and retry, as net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.logger().Error("pgwire: accept failed", "err", err, "retry", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		c, ok := s.track(nc)
		if !ok {
			nc.Close()
			return ErrServerClosed
		}
		go c.serve()
	}
}

// track registers a new connection under a fresh process id and secret.
func (s *Server) track(nc net.Conn) (*conn, bool) {
	var secret [4]byte
	rand.Read(secret[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, false
	}
	if s.conns == nil {
		s.conns = map[int32]*conn{}
	}
	for {
		s.lastPID++
		if s.lastPID <= 0 {
			s.lastPID = 1
		}
		if s.conns[s.lastPID] == nil {
			break
		}
	}
	c := newConn(s, nc, s.lastPID, secret)
	s.conns[c.pid] = c
	s.wg.Add(1)
	return c, true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c.pid)
	s.mu.Unlock()
	s.wg.Done()
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// cancel handles a CancelRequest: it cancels the running statement of the
// connection with that process id, if the secret matches. Like PostgreSQL it
// never answers, so a wrong guess learns nothing.
func (s *Server) cancel(pid uint32, secret []byte) {
	s.mu.Lock()
	c := s.conns[int32(pid)]
	s.mu.Unlock()
	if c == nil || subtle.ConstantTimeCompare(secret, c.secret[:]) != 1 {
		s.logger().Debug("pgwire: cancel request does not match a connection", "pid", pid)
		return
	}
	c.cancelStatement()
}

// Shutdown stops accepting connections and closes every connection once it
// is idle: a running statement finishes and its reply is sent, then the
// client gets FATAL 57P01 and its session is closed. If ctx ends first,
// Shutdown cancels the statements still running, closes their connections
// and returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for l := range s.listeners {
		l.Close()
	}
	for _, c := range s.conns {
		c.interrupt()
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for _, c := range s.conns {
			c.kill()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}
