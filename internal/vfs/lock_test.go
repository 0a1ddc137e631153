package vfs

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestLock(t *testing.T) {
	for name, fs := range map[string]FS{"os": Default, "mem": NewMem()} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := fs.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "LOCK")
			l, err := fs.Lock(path)
			if err != nil {
				t.Fatal(err)
			}
			// flock belongs to an open file description, so a second
			// Lock conflicts even within one process.
			if _, err := fs.Lock(path); !errors.Is(err, ErrLocked) {
				t.Fatalf("second lock: %v, want ErrLocked", err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			l2, err := fs.Lock(path)
			if err != nil {
				t.Fatalf("lock after release: %v", err)
			}
			_ = l2.Close()
		})
	}
}
