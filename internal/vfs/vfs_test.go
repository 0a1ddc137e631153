package vfs_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

// TestFS runs the same behaviour checks against every implementation, so that
// a test written against MemFS means the same thing on the real disk.
func TestFS(t *testing.T) {
	for _, tc := range []struct {
		name string
		fs   func(t *testing.T) (vfs.FS, string)
	}{
		{"os", func(t *testing.T) (vfs.FS, string) { return vfs.Default, t.TempDir() }},
		{"mem", func(t *testing.T) (vfs.FS, string) { return vfs.NewMem(), "/db" }},
		{"faulty", func(t *testing.T) (vfs.FS, string) { return vfs.NewFaulty(vfs.NewMem()), "db" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, root := tc.fs(t)
			testFS(t, fs, root)
		})
	}
}

func testFS(t *testing.T, fs vfs.FS, root string) {
	dir := fs.PathJoin(root, "wal")
	if want := filepath.Join(root, "wal"); dir != want {
		t.Fatalf("PathJoin = %q, want %q", dir, want)
	}
	a := fs.PathJoin(dir, "a")
	if _, err := fs.Create(a); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Create in a missing directory: err = %v, want ErrNotExist", err)
	}
	must(t, fs.MkdirAll(dir, 0o755))
	must(t, fs.MkdirAll(dir, 0o755))

	f, err := fs.Create(a)
	must(t, err)
	mustWrite(t, f, "hello ")
	mustWrite(t, f, "world")
	must(t, f.Sync())
	fi, err := f.Stat()
	must(t, err)
	if fi.Name() != "a" || fi.Size() != 11 || fi.IsDir() {
		t.Fatalf("File.Stat = %q size %d dir %v, want \"a\" size 11 file", fi.Name(), fi.Size(), fi.IsDir())
	}
	must(t, f.Close())
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("second Close: err = %v, want ErrClosed", err)
	}

	r, err := fs.Open(a)
	must(t, err)
	if got, err := io.ReadAll(r); err != nil || string(got) != "hello world" {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
	buf := make([]byte, 5)
	if n, err := r.ReadAt(buf, 6); n != 5 || err != nil && err != io.EOF || string(buf) != "world" {
		t.Fatalf("ReadAt(6) = %d %q, %v", n, buf, err)
	}
	if n, err := r.ReadAt(buf, 8); n != 3 || err != io.EOF {
		t.Fatalf("ReadAt past the end = %d, %v; want 3, EOF", n, err)
	}
	if _, err := r.Write([]byte("x")); err == nil {
		t.Fatal("Write on a file opened read-only succeeded")
	}
	must(t, r.Close())

	rw, err := fs.OpenReadWrite(a)
	must(t, err)
	if n, err := rw.Read(buf); n != 5 || err != nil || string(buf) != "hello" {
		t.Fatalf("OpenReadWrite then Read = %d %q, %v; want the start of the file", n, buf, err)
	}
	must(t, rw.Truncate(5))
	must(t, rw.Sync())
	must(t, rw.Close())
	expectSize(t, fs, a, 5)

	// Create truncates an existing file.
	f, err = fs.Create(a)
	must(t, err)
	must(t, f.Close())
	expectSize(t, fs, a, 0)

	for _, name := range []string{"c", "b"} {
		f, err := fs.Create(fs.PathJoin(dir, name))
		must(t, err)
		must(t, f.Close())
	}
	must(t, fs.MkdirAll(fs.PathJoin(dir, "sub"), 0o755))
	expectList(t, fs, dir, "a", "b", "c", "sub")

	must(t, fs.Rename(a, fs.PathJoin(dir, "d")))
	must(t, fs.Remove(fs.PathJoin(dir, "b")))
	must(t, fs.SyncDir(dir))
	expectList(t, fs, dir, "c", "d", "sub")

	sub, err := fs.Stat(fs.PathJoin(dir, "sub"))
	must(t, err)
	if !sub.IsDir() {
		t.Fatal("Stat of a directory: IsDir = false")
	}
	for name, err := range map[string]error{
		"Open":    open(fs, a),
		"Stat":    stat(fs, a),
		"Remove":  fs.Remove(a),
		"Rename":  fs.Rename(a, fs.PathJoin(dir, "e")),
		"List":    list(fs, a),
		"SyncDir": fs.SyncDir(fs.PathJoin(root, "missing")),
	} {
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s of a missing name: err = %v, want ErrNotExist", name, err)
		}
	}
}

func open(fs vfs.FS, name string) error {
	f, err := fs.Open(name)
	if err == nil {
		f.Close()
	}
	return err
}

func stat(fs vfs.FS, name string) error {
	_, err := fs.Stat(name)
	return err
}

func list(fs vfs.FS, dir string) error {
	_, err := fs.List(dir)
	return err
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, f vfs.File, s string) {
	t.Helper()
	if n, err := f.Write([]byte(s)); n != len(s) || err != nil {
		t.Fatalf("Write(%q) = %d, %v", s, n, err)
	}
}

func expectSize(t *testing.T, fs vfs.FS, name string, want int64) {
	t.Helper()
	fi, err := fs.Stat(name)
	must(t, err)
	if fi.Size() != want {
		t.Fatalf("size of %s = %d, want %d", name, fi.Size(), want)
	}
}

func expectList(t *testing.T, fs vfs.FS, dir string, want ...string) {
	t.Helper()
	got, err := fs.List(dir)
	must(t, err)
	if !slices.Equal(got, want) {
		t.Fatalf("List(%s) = %q, want %q", dir, got, want)
	}
}
