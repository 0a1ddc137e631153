package vfs

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync/atomic"
)

// ErrInjected is the error every operation that Faulty fails wraps.
var ErrInjected = errors.New("vfs: injected fault")

// Op is a kind of operation that Faulty can fail.
type Op int

const (
	OpCreate  Op = iota // FS.Create
	OpWrite             // File.Write and File.WriteAt
	OpSync              // File.Sync
	OpSyncDir           // FS.SyncDir
	OpRemove            // FS.Remove
	OpRename            // FS.Rename
	numOps
)

var opNames = [numOps]string{"create", "write", "sync", "syncdir", "remove", "rename"}

func (op Op) String() string {
	if op < 0 || op >= numOps {
		return fmt.Sprintf("Op(%d)", int(op))
	}
	return opNames[op]
}

// Faulty wraps an FS and fails chosen kinds of operations with ErrInjected,
// so that tests can drive the error paths: above all the fail-stop after a
// failed sync.
//
// A failed operation does nothing to the wrapped FS. A failed Write writes no
// byte. A failed Sync syncs nothing, so on a MemFS the unsynced writes are
// lost at the next crash, which is one of the things a real fdatasync failure
// can do. Operations that no Op names (Open, Truncate, ...) pass through.
//
// A Faulty is safe for concurrent use; its counters are atomic.
type Faulty struct {
	fs     FS
	faults [numOps]fault
}

// fault counts the attempts at one kind of operation and says from which
// attempt on they fail.
type fault struct {
	attempts atomic.Int64
	// failFrom is the number (counting from 1) of the first attempt that
	// fails; math.MaxInt64 means none does.
	failFrom atomic.Int64
}

// NewFaulty returns a Faulty that wraps fs and, until told otherwise, fails
// nothing.
func NewFaulty(fs FS) *Faulty {
	f := &Faulty{fs: fs}
	for i := range f.faults {
		f.faults[i].failFrom.Store(math.MaxInt64)
	}
	return f
}

// Fail makes every later operation of kind op fail.
func (f *Faulty) Fail(op Op) { f.FailAfter(op, 0) }

// FailAfter lets the next n operations of kind op succeed and makes every
// one after them fail. Under concurrency, "next" counts from when FailAfter
// reads the attempt counter.
func (f *Faulty) FailAfter(op Op, n int) {
	ft := &f.faults[op]
	ft.failFrom.Store(ft.attempts.Load() + int64(n) + 1)
}

// Heal stops failing operations of kind op.
func (f *Faulty) Heal(op Op) { f.faults[op].failFrom.Store(math.MaxInt64) }

// Count returns how many operations of kind op were attempted, failed ones
// included.
func (f *Faulty) Count(op Op) int64 { return f.faults[op].attempts.Load() }

// fails counts an attempt at op and reports whether it must fail.
func (f *Faulty) fails(op Op) bool {
	ft := &f.faults[op]
	return ft.attempts.Add(1) >= ft.failFrom.Load()
}

func injected(op Op, path string) error {
	return &os.PathError{Op: op.String(), Path: path, Err: ErrInjected}
}

func (f *Faulty) Create(name string) (File, error) {
	if f.fails(OpCreate) {
		return nil, injected(OpCreate, name)
	}
	file, err := f.fs.Create(name)
	return f.wrap(name, file, err)
}

func (f *Faulty) Open(name string) (File, error) {
	file, err := f.fs.Open(name)
	return f.wrap(name, file, err)
}

func (f *Faulty) OpenReadWrite(name string) (File, error) {
	file, err := f.fs.OpenReadWrite(name)
	return f.wrap(name, file, err)
}

func (f *Faulty) wrap(name string, file File, err error) (File, error) {
	if err != nil {
		return nil, err
	}
	return &faultyFile{File: file, fs: f, name: name}, nil
}

func (f *Faulty) Remove(name string) error {
	if f.fails(OpRemove) {
		return injected(OpRemove, name)
	}
	return f.fs.Remove(name)
}

func (f *Faulty) Rename(oldname, newname string) error {
	if f.fails(OpRename) {
		return &os.LinkError{Op: OpRename.String(), Old: oldname, New: newname, Err: ErrInjected}
	}
	return f.fs.Rename(oldname, newname)
}

func (f *Faulty) MkdirAll(dir string, perm os.FileMode) error { return f.fs.MkdirAll(dir, perm) }

func (f *Faulty) List(dir string) ([]string, error) { return f.fs.List(dir) }

func (f *Faulty) Stat(name string) (os.FileInfo, error) { return f.fs.Stat(name) }

func (f *Faulty) SyncDir(dir string) error {
	if f.fails(OpSyncDir) {
		return injected(OpSyncDir, dir)
	}
	return f.fs.SyncDir(dir)
}

func (f *Faulty) PathJoin(elem ...string) string { return f.fs.PathJoin(elem...) }

// faultyFile injects OpWrite and OpSync faults into a wrapped File.
type faultyFile struct {
	File
	fs   *Faulty
	name string
}

func (f *faultyFile) Write(p []byte) (int, error) {
	if f.fs.fails(OpWrite) {
		return 0, injected(OpWrite, f.name)
	}
	return f.File.Write(p)
}

// WriteAt counts as a Write.
func (f *faultyFile) WriteAt(p []byte, off int64) (int, error) {
	if f.fs.fails(OpWrite) {
		return 0, injected(OpWrite, f.name)
	}
	return f.File.WriteAt(p, off)
}

func (f *faultyFile) Sync() error {
	if f.fs.fails(OpSync) {
		return injected(OpSync, f.name)
	}
	return f.File.Sync()
}

// Lock passes through: locking is not a fault this wrapper injects.
func (f *Faulty) Lock(name string) (io.Closer, error) { return f.fs.Lock(name) }
