package vfs

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"
)

// MemFS is an in-memory FS that can simulate a power loss with CrashClone.
//
// It keeps two views of everything: what the running process sees, and what
// the disk would hold after a power loss.
//
//   - A file's contents become durable at a successful File.Sync.
//   - A Create of a new file, a Remove or a Rename becomes durable at the next
//     SyncDir of the parent directory; a Rename between two directories needs
//     both synced. It also becomes durable when a later operation on the same
//     name does, because no file system persists the rename of a file whose
//     creation it lost.
//   - A Create of an existing file truncates it in place, like O_TRUNC: the
//     directory does not change, the contents do.
//   - Directories are made by MkdirAll, are durable at once, and are never
//     removed or renamed.
//
// CrashClone with KeepUnsynced unset keeps exactly the durable view: that is
// the least a correct program may rely on. With KeepUnsynced set it also
// keeps, at random, some of what was never synced:
//
//   - Unsynced appends survive only as a prefix: the durable contents plus
//     the first k bytes of the unsynced tail, for a random k. Writes reach the
//     disk in order, so a crash tears the tail but never leaves a hole. That
//     is the model under which the WAL tells a torn tail from corruption.
//     MemFS does not model a file system that persists a later block before
//     an earlier one.
//   - A file truncated or overwritten since its last Sync keeps either its
//     durable or its current contents.
//   - Each directory operation that is not durable survives or is undone
//     independently, except that it is undone when an earlier one on the
//     same name was. A file whose creation is undone vanishes with its data,
//     synced or not.
//
// A MemFS is safe for concurrent use. One mutex guards all of it, files and
// open handles included, so that CrashClone sees a single instant even while
// other goroutines keep writing.
type MemFS struct {
	mu sync.Mutex
	// dirs holds every directory but the root, which always exists.
	dirs map[string]struct{}
	// files is the namespace the process sees.
	files map[string]*memNode
	// durable is the namespace that survives a crash. A node may be in both
	// maps; its durable contents are in memNode.synced.
	durable map[string]*memNode
	// pending lists, oldest first, the creates, removes and renames that
	// are not durable yet.
	pending []entryOp
	// locks are the names locked with Lock; a lock does not survive a
	// crash, as a process's flock does not.
	locks map[string]bool
}

// CrashOptions says what CrashClone keeps beyond the durable state.
type CrashOptions struct {
	// Rand makes the random choices; it is required with KeepUnsynced. A
	// seeded Rand makes a crash reproducible.
	Rand *rand.Rand
	// KeepUnsynced keeps a random part of the unsynced state instead of
	// none of it.
	KeepUnsynced bool
}

// NewMem returns an empty MemFS holding only the root directory.
func NewMem() *MemFS {
	return &MemFS{
		dirs:    make(map[string]struct{}),
		files:   make(map[string]*memNode),
		durable: make(map[string]*memNode),
	}
}

// memNode is a file's contents, apart from any name it has (an inode).
//
// data is only ever modified in place beyond len(synced): Sync makes synced
// share data's array, so any change below that first gives data an array of
// its own. That keeps Sync O(1), which matters for a WAL synced on every
// group commit.
type memNode struct {
	data   []byte
	synced []byte
	// diverged records that data is no longer synced plus appended bytes:
	// something below len(synced) was truncated or overwritten.
	diverged bool
}

func (n *memNode) writeAt(p []byte, off int) {
	if off < len(n.synced) && len(p) > 0 {
		n.diverge()
	}
	if grow := off + len(p) - len(n.data); grow > 0 {
		n.data = append(n.data, make([]byte, grow)...)
	}
	copy(n.data[off:], p)
}

func (n *memNode) truncate(size int) {
	if size > len(n.data) {
		n.data = append(n.data, make([]byte, size-len(n.data))...)
		return
	}
	// Shortening first means diverge copies only what is kept.
	n.data = n.data[:size]
	if size < len(n.synced) {
		n.diverge()
	}
}

// diverge prepares data for a change below len(synced).
func (n *memNode) diverge() {
	if !n.diverged {
		n.data = bytes.Clone(n.data)
		n.diverged = true
	}
}

