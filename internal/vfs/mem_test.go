package vfs_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

const seeds = 500

func crash(fs *vfs.MemFS) *vfs.MemFS {
	return fs.CrashClone(vfs.CrashOptions{})
}

func crashKeep(fs *vfs.MemFS, seed uint64) *vfs.MemFS {
	return fs.CrashClone(vfs.CrashOptions{Rand: rand.New(rand.NewPCG(seed, seed)), KeepUnsynced: true})
}

// newMem returns a MemFS with the directory /db.
func newMem(t *testing.T) *vfs.MemFS {
	fs := vfs.NewMem()
	must(t, fs.MkdirAll("/db", 0o755))
	return fs
}

// create creates name holding synced followed by unsynced, and syncs the
// directory if syncDir is set.
func create(t *testing.T, fs vfs.FS, name, synced, unsynced string, syncDir bool) vfs.File {
	t.Helper()
	f, err := fs.Create(name)
	must(t, err)
	mustWrite(t, f, synced)
	must(t, f.Sync())
	mustWrite(t, f, unsynced)
	if syncDir {
		must(t, fs.SyncDir("/db"))
	}
	return f
}

// contents returns the contents of name, and whether it exists.
func contents(t *testing.T, fs vfs.FS, name string) (string, bool) {
	t.Helper()
	f, err := fs.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	must(t, err)
	defer f.Close()
	b, err := io.ReadAll(f)
	must(t, err)
	return string(b), true
}

func expectContents(t *testing.T, fs vfs.FS, name, want string) {
	t.Helper()
	got, ok := contents(t, fs, name)
	if !ok {
		t.Fatalf("%s does not exist, want %q", name, want)
	}
	if got != want {
		t.Fatalf("%s = %q, want %q", name, got, want)
	}
}

func expectMissing(t *testing.T, fs vfs.FS, name string) {
	t.Helper()
	if got, ok := contents(t, fs, name); ok {
		t.Fatalf("%s exists holding %q, want it gone", name, got)
	}
}

func TestMemCrashSynced(t *testing.T) {
	fs := newMem(t)
	create(t, fs, "/db/a", "synced", "", true)
	expectContents(t, crash(fs), "/db/a", "synced")
	for seed := range uint64(seeds) {
		expectContents(t, crashKeep(fs, seed), "/db/a", "synced")
	}
}

func TestMemCrashDropsUnsynced(t *testing.T) {
	fs := newMem(t)
	create(t, fs, "/db/a", "abc", "def", true)
	expectContents(t, fs, "/db/a", "abcdef")
	expectContents(t, crash(fs), "/db/a", "abc")
}

// TestMemCrashKeepsPrefix checks the model the WAL's torn-tail detection
// relies on: unsynced appends survive as a prefix, never with a hole.
func TestMemCrashKeepsPrefix(t *testing.T) {
	fs := newMem(t)
	f := create(t, fs, "/db/a", "abc", "def", true)
	mustWrite(t, f, "gh")
	seen := make(map[int]bool)
	for seed := range uint64(seeds) {
		got, ok := contents(t, crashKeep(fs, seed), "/db/a")
		if !ok || len(got) < 3 || !strings.HasPrefix("abcdefgh", got) {
			t.Fatalf("seed %d: %q (exists %v), want a prefix of %q at least %q long", seed, got, ok, "abcdefgh", "abc")
		}
		seen[len(got)] = true
	}
	for n := 3; n <= 8; n++ {
		if !seen[n] {
			t.Errorf("no seed kept %d bytes", n)
		}
	}
}

func TestMemCrashTruncated(t *testing.T) {
	fs := newMem(t)
	f := create(t, fs, "/db/a", "abcdef", "", true)
	must(t, f.Truncate(2))
	expectContents(t, fs, "/db/a", "ab")
	expectContents(t, crash(fs), "/db/a", "abcdef")
	seen := make(map[string]bool)
	for seed := range uint64(seeds) {
		got, _ := contents(t, crashKeep(fs, seed), "/db/a")
		if got != "abcdef" && got != "ab" {
			t.Fatalf("seed %d: %q, want the durable or the current contents", seed, got)
		}
		seen[got] = true
	}
	if len(seen) != 2 {
		t.Errorf("seeds kept only %v", seen)
	}

	// A Sync after the truncation makes the new contents the durable ones.
	must(t, f.Sync())
	expectContents(t, crash(fs), "/db/a", "ab")
}

// TestMemCrashOverwrite checks that changing synced bytes in place, by an
// overwrite or by truncating and appending, leaves the durable contents alone.
func TestMemCrashOverwrite(t *testing.T) {
	fs := newMem(t)
	create(t, fs, "/db/a", "abcdef", "", true)
	f, err := fs.OpenReadWrite("/db/a")
	must(t, err)
	mustWrite(t, f, "XY")
	expectContents(t, fs, "/db/a", "XYcdef")
	expectContents(t, crash(fs), "/db/a", "abcdef")

	create(t, fs, "/db/b", "abcdef", "", true)
	g, err := fs.Create("/db/b")
	must(t, err)
	mustWrite(t, g, "zz")
	expectContents(t, fs, "/db/b", "zz")
	expectContents(t, crash(fs), "/db/b", "abcdef")
}

