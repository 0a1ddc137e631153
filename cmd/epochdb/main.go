// Command epochdb runs and inspects an epochdb database.
//
//	epochdb serve [flags]              serve the PostgreSQL protocol
//	epochdb wal dump --data-dir DIR    print every WAL record and whether it counts
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/txn"
	"github.com/epochdb/epochdb/wal"
)

const usage = `usage:
  epochdb serve [flags]               serve the PostgreSQL protocol (see epochdb serve -h)
  epochdb wal dump [--data-dir DIR]   print every WAL record and whether it counts
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal starts a graceful shutdown; a second one kills.
	context.AfterFunc(ctx, stop)
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) >= 1 && args[0] == "serve":
		return serveCmd(ctx, args[1:], stderr)
	case len(args) >= 2 && args[0] == "wal" && args[1] == "dump":
		return walDump(args[2:], stdout, stderr)
	}
	fmt.Fprint(stderr, usage)
	return 2
}

func serveCmd(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg serveConfig
	fs.StringVar(&cfg.dataDir, "data-dir", "./epochdb-data", "the database directory")
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:5433", "the TCP address to serve on; without a password it must be a loopback address")
	fs.StringVar(&cfg.password, "password", "", "the superuser's password (default $EPOCHDB_PASSWORD); without one, every local client is trusted")
	fs.StringVar(&cfg.user, "user", "epochdb", "the superuser role's name")
	fs.StringVar(&cfg.auth, "auth", "scram-sha-256", "what clients must present with a password: scram-sha-256, md5, or password (cleartext)")
	fs.StringVar(&cfg.tlsCert, "tls-cert", "", "a PEM certificate (chain) to offer TLS with; needs --tls-key")
	fs.StringVar(&cfg.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	fs.StringVar(&cfg.tempDir, "temp-dir", "", "where statements whose sorts and hash tables pass work_mem write temporary files (default the system's)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if cfg.password == "" {
		cfg.password = os.Getenv("EPOCHDB_PASSWORD")
	}
	if err := serve(ctx, cfg, slog.New(slog.NewTextHandler(stderr, nil))); err != nil {
		fmt.Fprintf(stderr, "epochdb: %v\n", err)
		return 1
	}
	return 0
}

func walDump(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wal dump", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", "./epochdb-data", "the database directory")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := wal.Dump(stdout, vfs.Default, txn.WALDir(vfs.Default, *dataDir)); err != nil {
		fmt.Fprintf(stderr, "epochdb: %v\n", err)
		return 1
	}
	return 0
}
