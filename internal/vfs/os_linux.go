package vfs

import (
	"os"

	"golang.org/x/sys/unix"
)

// datasync is fdatasync(2). The WAL only appends, so the metadata fsync
// would add is the modification time, which recovery never reads; skipping
// it saves a journal write on every group commit. A size change is still
// flushed, because fdatasync must flush whatever metadata is needed to read
// the data back.
func datasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		// Retrying EINTR is not retrying a failed sync: the call was
		// interrupted before it reported on the data. os.File.Sync does the
		// same.
		for {
			serr = unix.Fdatasync(int(fd))
			if serr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}

// lockFile takes a non-blocking exclusive flock, released when f closes.
func lockFile(f *os.File) error {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if err == unix.EWOULDBLOCK {
			return ErrLocked
		}
		return err
	}
	return nil
}