// WriteAt writes where it is told, past the end too, without moving the
// offset that Write continues from; unsynced, it is lost in a crash.
func TestMemWriteAt(t *testing.T) {
	fs := newMem(t)
	f := create(t, fs, "/db/a", "abc", "", true)
	_, err := f.WriteAt([]byte("XYZ"), 5)
	must(t, err)
	expectContents(t, fs, "/db/a", "abc\x00\x00XYZ")
	mustWrite(t, f, "d")
	expectContents(t, fs, "/db/a", "abcd\x00XYZ")
	expectContents(t, crash(fs), "/db/a", "abc")
	must(t, f.Sync())
	expectContents(t, crash(fs), "/db/a", "abcd\x00XYZ")
	if _, err := f.WriteAt([]byte("q"), -1); err == nil {
		t.Fatal("WriteAt at a negative offset succeeded")
	}
}

func TestMemCrashCreate(t *testing.T) {
	fs := newMem(t)
	create(t, fs, "/db/unsynced", "data", "", false)
	create(t, fs, "/tmp", "", "", false)
	expectMissing(t, crash(fs), "/db/unsynced")

	must(t, fs.SyncDir("/db"))
	c := crash(fs)
	expectContents(t, c, "/db/unsynced", "data")
	expectMissing(t, c, "/tmp")

	// With KeepUnsynced the create may survive, and its data follows the
	// rule for data.
	fs = newMem(t)
	create(t, fs, "/db/a", "ab", "cd", false)
	seen := make(map[string]bool)
	for seed := range uint64(seeds) {
		got, ok := contents(t, crashKeep(fs, seed), "/db/a")
		if ok && got != "ab" && got != "abc" && got != "abcd" {
			t.Fatalf("seed %d: %q", seed, got)
		}
		seen[fmt.Sprint(ok, got)] = true
	}
	if len(seen) != 4 {
		t.Errorf("seeds kept only %v", seen)
	}
}

// TestMemCreateTruncates checks that Create of an existing file changes its
// contents, not the directory: the file cannot vanish in a crash.
func TestMemCreateTruncates(t *testing.T) {
	fs := newMem(t)
	create(t, fs, "/db/a", "old", "", true)
	create(t, fs, "/db/a", "new", "", false)
	expectContents(t, crash(fs), "/db/a", "new")
}

func TestMemCrashRemove(t *testing.T) {
	fs := newMem(t)
	create(t, fs, "/db/a", "data", "", true)
	must(t, fs.Remove("/db/a"))
	expectMissing(t, fs, "/db/a")
	expectContents(t, crash(fs), "/db/a", "data")

	must(t, fs.SyncDir("/db"))
	expectMissing(t, crash(fs), "/db/a")
}

func TestMemCrashRename(t *testing.T) {
	fs := newMem(t)
	create(t, fs, "/db/a", "data", "", true)
	must(t, fs.Rename("/db/a", "/db/b"))
	c := crash(fs)
	expectContents(t, c, "/db/a", "data")
	expectMissing(t, c, "/db/b")

	must(t, fs.SyncDir("/db"))
	c = crash(fs)
	expectMissing(t, c, "/db/a")
	expectContents(t, c, "/db/b", "data")
}

// TestMemCrashOpsInOrder checks that a crash undoes the operations on one
// name as a suffix: the new /db/a cannot survive without the rename that
// made room for it, or the old file would be lost from both names.
func TestMemCrashOpsInOrder(t *testing.T) {
	fs := newMem(t)
	create(t, fs, "/db/a", "old", "", true)
	must(t, fs.Rename("/db/a", "/db/b"))
	create(t, fs, "/db/a", "new", "", false)
	for seed := range uint64(seeds) {
		c := crashKeep(fs, seed)
		a, _ := contents(t, c, "/db/a")
		b, _ := contents(t, c, "/db/b")
		if a != "old" && b != "old" {
			t.Fatalf("seed %d: lost the old file: /db/a = %q, /db/b = %q", seed, a, b)
		}
	}
}

// TestMemCrashReplace is the manifest's pointer swap: write a new file, sync
// it, rename it over the old one. Whatever survives, CURRENT is whole.
func TestMemCrashReplace(t *testing.T) {
	fs := newMem(t)
	create(t, fs, "/db/CURRENT", "old", "", true)
	create(t, fs, "/db/CURRENT.tmp", "new", "", false)
	must(t, fs.Rename("/db/CURRENT.tmp", "/db/CURRENT"))
	expectContents(t, crash(fs), "/db/CURRENT", "old")
	seen := make(map[string]bool)
	for seed := range uint64(seeds) {
		got, _ := contents(t, crashKeep(fs, seed), "/db/CURRENT")
		if got != "old" && got != "new" {
			t.Fatalf("seed %d: CURRENT = %q", seed, got)
		}
		seen[got] = true
	}
	if len(seen) != 2 {
		t.Errorf("seeds kept only %v", seen)
	}

	must(t, fs.SyncDir("/db"))
	c := crash(fs)
	expectContents(t, c, "/db/CURRENT", "new")
	expectMissing(t, c, "/db/CURRENT.tmp")
}

