package vfs

import (
	"io"
	"os"
	"path/filepath"
)

// Default is the operating system's file system.
var Default FS = osFS{}

type osFS struct{}

func (osFS) Create(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Open(name string) (File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) OpenReadWrite(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Remove(name string) error { return os.Remove(name) }

func (osFS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }

func (osFS) MkdirAll(dir string, perm os.FileMode) error { return os.MkdirAll(dir, perm) }

func (osFS) List(dir string) ([]string, error) {
	// os.ReadDir sorts by name, which is the order List promises.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

func (osFS) Stat(name string) (os.FileInfo, error) { return os.Stat(name) }

// SyncDir fsyncs the directory itself: on Linux that is what makes a create,
// rename or remove inside it survive a power loss.
func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return err
	}
	return d.Close()
}

func (osFS) PathJoin(elem ...string) string { return filepath.Join(elem...) }

// osFile is an *os.File whose Sync flushes data but not timestamps.
type osFile struct {
	*os.File
}

func (f osFile) Sync() error { return datasync(f.File) }

// Lock takes flock(2) on name (elsewhere than Linux, an exclusive create).
func (osFS) Lock(name string) (io.Closer, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		_ = f.Close()
		return nil, &os.PathError{Op: "lock", Path: name, Err: err}
	}
	return f, nil
}
