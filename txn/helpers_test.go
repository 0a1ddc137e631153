package txn

import (
	"flag"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

// memtableFlag runs every test's store with a small memtable, so that the
// same tests cover data that lives in sstables: go test ./txn -memtable 4096.
var memtableFlag = flag.Int64("memtable", 0, "memtable size for the tests' stores (0: the default)")

// inMemoryOnly is a memtable size no test reaches, for tests of how the
// memtable reclaims versions, which flushes would move to files.
const inMemoryOnly = 1 << 40

// newMemStore opens a durable store on a fresh in-memory FS.
func newMemStore(t testing.TB, opts Options) (*Store, *vfs.MemFS) {
	t.Helper()
	if *memtableFlag > 0 && opts.MemtableSize == 0 {
		opts.MemtableSize = *memtableFlag
	}
	fs := vfs.NewMem()
	if opts.FS == nil {
		opts.FS = fs
	}
	// Zero-filled segments cost a copy per sync on MemFS; the wal and
	// crash tests cover them.
	opts.WAL.NoPreallocate = true
	s, err := Open("/db", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, fs
}

func mustCommit(t testing.TB, tx *Tx) {
	t.Helper()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func itoa(i int) []byte { return []byte(strconv.Itoa(i)) }

func atoi(t testing.TB, b []byte) int {
	t.Helper()
	n, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func key(i int) []byte { return []byte("k" + strconv.Itoa(i)) }

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }
