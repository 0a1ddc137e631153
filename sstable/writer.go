package sstable

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/cockroachdb/errors"
	"github.com/epochdb/epochdb/internal/vfs"
)

// WriterOptions tunes a Writer. The zero value gives the defaults.
type WriterOptions struct {
	// BlockSize is the target size of an uncompressed data block; default
	// 32 KiB, at most 1 GiB. A block holds at least one entry, so a large
	// entry makes a large block.
	BlockSize int
	// RestartInterval is the number of entries between restart points;
	// default 16.
	RestartInterval int
	// BloomBitsPerKey sizes the filter; 0 means the default (10), negative
	// means no filter.
	BloomBitsPerKey int
	Compression     Compression
}

const (
	defaultBlockSize       = 32 << 10
	defaultRestartInterval = 16
	defaultBloomBitsPerKey = 10
	// defaultCompression is the codec doc.go's measurements chose.
	defaultCompression = S2Compression
)

// Writer writes one sstable, streaming: it holds the data block being built,
// the index and the filter's key hashes (8 bytes per distinct key), never
// the whole file. Entries must come in file order. A Writer is not safe for
// concurrent use.
//
// An entry that Add rejects leaves the Writer as it was. A write or sync
// error poisons it: every later call returns that error, and the caller
// must remove the partly written file.
type Writer struct {
	f      vfs.File
	opts   WriterOptions
	err    error
	offset uint64 // bytes written to f

	block   blockWriter
	scratch []byte // compression output, reused
	index   []byte // index entries so far
	hashes  []uint64

	// warm, when set, receives each data block as file warmNum's (Warm).
	warm    *Cache
	warmNum uint64

	hasLast bool
	lastKey []byte
	lastSeq uint64
	props   Properties
	txns    map[uint64]struct{}
}

// NewWriter returns a Writer that appends an sstable to f, which should be
// empty.
func NewWriter(f vfs.File, opts WriterOptions) *Writer {
	if opts.BlockSize <= 0 {
		opts.BlockSize = defaultBlockSize
	}
	opts.BlockSize = min(opts.BlockSize, maxEntrySize)
	if opts.RestartInterval <= 0 {
		opts.RestartInterval = defaultRestartInterval
	}
	if opts.BloomBitsPerKey == 0 {
		opts.BloomBitsPerKey = defaultBloomBitsPerKey
	}
	if opts.Compression == DefaultCompression {
		opts.Compression = defaultCompression
	}
	return &Writer{
		f:     f,
		opts:  opts,
		block: blockWriter{restartInterval: opts.RestartInterval},
		txns:  make(map[uint64]struct{}),
	}
}

var errFinished = errors.New("sstable: writer already finished")

// Add appends e, which must sort after every entry added before it: a
// greater Key, or the same Key with a smaller Seq. The Writer copies what it
// keeps of e.
func (w *Writer) Add(e Entry) error {
	if w.err != nil {
		return w.err
	}
	if err := e.validate(); err != nil {
		return err
	}
	if w.hasLast && compareEntries(w.lastKey, w.lastSeq, e.Key, e.Seq) >= 0 {
		return errors.Newf("sstable: entry (%q, seq %d) added after (%q, seq %d): out of order or duplicate",
			e.Key, e.Seq, w.lastKey, w.lastSeq)
	}
	if !w.block.empty() && w.block.size()+len(e.Key)+len(e.Value)+entryOverhead > w.opts.BlockSize {
		if err := w.flushBlock(e.Key); err != nil {
			return err
		}
	}
	newKey := !w.hasLast || !bytes.Equal(w.lastKey, e.Key)
	if newKey && w.opts.BloomBitsPerKey > 0 {
		w.hashes = append(w.hashes, hash64(e.Key))
	}
	w.block.add(&e)
	w.account(&e)
	w.lastKey = append(w.lastKey[:0], e.Key...)
	w.lastSeq = e.Seq
	w.hasLast = true
	return nil
}

func (w *Writer) account(e *Entry) {
	p := &w.props
	if p.NumEntries == 0 {
		p.SmallestKey = bytes.Clone(e.Key)
		p.SmallestSeq, p.LargestSeq = e.Seq, e.Seq
	}
	p.NumEntries++
	switch e.Kind {
	case KindValue:
		p.NumValues++
	case KindTombstone:
		p.NumTombstones++
	case KindLock:
		p.NumLocks++
	}
	p.SmallestSeq = min(p.SmallestSeq, e.Seq)
	p.LargestSeq = max(p.LargestSeq, e.Seq)
	if e.Txn != 0 {
		p.NumUnresolved++
		w.txns[e.Txn] = struct{}{}
	} else {
		if p.MinTS == 0 || e.TS < p.MinTS {
			p.MinTS = e.TS
		}
		p.MaxTS = max(p.MaxTS, e.TS)
	}
	p.RawKeyBytes += uint64(len(e.Key))
	p.RawValueBytes += uint64(len(e.Value))
}