func (n *memNode) sync() {
	n.synced = n.data[:len(n.data):len(n.data)]
	n.diverged = false
}

// survivor returns the contents a crash leaves: the durable ones when rng is
// nil, otherwise a random choice under the crash model of MemFS.
func (n *memNode) survivor(rng *rand.Rand) []byte {
	switch {
	case rng == nil:
		return n.synced
	case n.diverged:
		if rng.IntN(2) == 0 {
			return n.synced
		}
		return n.data
	default:
		return n.data[:len(n.synced)+rng.IntN(len(n.data)-len(n.synced)+1)]
	}
}

// entryOp is one create, remove or rename, applied atomically to a namespace.
type entryOp struct {
	set []entry
	// waitOn lists the parent directories not synced since the operation.
	waitOn []string
}

// entry binds path to node; a nil node removes path.
type entry struct {
	path string
	node *memNode
}

func (op *entryOp) apply(names map[string]*memNode) {
	for _, e := range op.set {
		if e.node == nil {
			delete(names, e.path)
		} else {
			names[e.path] = e.node
		}
	}
}

func (op *entryOp) touches(paths map[string]bool) bool {
	for _, e := range op.set {
		if paths[e.path] {
			return true
		}
	}
	return false
}

func (op *entryOp) mark(paths map[string]bool) {
	for _, e := range op.set {
		paths[e.path] = true
	}
}

// record notes a directory operation that has changed fs.files.
func (fs *MemFS) record(set ...entry) {
	var waitOn []string
	for _, e := range set {
		if d := filepath.Dir(e.path); !slices.Contains(waitOn, d) {
			waitOn = append(waitOn, d)
		}
	}
	fs.pending = append(fs.pending, entryOp{set: set, waitOn: waitOn})
}

func (fs *MemFS) isDir(p string) bool {
	if _, ok := fs.dirs[p]; ok {
		return true
	}
	return filepath.Dir(p) == p // "/", "." or a volume root
}

// Create creates name, or truncates it if it exists. The parent directory
// must exist.
func (fs *MemFS) Create(name string) (File, error) {
	name = filepath.Clean(name)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if n, ok := fs.files[name]; ok {
		n.truncate(0)
		return &memFile{fs: fs, node: n, name: name, writable: true}, nil
	}
	if fs.isDir(name) {
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	}
	if !fs.isDir(filepath.Dir(name)) {
		return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrNotExist}
	}
	n := &memNode{}
	fs.files[name] = n
	fs.record(entry{name, n})
	return &memFile{fs: fs, node: n, name: name, writable: true}, nil
}

// Open opens name read-only.
func (fs *MemFS) Open(name string) (File, error) {
	return fs.open(name, false)
}

// OpenReadWrite opens an existing file for reading and writing, at offset 0.
func (fs *MemFS) OpenReadWrite(name string) (File, error) {
	return fs.open(name, true)
}

