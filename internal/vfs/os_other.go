//go:build !linux

package vfs

import "os"

// datasync falls back to os.File.Sync where fdatasync is not available: a
// full fsync, or F_FULLFSYNC on macOS. Both flush at least as much.
func datasync(f *os.File) error { return f.Sync() }

// lockFile has no portable non-blocking lock here; a second process is not
// kept out on these systems.
func lockFile(*os.File) error { return nil }
