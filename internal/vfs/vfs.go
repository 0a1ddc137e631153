// Package vfs is the small file-system interface that wal (and later sstable)
// write through. It exists so that tests can swap the operating system
// (Default) for an in-memory file system that loses unsynced data on a
// simulated crash (MemFS) or for a wrapper that fails chosen operations on
// demand (Faulty).
//
// The durability model every implementation follows is the POSIX one that the
// storage engine relies on:
//
//   - File.Write is durable only after a File.Sync of that file returns nil.
//   - A created, renamed or removed directory entry is durable only after a
//     SyncDir of its parent directory returns nil.
//   - A failed Sync leaves the file in an unknown state. Callers must not retry
//     it and must not assume that any earlier unsynced write survived.
package vfs

import (
	"errors"
	"io"
	"os"
)

// FS is the file-system surface the storage engine needs, and nothing more.
type FS interface {
	// Create creates or truncates the named file for reading and writing.
	Create(name string) (File, error)
	// Open opens the named file read-only.
	Open(name string) (File, error)
	// OpenReadWrite opens an existing file for reading and writing, without
	// truncating it, at offset 0.
	OpenReadWrite(name string) (File, error)
	Remove(name string) error
	Rename(oldname, newname string) error
	MkdirAll(dir string, perm os.FileMode) error
	// List returns the names (not paths) of the entries in dir, sorted.
	List(dir string) ([]string, error)
	Stat(name string) (os.FileInfo, error)
	// SyncDir makes the directory entries of dir durable.
	SyncDir(dir string) error
	PathJoin(elem ...string) string
	// Lock takes an exclusive lock on the named file, creating it, so that
	// two processes never open one database. It fails with ErrLocked if
	// the lock is held; closing the result releases it.
	Lock(name string) (io.Closer, error)
}

// ErrLocked is returned by Lock when another holder has the lock.
var ErrLocked = errors.New("vfs: file is locked by another process")

// File is an open file. Writes go at the current offset (append, for files
// the storage engine writes); ReadAt and Truncate serve recovery, and WriteAt
// lets the log extend a recycled segment without moving its offset.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.WriterAt
	io.Closer
	Stat() (os.FileInfo, error)
	// Sync makes every completed Write durable. On Linux it is fdatasync.
	Sync() error
	// Truncate cuts the file to size bytes and leaves the offset where it
	// was. Recovery uses it to drop a torn tail before new records are
	// appended.
	Truncate(size int64) error
}