func (fs *MemFS) open(name string, writable bool) (File, error) {
	name = filepath.Clean(name)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n, ok := fs.files[name]
	if !ok {
		err := os.ErrNotExist
		if fs.isDir(name) {
			err = syscall.EISDIR
		}
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return &memFile{fs: fs, node: n, name: name, writable: writable}, nil
}

// Remove removes the file name. Open handles keep working on the unnamed
// file. MemFS does not remove directories.
func (fs *MemFS) Remove(name string) error {
	name = filepath.Clean(name)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, ok := fs.files[name]; !ok {
		err := os.ErrNotExist
		if fs.isDir(name) {
			err = errors.ErrUnsupported
		}
		return &os.PathError{Op: "remove", Path: name, Err: err}
	}
	delete(fs.files, name)
	fs.record(entry{name, nil})
	return nil
}

// Rename renames the file oldname to newname, replacing any file there. MemFS
// does not rename directories.
func (fs *MemFS) Rename(oldname, newname string) error {
	oldname, newname = filepath.Clean(oldname), filepath.Clean(newname)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fail := func(err error) error {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	n, ok := fs.files[oldname]
	switch {
	case !ok && fs.isDir(oldname):
		return fail(errors.ErrUnsupported)
	case !ok || !fs.isDir(filepath.Dir(newname)):
		return fail(os.ErrNotExist)
	case fs.isDir(newname):
		return fail(syscall.EISDIR)
	case oldname == newname:
		return nil
	}
	delete(fs.files, oldname)
	fs.files[newname] = n
	fs.record(entry{oldname, nil}, entry{newname, n})
	return nil
}

// MkdirAll creates dir and any missing parents. They are durable at once;
// perm is ignored.
func (fs *MemFS) MkdirAll(dir string, perm os.FileMode) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var missing []string
	for p := filepath.Clean(dir); !fs.isDir(p); p = filepath.Dir(p) {
		if _, ok := fs.files[p]; ok {
			return &os.PathError{Op: "mkdir", Path: p, Err: syscall.ENOTDIR}
		}
		missing = append(missing, p)
	}
	for _, p := range missing {
		fs.dirs[p] = struct{}{}
	}
	return nil
}

// List returns the sorted names of the files and directories in dir.
func (fs *MemFS) List(dir string) ([]string, error) {
	dir = filepath.Clean(dir)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if !fs.isDir(dir) {
		return nil, &os.PathError{Op: "open", Path: dir, Err: os.ErrNotExist}
	}
	var names []string
	for p := range fs.files {
		if filepath.Dir(p) == dir {
			names = append(names, filepath.Base(p))
		}
	}
	for p := range fs.dirs {
		if filepath.Dir(p) == dir {
			names = append(names, filepath.Base(p))
		}
	}
	slices.Sort(names)
	return names, nil
}

// Stat describes the file or directory name.
func (fs *MemFS) Stat(name string) (os.FileInfo, error) {
	name = filepath.Clean(name)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if n, ok := fs.files[name]; ok {
		return &memFileInfo{name: filepath.Base(name), size: int64(len(n.data))}, nil
	}
	if fs.isDir(name) {
		return &memFileInfo{name: filepath.Base(name), dir: true}, nil
	}
	return nil, &os.PathError{Op: "stat", Path: name, Err: os.ErrNotExist}
}

// SyncDir makes durable every create, remove and rename in dir, together
// with the earlier operations on the same names that they depend on.
func (fs *MemFS) SyncDir(dir string) error {
	dir = filepath.Clean(dir)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if !fs.isDir(dir) {
		return &os.PathError{Op: "sync", Path: dir, Err: os.ErrNotExist}
	}
	for i := range fs.pending {
		op := &fs.pending[i]
		op.waitOn = slices.DeleteFunc(op.waitOn, func(d string) bool { return d == dir })
	}
	// Walking back from the newest, an operation on a name that a later
	// durable operation touches is a prerequisite of it, so it is durable
	// too.
	later := make(map[string]bool)
	for i := len(fs.pending) - 1; i >= 0; i-- {
		op := &fs.pending[i]
		if len(op.waitOn) > 0 && !op.touches(later) {
			continue
		}
		op.waitOn = nil
		op.mark(later)
	}
	kept := fs.pending[:0]
	for _, op := range fs.pending {
		if len(op.waitOn) == 0 {
			op.apply(fs.durable)
		} else {
			kept = append(kept, op)
		}
	}
	clear(fs.pending[len(kept):])
	fs.pending = kept
	return nil
}

// PathJoin is filepath.Join.
func (fs *MemFS) PathJoin(elem ...string) string { return filepath.Join(elem...) }

// CrashClone returns a new, independent MemFS holding what a power loss at
// this instant would leave on disk; see MemFS for the crash model. fs itself
// is unchanged and stays usable, so goroutines of the crashed process may
// keep writing to it without affecting the clone.
//
// CrashClone panics if opts.KeepUnsynced is set without opts.Rand.
func (fs *MemFS) CrashClone(opts CrashOptions) *MemFS {
	var rng *rand.Rand
	if opts.KeepUnsynced {
		if opts.Rand == nil {
			panic("vfs: CrashOptions.KeepUnsynced requires CrashOptions.Rand")
		}
		rng = opts.Rand
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()

	names := maps.Clone(fs.durable)
	if rng != nil {
		undone := make(map[string]bool)
		for i := range fs.pending {
			op := &fs.pending[i]
			if !op.touches(undone) && rng.IntN(2) == 0 {
				op.apply(names)
			} else {
				op.mark(undone)
			}
		}
	}

	clone := NewMem()
	maps.Copy(clone.dirs, fs.dirs)
	// Sorted, so that a seeded Rand makes the same choices every time.
	for _, name := range slices.Sorted(maps.Keys(names)) {
		n := &memNode{data: bytes.Clone(names[name].survivor(rng))}
		n.sync()
		clone.files[name] = n
		clone.durable[name] = n
	}
	return clone
}

// memFile is an open handle. Its fields, like the node, are guarded by
// fs.mu.
type memFile struct {
	fs       *MemFS
	node     *memNode
	name     string
	pos      int
	writable bool
	closed   bool
}

func (f *memFile) Read(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, &os.PathError{Op: "read", Path: f.name, Err: os.ErrClosed}
	}
	if len(p) == 0 {
		return 0, nil
	}
	if f.pos >= len(f.node.data) {
		return 0, io.EOF
	}
	n := copy(p, f.node.data[f.pos:])
	f.pos += n
	return n, nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, &os.PathError{Op: "read", Path: f.name, Err: os.ErrClosed}
	}
	if off < 0 {
		return 0, &os.PathError{Op: "readat", Path: f.name, Err: syscall.EINVAL}
	}
	if off >= int64(len(f.node.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.node.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.writableLocked("write"); err != nil {
		return 0, err
	}
	f.node.writeAt(p, f.pos)
	f.pos += len(p)
	return len(p), nil
}

// WriteAt writes p at off and leaves the offset where it was.
func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.writableLocked("writeat"); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, &os.PathError{Op: "writeat", Path: f.name, Err: syscall.EINVAL}
	}
	f.node.writeAt(p, int(off))
	return len(p), nil
}

