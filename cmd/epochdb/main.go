// Command epochdb runs and inspects an epochdb database.
//
//	epochdb serve [flags]              serve the PostgreSQL protocol
//	epochdb wal dump --data-dir DIR    print every WAL record and whether it counts
//	epochdb sstable dump FILE          print every entry of an sstable and whether it counts
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/sstable"
	"github.com/epochdb/epochdb/txn"
	"github.com/epochdb/epochdb/wal"
)

const usage = `usage:
  epochdb serve [flags]               serve the PostgreSQL protocol (see epochdb serve -h)
  epochdb wal dump [--data-dir DIR]   print every WAL record and whether it counts
  epochdb sstable dump [--data-dir DIR] FILE
                                      print every entry of an sstable and whether it counts
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
	case len(args) >= 2 && args[0] == "sstable" && args[1] == "dump":
		return sstableDump(args[2:], stdout, stderr)
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
	cfg.memtable, cfg.cache, cfg.memoryLimit = 64<<20, 256<<20, -1
	fs.Var((*byteSize)(&cfg.memtable), "memtable-size", "the memtable size at which it is flushed to an sstable (e.g. 64MiB)")
	fs.Var((*byteSize)(&cfg.cache), "cache-size", "the block cache shared by all sstables (e.g. 256MiB)")
	fs.DurationVar(&cfg.checkpointInterval, "checkpoint-interval", 0,
		"flush the memtable at least this often; 0 derives it from --mtbf (see txn/checkpoint.go), else 5m")
	fs.Var((*byteSize)(&cfg.memoryLimit), "memory-limit",
		"a soft limit on the server's memory, which Go's collector works to keep (default: the cache, three memtables and 256MiB; "+
			"0 for none; GOMEMLIMIT, if set, wins)")
	fs.StringVar(&cfg.pprof, "pprof", "", "serve Go's runtime profiles (net/http/pprof) on this loopback address, e.g. 127.0.0.1:6060")
	fs.DurationVar(&cfg.mtbf, "mtbf", 0, "the expected mean time between failures (e.g. 720h), from which the checkpoint interval is computed")
	fs.StringVar(&cfg.tempDir, "temp-dir", "", "where statements whose sorts and hash tables pass work_mem write temporary files (default the system's)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if cfg.password == "" {
		cfg.password = os.Getenv("EPOCHDB_PASSWORD")
	}
	if cfg.memoryLimit < 0 {
		cfg.memoryLimit = cfg.cache + 3*cfg.memtable + 256<<20
	}
	if err := serve(ctx, cfg, slog.New(slog.NewTextHandler(stderr, nil))); err != nil {
		fmt.Fprintf(stderr, "epochdb: %v\n", err)
		return 1
	}
	return 0
}

// byteSize is a flag of bytes with an optional unit: 512, 64kB, 64MiB, 1GB.
// The units are powers of 1024, as PostgreSQL reads memory settings.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(v string) error {
	num := strings.TrimRightFunc(v, func(r rune) bool { return !unicode.IsDigit(r) })
	unit := strings.ToLower(strings.TrimSpace(v[len(num):]))
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a size", v)
	}
	shift, ok := map[string]uint{"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20, "g": 30, "gb": 30, "gib": 30}[unit]
	if !ok {
		return fmt.Errorf("%q: unknown unit %q (use kB, MB or GB)", v, unit)
	}
	*b = byteSize(n << shift)
	return nil
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

func sstableDump(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sstable dump", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", "", "the database directory whose manifest and log resolve the file's provisional versions (default: the file's directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, "usage: epochdb sstable dump [--data-dir DIR] FILE\n")
		return 2
	}
	file := fs.Arg(0)
	if *dataDir == "" {
		*dataDir = filepath.Dir(file)
	}
	fate, err := fileFates(*dataDir)
	if err != nil {
		fmt.Fprintf(stderr, "epochdb: %v\n", err)
		return 1
	}
	if err := sstable.Dump(stdout, vfs.Default, file, fate); err != nil {
		fmt.Fprintf(stderr, "epochdb: %v\n", err)
		return 1
	}
	return 0
}

// fileFates says what an sstable entry means, through the one decision
// that counts: its writer's commit, which the manifest records for files
// and the log for what the manifest does not record yet.
func fileFates(dataDir string) (func(*sstable.Entry) string, error) {
	st, err := sstable.ReadManifest(vfs.Default, dataDir)
	if err != nil {
		return nil, fmt.Errorf("reading the manifest of %s: %w", dataDir, err)
	}
	logFates, _, err := wal.Fates(vfs.Default, txn.WALDir(vfs.Default, dataDir))
	if err != nil {
		return nil, fmt.Errorf("reading the log of %s: %w", dataDir, err)
	}
	return func(e *sstable.Entry) string {
		switch {
		case e.Txn == 0:
			return "counts: committed"
		case e.Kind == sstable.KindLock:
			return "row lock: holds only while its transaction runs"
		}
		if _, ok := st.Commits[e.Txn]; ok {
			return "counts: its writer committed (manifest)"
		}
		switch logFates[e.Txn] {
		case wal.Committed:
			return "counts: its writer committed (log)"
		case wal.RolledBack:
			return "ignored: rolled back"
		}
		return "ignored unless its writer commits: in progress, or ended without a commit record"
	}, nil
}
