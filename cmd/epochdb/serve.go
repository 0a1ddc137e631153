package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/epochdb/epochdb/pgwire"
	"github.com/epochdb/epochdb/txn"
)

type serveConfig struct {
	dataDir  string
	listen   string
	password string
	user     string
	auth     string // pgwire.Server.AuthMethod, used with a password
	// tlsCert and tlsKey are PEM files; with both, clients may ask for TLS.
	tlsCert, tlsKey string
	// memoryLimit is the soft limit for Go's collector, 0 for none.
	memoryLimit int64
	// pprof, if set, is a loopback address to serve runtime profiles on.
	pprof string
	// The storage engine's shape.
	memtable, cache          int64
	checkpointInterval, mtbf time.Duration
	// tempDir holds the temporary files of statements past work_mem.
	tempDir string
}

// shutdownTimeout bounds how long a shutdown waits for running statements
// before it cancels them.
const shutdownTimeout = 30 * time.Second

// serve runs the server until ctx ends, then shuts down in order: stop
// accepting, let running statements (and their commits) finish, close the
// sessions, and only then close the store, which checkpoints the WAL.
func serve(ctx context.Context, cfg serveConfig, log *slog.Logger) error {
	addr, err := listenAddr(cfg.listen, cfg.password != "")
	if err != nil {
		return err
	}
	var tlsConfig *tls.Config
	switch {
	case cfg.tlsCert != "" && cfg.tlsKey != "":
		cert, err := tls.LoadX509KeyPair(cfg.tlsCert, cfg.tlsKey)
		if err != nil {
			return fmt.Errorf("TLS certificate: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	case cfg.tlsCert != "" || cfg.tlsKey != "":
		return errors.New("--tls-cert and --tls-key go together")
	}
	// The engine's memory is bounded (the memtables, the block cache, the
	// sessions' work_mem), but Go's collector lets the heap grow to twice
	// what is live between collections; the soft limit makes it collect
	// sooner instead, and hand freed memory back to the system.
	if cfg.memoryLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(cfg.memoryLimit)
		log.Info("epochdb: memory limit", "bytes", cfg.memoryLimit)
	}
	// A goroutine in a blocking system call keeps its P until the runtime's
	// monitor takes it back, tens of microseconds later, and the log's
	// fdatasync (120-200 µs on this project's test disk) does that at every
	// group commit. One P more than the CPUs lets the other sessions run
	// meanwhile: pgbench -N -c 8 on 2 CPUs went from 7240 to 8412 tps
	// (medians of 3 alternating runs), select-only stayed even.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
		log.Info("epochdb: scheduler", "gomaxprocs", runtime.GOMAXPROCS(0))
	}
	if cfg.pprof != "" {
		if err := servePprof(cfg.pprof, log); err != nil {
			return err
		}
	}
	// Bind first: a second server on a busy port must fail before it
	// touches the data directory.
	l, err := net.ListenTCP("tcp", addr)
	if err != nil {
		return err
	}
	store, err := txn.Open(cfg.dataDir, txn.Options{
		MemtableSize: cfg.memtable, CacheSize: cfg.cache,
		CheckpointInterval: cfg.checkpointInterval, MTBF: cfg.mtbf, Logger: log,
	})
	if err != nil {
		l.Close()
		return fmt.Errorf("open %s: %w", cfg.dataDir, err)
	}
	engine, err := openEngine(store, cfg.user, cfg.tempDir)
	if err != nil {
		l.Close()
		store.Close()
		return err
	}
	srv := &pgwire.Server{Engine: engine, User: cfg.user, Password: cfg.password, Logger: log, TLSConfig: tlsConfig}
	auth := "trust"
	if cfg.password != "" {
		srv.AuthMethod, auth = cfg.auth, cfg.auth
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	log.Info("epochdb: serving", "addr", l.Addr().String(), "data-dir", cfg.dataDir, "user", cfg.user, "auth", auth, "tls", tlsConfig != nil)

	select {
	case <-ctx.Done():
		log.Info("epochdb: shutting down")
	case err = <-served:
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("epochdb: statements still running were cancelled", "err", err)
	}
	if cerr := store.Close(); err == nil || errors.Is(err, pgwire.ErrServerClosed) {
		err = cerr
	}
	if err == nil {
		log.Info("epochdb: stopped")
	}
	return err
}

// listenAddr resolves --listen. Without a password every client is trusted
// as the superuser, so only a loopback address is allowed then: on any
// other, anyone who can reach the port would own the database.
func listenAddr(listen string, password bool) (*net.TCPAddr, error) {
	addr, err := net.ResolveTCPAddr("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", listen, err)
	}
	if !password && !addr.IP.IsLoopback() {
		return nil, fmt.Errorf("refusing to listen on %s without a password: every client would be trusted as the superuser, "+
			"and this address is reachable from other machines; set --password (or EPOCHDB_PASSWORD), "+
			"or listen on a loopback address such as 127.0.0.1:5433", listen)
	}
	return addr, nil
}

// servePprof serves net/http/pprof's profiles on addr, which must be a
// loopback address: they show the server's memory and goroutines.
func servePprof(addr string, log *slog.Logger) error {
	a, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil || !a.IP.IsLoopback() {
		return fmt.Errorf("--pprof %s: must be a loopback address", addr)
	}
	l, err := net.ListenTCP("tcp", a)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() { _ = http.Serve(l, mux) }()
	log.Info("epochdb: serving runtime profiles", "addr", l.Addr().String())
	return nil
}