// writableLocked is the error a write named op gets from a closed or
// read-only file, or nil.
func (f *memFile) writableLocked(op string) error {
	if f.closed {
		return &os.PathError{Op: op, Path: f.name, Err: os.ErrClosed}
	}
	if !f.writable {
		return &os.PathError{Op: op, Path: f.name, Err: syscall.EBADF}
	}
	return nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return &os.PathError{Op: "close", Path: f.name, Err: os.ErrClosed}
	}
	f.closed = true
	return nil
}

func (f *memFile) Stat() (os.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return nil, &os.PathError{Op: "stat", Path: f.name, Err: os.ErrClosed}
	}
	return &memFileInfo{name: filepath.Base(f.name), size: int64(len(f.node.data))}, nil
}

func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return &os.PathError{Op: "sync", Path: f.name, Err: os.ErrClosed}
	}
	f.node.sync()
	return nil
}

// Truncate changes the size of the file, not the handle's offset, as
// ftruncate(2) does.
func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.writableLocked("truncate"); err != nil {
		return err
	}
	if size < 0 {
		return &os.PathError{Op: "truncate", Path: f.name, Err: syscall.EINVAL}
	}
	f.node.truncate(int(size))
	return nil
}

type memFileInfo struct {
	name string
	size int64
	dir  bool
}

func (fi *memFileInfo) Name() string { return fi.name }
func (fi *memFileInfo) Size() int64  { return fi.size }
func (fi *memFileInfo) IsDir() bool  { return fi.dir }
func (fi *memFileInfo) Sys() any     { return nil }

func (fi *memFileInfo) Mode() os.FileMode {
	if fi.dir {
		return os.ModeDir | 0o755
	}
	return 0o644
}

// ModTime is always the zero time: nothing in the storage engine reads it.
func (fi *memFileInfo) ModTime() time.Time { return time.Time{} }

// Lock takes an in-process exclusive lock on name.
func (fs *MemFS) Lock(name string) (io.Closer, error) {
	name = filepath.Clean(name)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.locks[name] {
		return nil, &os.PathError{Op: "lock", Path: name, Err: ErrLocked}
	}
	if fs.locks == nil {
		fs.locks = make(map[string]bool)
	}
	fs.locks[name] = true
	return closerFunc(func() error {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		delete(fs.locks, name)
		return nil
	}), nil
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }
