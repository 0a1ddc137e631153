package spill

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"syscall"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// OSFile is what a temporary file is written to: *os.File, or in tests
// one whose writes fail.
type OSFile interface {
	io.Writer
	io.ReaderAt
	io.Closer
	Name() string
}

// CreateTemp makes a temporary file in dir named by pattern, as
// os.CreateTemp does (mode 0600, a name nobody else has).
func CreateTemp(dir, pattern string) (OSFile, error) { return os.CreateTemp(dir, pattern) }

// Stats count a database's spills: the temporary files made and the bytes
// written to them, for pg_stat_database's temp_files and temp_bytes.
type Stats struct {
	Files, Bytes atomic.Int64
}

// Set is the temporary files of one statement's execution. A session runs
// one statement at a time, on one goroutine, and the set belongs to it;
// the Stats, which all sessions share, are atomic.
type Set struct {
	Dir    string                                    // where the files go
	Create func(dir, pattern string) (OSFile, error) // CreateTemp, or a test's
	Stats  *Stats
	live   map[*File]struct{}
}

// New makes a temporary file; kind says which operator writes it (sort,
// hash, store), and names it epochdb-kind-*.
func (s *Set) New(kind string) (*File, error) {
	f, err := s.Create(s.Dir, "epochdb-"+kind+"-*")
	if err != nil {
		return nil, fileError(err, "could not create temporary file")
	}
	t := &File{set: s, f: f}
	t.w = bufio.NewWriterSize(writerFunc(t.write), BufSize)
	if s.live == nil {
		s.live = make(map[*File]struct{})
	}
	s.live[t] = struct{}{}
	s.Stats.Files.Add(1)
	return t, nil
}

// RemoveAll removes every file of the set still there.
func (s *Set) RemoveAll() {
	for f := range s.live {
		f.Remove()
	}
}

// File is one temporary file: written once from the start, as records,
// then read back, as often as its owner likes, each reader from where it
// starts.
//
//	record: uvarint(len(payload)) payload
//
// The payload is a row in the encoding of codec.go.
type File struct {
	set    *Set
	f      OSFile
	w      *bufio.Writer
	size   int64 // bytes of the records written, buffered ones included
	onDisk int64 // bytes the file has: what readers can read
	buf    []byte
	err    error // the first write error; the file is unusable after it
}

// BufSize is the buffer a temporary file's writer, and each of its
// readers, has.
const BufSize = 32 << 10

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// write is the buffered writer's way to the file, which counts the bytes.
func (t *File) write(p []byte) (int, error) {
	n, err := t.f.Write(p)
	t.onDisk += int64(n)
	t.set.Stats.Bytes.Add(int64(n))
	return n, err
}

// WriteRow appends one row.
func (t *File) WriteRow(row []any) error {
	if t.err != nil {
		return t.err
	}
	var err error
	t.buf, err = appendRow(t.buf[:0], row)
	if err != nil {
		return err
	}
	var hdr [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], uint64(len(t.buf)))
	if _, err := t.w.Write(hdr[:n]); err != nil {
		return t.fail(err)
	}
	if _, err := t.w.Write(t.buf); err != nil {
		return t.fail(err)
	}
	t.size += int64(n + len(t.buf))
	return nil
}

// Flush writes out what is buffered, so that readers can read every row
// written.
func (t *File) Flush() error {
	if t.err != nil {
		return t.err
	}
	if err := t.w.Flush(); err != nil {
		return t.fail(err)
	}
	return nil
}

// Buffered reports whether rows written are still in the buffer, where
// readers cannot see them until a Flush.
func (t *File) Buffered() bool { return t.onDisk < t.size }

func (t *File) fail(err error) error {
	t.err = fileError(err, fmt.Sprintf("could not write to file %q", t.f.Name()))
	return t.err
}

// Reader reads the records from offset from on (0: the first), up to
// what was flushed when it reads.
func (t *File) Reader(from int64) *Reader {
	r := &Reader{t: t, from: from, off: from}
	r.br = bufio.NewReaderSize(readerFunc(r.read), BufSize)
	return r
}

// Remove closes and deletes the file; its readers are done. A nil file
// has nothing to remove, and a second Remove does nothing.
func (t *File) Remove() {
	if t == nil || t.set == nil {
		return
	}
	delete(t.set.live, t)
	t.set = nil
	_ = t.f.Close()
	_ = os.Remove(t.f.Name())
}

// RemoveAll removes files, skipping nil ones.
func RemoveAll(files []*File) {
	for _, f := range files {
		f.Remove()
	}
}

type readerFunc func([]byte) (int, error)

func (r readerFunc) Read(p []byte) (int, error) { return r(p) }

// Reader reads a temporary file's records in order.
type Reader struct {
	t    *File
	from int64 // where it started
	off  int64 // the file offset the buffered reader reads from next
	br   *bufio.Reader
	buf  []byte
}

func (r *Reader) read(p []byte) (int, error) {
	if r.off >= r.t.onDisk {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.t.onDisk-r.off)]
	n, err := r.t.f.ReadAt(p, r.off)
	r.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// Next returns the next row, or nil at the end.
func (r *Reader) Next() ([]any, error) {
	n, err := binary.ReadUvarint(r.br)
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, r.readError(err)
	}
	if uint64(cap(r.buf)) < n {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.br, r.buf); err != nil {
		return nil, r.readError(err)
	}
	return decodeRow(r.buf)
}

// Expect returns the next row, which the caller knows was written and
// flushed: a file that ends before it is corrupt.
func (r *Reader) Expect() ([]any, error) {
	row, err := r.Next()
	if err == nil && row == nil {
		err = errCorrupt()
	}
	return row, err
}

// Rewind makes the reader read again from where it started.
func (r *Reader) Rewind() {
	r.off = r.from
	r.br.Reset(readerFunc(r.read))
}

func (r *Reader) readError(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return pgerr.New(pgerr.InternalError, "temporary file %q ends inside a record", r.t.f.Name())
	}
	return fileError(err, fmt.Sprintf("could not read from file %q", r.t.f.Name()))
}

// fileError is PostgreSQL's error for a failed file operation: disk_full
// when the device has no room left, io_error otherwise.
func fileError(err error, what string) error {
	code := pgerr.IOError
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		code = pgerr.DiskFull
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return pgerr.New(code, "%s: %v", what, err)
}
