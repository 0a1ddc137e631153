// Command epochdb runs and inspects an epochdb database.
//
//	epochdb wal dump --data-dir DIR   print every WAL record and whether it counts
//
// The server (epochdb serve) arrives with the pgwire issue (#3).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/txn"
	"github.com/epochdb/epochdb/wal"
)

const usage = `usage:
  epochdb wal dump [--data-dir DIR]   print every WAL record and whether it counts
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) >= 2 && args[0] == "wal" && args[1] == "dump" {
		return walDump(args[2:], stdout, stderr)
	}
	fmt.Fprint(stderr, usage)
	return 2
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