// flushBlock writes the block being built and its index entry. nextKey is
// the key of the entry that will start the next block, or nil at the end.
func (w *Writer) flushBlock(nextKey []byte) error {
	raw := w.block.finish()
	h, err := w.writeBlock(raw, w.opts.Compression)
	if err != nil {
		return err
	}
	if w.warm != nil {
		b := bytes.Clone(raw) // the block writer reuses raw
		w.warm.set(w.warmNum, h.offset, b, cap(b))
	}
	w.block.reset()
	sep := w.lastKey
	if nextKey != nil {
		sep = separator(w.lastKey, nextKey)
	}
	w.index = binary.AppendUvarint(w.index, uint64(len(sep)))
	w.index = append(w.index, sep...)
	w.index = appendHandle(w.index, h)
	w.props.NumDataBlocks++
	w.props.DataBytes += h.length + trailerSize
	return nil
}

// separator returns a short key s with a <= s < b, for a <= b: the index
// only needs to tell blocks apart, not to hold their last keys. When a and b
// are equal (a key's versions continue in the next block) it is a.
func separator(a, b []byte) []byte {
	n := commonPrefix(a, b)
	if n < len(a) && n < len(b) && a[n] < 0xff && a[n]+1 < b[n] {
		s := slices.Clone(a[:n+1])
		s[n]++
		return s
	}
	return a
}

// writeBlock compresses raw if that pays, then writes it with its trailer.
func (w *Writer) writeBlock(raw []byte, c Compression) (blockHandle, error) {
	stored, typ, scratch := compressBlock(c, raw, w.scratch)
	w.scratch = scratch
	var t [trailerSize]byte
	t[0] = typ
	binary.LittleEndian.PutUint32(t[1:], blockChecksum(stored, typ))
	h := blockHandle{offset: w.offset, length: uint64(len(stored))}
	if err := w.write(stored); err != nil {
		return h, err
	}
	return h, w.write(t[:])
}

func (w *Writer) write(b []byte) error {
	if _, err := w.f.Write(b); err != nil {
		w.err = errors.Wrap(err, "sstable: write")
		return w.err
	}
	w.offset += uint64(len(b))
	return nil
}

// Warm puts each data block the writer writes from now on into c as well,
// as a block of file fileNum, so that reads of the file find them there
// from the start: a file that takes over data readers use (a memtable's, or
// the cached blocks of a compaction's inputs) starts as warm as it was. A
// caller that gives up the file must evict them (Cache.EvictFile).
func (w *Writer) Warm(c *Cache, fileNum uint64) { w.warm, w.warmNum = c, fileNum }

// EstimatedSize is the size the file would have if it were finished now:
// the bytes written so far plus the pending block (uncompressed), index and
// filter. Compaction uses it to split its output.
func (w *Writer) EstimatedSize() int64 {
	n := w.offset + uint64(w.block.size()) + uint64(len(w.index)) + footerSize
	if w.opts.BloomBitsPerKey > 0 {
		n += uint64(len(w.hashes)*w.opts.BloomBitsPerKey/8) + 1
	}
	return int64(n)
}

// Finish writes the last data block, the filter, index and properties
// blocks and the footer, then syncs the file. The caller closes it. The
// returned Properties are those Open will read back.
func (w *Writer) Finish() (Properties, error) {
	if w.err != nil {
		return Properties{}, w.err
	}
	if !w.block.empty() {
		if err := w.flushBlock(nil); err != nil {
			return Properties{}, err
		}
	}
	var ft footer
	ft.version = formatVersion
	if w.opts.BloomBitsPerKey > 0 {
		h, err := w.writeBlock(buildFilter(w.hashes, w.opts.BloomBitsPerKey), NoCompression)
		if err != nil {
			return Properties{}, err
		}
		ft.filter = h
		w.props.FilterBytes = h.length + trailerSize
	}
	h, err := w.writeBlock(w.index, w.opts.Compression)
	if err != nil {
		return Properties{}, err
	}
	ft.index = h
	w.props.IndexBytes = h.length + trailerSize
	if w.hasLast {
		w.props.LargestKey = bytes.Clone(w.lastKey)
	}
	for t := range w.txns {
		w.props.UnresolvedTxns = append(w.props.UnresolvedTxns, t)
	}
	slices.Sort(w.props.UnresolvedTxns)
	if ft.props, err = w.writeBlock(w.props.encode(), NoCompression); err != nil {
		return Properties{}, err
	}
	if err := w.write(ft.encode()); err != nil {
		return Properties{}, err
	}
	if err := w.f.Sync(); err != nil {
		w.err = errors.Wrap(err, "sstable: sync")
		return Properties{}, w.err
	}
	w.err = errFinished
	return w.props, nil
}