// TestMemCrashRenameBetweenDirs checks that a rename between directories
// needs both synced, and that it is all or nothing.
func TestMemCrashRenameBetweenDirs(t *testing.T) {
	fs := newMem(t)
	must(t, fs.MkdirAll("/db/archive", 0o755))
	create(t, fs, "/db/a", "data", "", true)
	must(t, fs.Rename("/db/a", "/db/archive/a"))
	must(t, fs.SyncDir("/db/archive"))
	c := crash(fs)
	expectContents(t, c, "/db/a", "data")
	expectMissing(t, c, "/db/archive/a")
	for seed := range uint64(seeds) {
		c := crashKeep(fs, seed)
		_, src := contents(t, c, "/db/a")
		_, dst := contents(t, c, "/db/archive/a")
		if src == dst {
			t.Fatalf("seed %d: /db/a exists %v, /db/archive/a exists %v", seed, src, dst)
		}
	}

	must(t, fs.SyncDir("/db"))
	c = crash(fs)
	expectMissing(t, c, "/db/a")
	expectContents(t, c, "/db/archive/a", "data")
}

// TestMemCrashDependentOps checks that an operation made durable by one
// directory's sync carries the earlier operations on the same name with it.
// Otherwise the rename below, made durable late, would bring back a file
// that was removed after it.
func TestMemCrashDependentOps(t *testing.T) {
	fs := newMem(t)
	must(t, fs.MkdirAll("/db/archive", 0o755))
	create(t, fs, "/db/a", "data", "", true)
	must(t, fs.Rename("/db/a", "/db/archive/a"))
	must(t, fs.Remove("/db/archive/a"))
	must(t, fs.SyncDir("/db/archive"))
	c := crash(fs)
	expectMissing(t, c, "/db/a")
	expectMissing(t, c, "/db/archive/a")
	must(t, fs.SyncDir("/db"))
	c = crash(fs)
	expectMissing(t, c, "/db/a")
	expectMissing(t, c, "/db/archive/a")
}

func TestMemCloneIndependent(t *testing.T) {
	fs := newMem(t)
	f := create(t, fs, "/db/a", "abc", "", true)
	c := crash(fs)
	g, err := c.OpenReadWrite("/db/a")
	must(t, err)
	must(t, g.Truncate(1))
	must(t, g.Sync())
	g2, err := c.Create("/db/b")
	must(t, err)
	mustWrite(t, g2, "clone")

	mustWrite(t, f, "def")
	must(t, f.Sync())

	expectContents(t, fs, "/db/a", "abcdef")
	expectMissing(t, fs, "/db/b")
	expectContents(t, c, "/db/a", "a")
	expectContents(t, c, "/db/b", "clone")

	// What a crash left is durable: crashing the clone again changes
	// nothing that was there.
	expectContents(t, crash(c), "/db/a", "a")
}

// TestMemCrashWhileWriting crashes while other goroutines keep writing, as
// the crashed process would. Run it with -race.
func TestMemCrashWhileWriting(t *testing.T) {
	fs := newMem(t)
	const writers, writes = 4, 200
	var all strings.Builder
	for i := range writes {
		fmt.Fprintf(&all, "%04d", i)
	}
	var wg sync.WaitGroup
	for w := range writers {
		f := create(t, fs, fmt.Sprintf("/db/%d", w), "", "", true)
		wg.Go(func() {
			for i := range writes {
				if _, err := fmt.Fprintf(f, "%04d", i); err != nil {
					t.Error(err)
					return
				}
				if i%10 == 0 {
					if err := f.Sync(); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	for seed := range uint64(50) {
		c := crashKeep(fs, seed)
		for w := range writers {
			got, ok := contents(t, c, fmt.Sprintf("/db/%d", w))
			if !ok || !strings.HasPrefix(all.String(), got) {
				t.Fatalf("writer %d: %q (exists %v) is not a prefix of what it wrote", w, got, ok)
			}
		}
	}
	wg.Wait()
}

func TestMemErrors(t *testing.T) {
	fs := newMem(t)
	_, err := fs.Create("/nodir/a")
	var pe *os.PathError
	if !errors.As(err, &pe) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Create in a missing directory: err = %#v, want an *os.PathError wrapping ErrNotExist", err)
	}
	if _, err := fs.Open("/db/missing"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open of a missing file: err = %v", err)
	}
	create(t, fs, "/db/a", "", "", true)
	if err := fs.MkdirAll("/db/a/b", 0o755); err == nil {
		t.Fatal("MkdirAll through a file succeeded")
	}
	if err := fs.Remove("/db"); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("Remove of a directory: err = %v, want ErrUnsupported", err)
	}
}
