// Package epochdb is an embeddable PostgreSQL-wire database.
//
// Open runs the whole engine in-process. Serve speaks the PostgreSQL
// protocol on any listener, so a Go test can start a server on 127.0.0.1:0
// and connect with pgx, and the database/sql driver named "epochdb" runs SQL
// in-process with no socket at all:
//
//	db, err := epochdb.Open("", &epochdb.Options{InMemory: true})
//	go db.Serve(listener)
//	rows, err := db.SQL().QueryContext(ctx, "SELECT 1")
package epochdb

import (
	"context"
	"crypto/tls"
	stdsql "database/sql"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/pgwire"
	"github.com/epochdb/epochdb/sql"
	"github.com/epochdb/epochdb/txn"
	"github.com/epochdb/epochdb/wal"
)

// Options configure a database. A nil *Options is a durable database with
// defaults.
type Options struct {
	// InMemory keeps everything in memory, with no files and no fsync; the
	// data is gone after Close. For tests.
	InMemory bool
	// User is the superuser's name. Default "epochdb".
	User string
	// Password, if set, is required of clients of Serve.
	Password string
	// Logger receives the server's logs. Default slog.Default().
	Logger *slog.Logger
	// TLSConfig, if set, lets clients of Serve ask for TLS.
	TLSConfig *tls.Config

	// MemtableSize is the size at which the memtable is flushed to an
	// sstable. Default 64 MiB.
	MemtableSize int64
	// CacheSize bounds the block cache of the sstables. Default 256 MiB.
	CacheSize int64
	// CheckpointInterval flushes the memtable at least this often; zero
	// derives it from MTBF, or takes 5 minutes without one.
	CheckpointInterval time.Duration
	// MTBF is the expected mean time between failures.
	MTBF time.Duration
	// TempDir is where statements whose sorts and hash tables pass
	// work_mem write their temporary files. Default os.TempDir().
	TempDir string
}

// DB is an open database.
type DB struct {
	store  *txn.Store
	engine *sql.Engine
	server *pgwire.Server

	sqlOnce sync.Once
	sqlDB   *stdsql.DB
}

// Open opens (creating if needed) the database in dir, recovering it from
// its log. With InMemory, dir is ignored.
func Open(dir string, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	topts := txn.Options{
		MemtableSize: opts.MemtableSize, CacheSize: opts.CacheSize,
		CheckpointInterval: opts.CheckpointInterval, MTBF: opts.MTBF, Logger: opts.Logger,
	}
	if opts.InMemory {
		dir = "/epochdb"
		topts.FS = vfs.NewMem()
		topts.WAL = wal.Options{NoSync: true}
	}
	if dir == "" {
		return nil, errors.New("epochdb: Open needs a directory (or Options.InMemory)")
	}
	store, err := txn.Open(dir, topts)
	if err != nil {
		return nil, err
	}
	engine, err := sql.NewEngine(store, sql.EngineOptions{Superuser: opts.User, TempDir: opts.TempDir})
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	db := &DB{store: store, engine: engine}
	db.server = &pgwire.Server{
		Engine:    pgwire.Adapt(engine.NewSession),
		User:      opts.User,
		Password:  opts.Password,
		Logger:    opts.Logger,
		TLSConfig: opts.TLSConfig,
	}
	return db, nil
}

// Serve accepts PostgreSQL connections on l until Close. It returns
// pgwire.ErrServerClosed after Close.
func (db *DB) Serve(l net.Listener) error { return db.server.Serve(l) }

// SQL returns a database/sql handle that runs statements in-process.
func (db *DB) SQL() *stdsql.DB {
	db.sqlOnce.Do(func() { db.sqlDB = stdsql.OpenDB(&connector{db: db}) })
	return db.sqlDB
}

// Exec runs a statement in-process, with database/sql's semantics.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (stdsql.Result, error) {
	return db.SQL().ExecContext(ctx, query, args...)
}

// Query runs a query in-process, with database/sql's semantics.
func (db *DB) Query(ctx context.Context, query string, args ...any) (*stdsql.Rows, error) {
	return db.SQL().QueryContext(ctx, query, args...)
}

// Close stops serving, lets in-flight statements finish, and closes the
// store cleanly.
func (db *DB) Close() error {
	serr := db.server.Shutdown(context.Background())
	if db.sqlDB != nil {
		_ = db.sqlDB.Close()
	}
	if err := db.store.Close(); err != nil {
		return err
	}
	return serr
}
