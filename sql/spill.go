package sql

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

// Bounded memory above the engine.
//
// A statement's operators hold rows in memory only where their semantics
// need them held, and then only up to work_mem (a setting, 64MB unless
// SET): a sort, a hash table, rows to read again. Past that, the rows go
// to temporary files in the engine's TempDir, named epochdb-sort-*,
// epochdb-hash-* or epochdb-store-* after the operator that wrote them.
// Everything else streams: a scan feeds its consumer a batch at a time;
// UPDATE, DELETE, INSERT ... SELECT and ALTER TABLE's rewrites write each
// row as they read it, which is safe because a statement's reads never
// see its own writes (txn's statement numbers).
//
// What spills, and how:
//
//	ORDER BY, DISTINCT,      an external merge sort (extsort.go): rows are
//	DISTINCT ON, windows,    gathered until their estimated size passes
//	an aggregate's ORDER BY  work_mem, sorted (stably) and written as a
//	                         run; the runs are merged by a heap, a few at a
//	                         time if there are many. Ties go to the earlier
//	                         run, so the sort stays stable. ORDER BY with
//	                         LIMIT keeps only the rows it returns.
//	DISTINCT                 a hash set while it fits; then two sorts, by
//	                         key and input position, then by ORDER BY and
//	                         position, which is the hash set's answer.
//	GROUP BY                 hash aggregation keeps the groups it has; once
//	                         they fill work_mem, the rows of groups it has
//	                         not are written to partitions by a hash of
//	                         their keys, each aggregated after the input
//	                         ends, in turn, and partitioned again if it
//	                         still does not fit (hashspill.go).
//	hash joins               grace hash join: both sides partitioned by the
//	                         hash of the join keys, then each pair of
//	                         partitions joined in memory (hashjoin.go).
//	UNION, INTERSECT, EXCEPT the same partitioning, by the whole row.
//	rows read again          rowStore: rows in memory up to work_mem, then
//	                         in a file, read as often as needed: a join's
//	                         inner side without hash keys, a WITH query, a
//	                         recursive query's working table, the window
//	                         step's input, RETURNING and FETCH.
//
// The results of these operators are the in-memory ones: the same rows,
// in the same order, except that a spilled hash table gives its groups
// (and join and set operation rows) in another order, which only ORDER
// BY fixes.
//
// Rows go to the files in a self-describing encoding of the executor's
// datums (spillcodec.go); memory is counted by an estimate of each row's
// Go heap size (rowSize).
//
// Still held in memory whatever their size: a window partition's keys
// and arguments while its values are computed; an aggregate's DISTINCT
// set and an ordered-set aggregate's inputs; the hash sets of IN
// (subquery), of a recursive UNION and of ON CONFLICT's rows; a LATERAL
// item's rows for one outer row; the foreign key checks a statement
// queues for its end.
//
// A temporary file belongs to the statement that made it: to the
// execution's tempSet. The operator that wrote it removes it when it is
// done with it; the statement's end removes whatever is left, whether it
// ended well, with an error or by a panic (the portal's Close, which
// every path reaches). Spills count in pg_stat_database's temp_files and
// temp_bytes, as in PostgreSQL. A write that fails for want of space is
// disk_full (53100).

// spillFile is what a temporary file must do: *os.File, or in tests one
// whose writes fail.
type spillFile interface {
	io.Writer
	io.ReaderAt
	io.Closer
	Name() string
}

// createTempFile makes a temporary file in dir named by pattern, as
// os.CreateTemp does (mode 0600, a name nobody else has).
func createTempFile(dir, pattern string) (spillFile, error) { return os.CreateTemp(dir, pattern) }

// tempStats counts a database's spills: the temporary files made and
// the bytes written to them.
type tempStats struct {
	files, bytes atomic.Int64
}

// tempSet is the temporary files of one statement's execution. A
// session runs one statement at a time, on one goroutine, and the set
// belongs to it; the engine's counters, which all sessions share, are
// atomic.
type tempSet struct {
	e    *Engine
	live map[*tempFile]struct{}
}

// temps returns the temporary files of x's statement: those of its
// outermost execution.
func (x *execCtx) temps() *tempSet {
	root := x
	for root.temp == nil && root.outer != nil {
		root = root.outer.x
	}
	if root.temp == nil {
		root.temp = &tempSet{e: x.s.e}
	}
	return root.temp
}

// closeTemps removes every temporary file of x's statement still there.
func (x *execCtx) closeTemps() {
	if x != nil && x.temp != nil {
		x.temp.removeAll()
	}
}

// workMem is the statement's work_mem in bytes.
func (x *execCtx) workMem() int64 {
	if n := kilobytes(x.s.settings["work_mem"]); n > 0 {
		return n
	}
	return 64 << 20
}

func (ts *tempSet) removeAll() {
	for f := range ts.live {
		f.remove()
	}
}

// tempFile is one temporary file: written once from the start, as
// records, then read back, as often as its owner likes, each reader
// from where it starts.
//
//	record: uvarint(len(payload)) payload
//
// The payload is a row in spillcodec's encoding.
type tempFile struct {
	set    *tempSet
	f      spillFile
	w      *bufio.Writer
	size   int64 // bytes of the records written, buffered ones included
	onDisk int64 // bytes the file has: what readers can read
	buf    []byte
	err    error // the first write error; the file is unusable after it
}

// tempBufSize is the buffer a temporary file's writer, and each of its
// readers, has.
const tempBufSize = 32 << 10

// newTempFile makes a temporary file for x's statement; kind says which
// operator writes it (sort, hash, store).
func (x *execCtx) newTempFile(kind string) (*tempFile, error) {
	ts := x.temps()
	dir := ts.e.opts.TempDir
	f, err := ts.e.createTemp(dir, "epochdb-"+kind+"-*")
	if err != nil {
		return nil, fileError(err, "could not create temporary file")
	}
	t := &tempFile{set: ts, f: f}
	t.w = bufio.NewWriterSize(writerFunc(t.write), tempBufSize)
	if ts.live == nil {
		ts.live = make(map[*tempFile]struct{})
	}
	ts.live[t] = struct{}{}
	ts.e.temp.files.Add(1)
	return t, nil
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// write is the buffered writer's way to the file, which counts the bytes.
func (t *tempFile) write(p []byte) (int, error) {
	n, err := t.f.Write(p)
	t.onDisk += int64(n)
	t.set.e.temp.bytes.Add(int64(n))
	return n, err
}

// writeRow appends one row.
func (t *tempFile) writeRow(row []any) error {
	if t.err != nil {
		return t.err
	}
	var err error
	t.buf, err = appendSpillRow(t.buf[:0], row)
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

// flush writes out what is buffered, so that readers can read up to size.
func (t *tempFile) flush() error {
	if t.err != nil {
		return t.err
	}
	if err := t.w.Flush(); err != nil {
		return t.fail(err)
	}
	return nil
}

func (t *tempFile) fail(err error) error {
	t.err = fileError(err, fmt.Sprintf("could not write to file %q", t.f.Name()))
	return t.err
}

// reader reads the records from offset from on (0: the first), up to
// what was flushed when it reads.
func (t *tempFile) reader(from int64) *tempReader {
	r := &tempReader{t: t, off: from}
	r.br = bufio.NewReaderSize(readerFunc(r.read), tempBufSize)
	return r
}

// remove closes and deletes the file; its readers are done. A nil file
// has nothing to remove.
func (t *tempFile) remove() {
	if t == nil || t.set == nil {
		return
	}
	delete(t.set.live, t)
	t.set = nil
	_ = t.f.Close()
	_ = os.Remove(t.f.Name())
}

type readerFunc func([]byte) (int, error)

func (r readerFunc) Read(p []byte) (int, error) { return r(p) }

// tempReader reads a temporary file's records in order.
type tempReader struct {
	t   *tempFile
	off int64 // the file offset the buffered reader reads from next
	br  *bufio.Reader
	buf []byte
}

func (r *tempReader) read(p []byte) (int, error) {
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

// next returns the next row, or nil at the end.
func (r *tempReader) next() ([]any, error) {
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
	return decodeSpillRow(r.buf)
}

func (r *tempReader) readError(err error) error {
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
