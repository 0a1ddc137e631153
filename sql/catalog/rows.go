package catalog

import (
	"bytes"
	"encoding/binary"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
)

// The rows of tables and their index entries in txn's key space, and a
// batched scan of a key range.

// RowKey builds the primary-index key of row: the primary key columns, or
// the hidden row id for a table without one.
func (t *Table) RowKey(row []any, rowID int64) []byte {
	return t.AppendRowKey(make([]byte, 0, 32), row, rowID)
}

func (t *Table) AppendRowKey(k []byte, row []any, rowID int64) []byte {
	k = AppendIndexPrefix(k, t.DataID, PrimaryIndexID)
	if pk := t.PrimaryKey(); pk != nil {
		for _, ci := range pk.Columns {
			k = types.AppendKey(k, t.Columns[ci].Type, row[ci], false)
		}
		return k
	}
	return binary.BigEndian.AppendUint64(k, uint64(rowID)^1<<63)
}

// IndexKey builds the key of a unique index entry for row.
func (t *Table) IndexKey(ix *Index, row []any) []byte {
	k := IndexPrefix(t.DataID, ix.ID)
	for _, ci := range ix.Columns {
		k = types.AppendKey(k, t.Columns[ci].Type, row[ci], false)
	}
	return k
}

// HasNull reports whether any of ix's columns is NULL in row: such an entry
// never conflicts, as in PostgreSQL's unique indexes.
func HasNull(ix *Index, row []any) bool {
	for _, ci := range ix.Columns {
		if row[ci] == nil {
			return true
		}
	}
	return false
}

// DecodeRow decodes a stored row. The row carries its primary-index key as
// one extra, unnamed last element, so UPDATE and DELETE can find it again
// (a table without primary key has nothing else to find it by).
func (t *Table) DecodeRow(key, b []byte) ([]any, error) {
	return t.decodeRow(make([]any, len(t.Columns)+1), key, b)
}

func (t *Table) decodeRow(row []any, key, b []byte) ([]any, error) {
	if err := types.DecodeRow(t.ColumnTypes(), b, row[:len(t.Columns)]); err != nil {
		return nil, pgerr.New(pgerr.DataCorrupted, "corrupt row in table %q: %v", t.Name, err)
	}
	row[len(t.Columns)] = key
	return row, nil
}

// RowDecoder is DecodeRow for the rows of one scan, which it cuts from
// slabs of many: a scan allocates per slab rather than per row. Slabs
// start small, for a scan that reads a row or two, and grow to a few KiB.
// Each row is capped, so that appending to one never writes another.
type RowDecoder struct {
	t    *Table
	slab []any
	rows int // the next slab's
}

// maxSlabBytes bounds a slab: a row kept from it keeps the slab alive.
const maxSlabBytes = 8 << 10

func (t *Table) Decoder() *RowDecoder { return &RowDecoder{t: t, rows: 2} }

func (d *RowDecoder) Decode(key, b []byte) ([]any, error) {
	w := len(d.t.Columns) + 1
	if len(d.slab) < w {
		d.slab = make([]any, w*d.rows)
		d.rows = max(1, min(2*d.rows, maxSlabBytes/(16*w)))
	}
	row := d.slab[:w:w]
	d.slab = d.slab[w:]
	return d.t.decodeRow(row, key, b)
}

func (t *Table) EncodeRow(row []any) []byte {
	return types.EncodeRow(nil, t.ColumnTypes(), row[:len(t.Columns)])
}

// IndexEntryKey is the key of ix's entry for row, whose primary-index key
// is rowKey (see Index).
func (t *Table) IndexEntryKey(ix *Index, row []any, rowKey []byte) []byte {
	k := t.IndexKey(ix, row)
	if ix.NonUnique || HasNull(ix, row) {
		k = append(k, rowKey[len(IndexPrefix(t.DataID, PrimaryIndexID)):]...)
	}
	return k
}

// KVScan reads [start, end) of the key space in batches, so that the
// transaction's Scan callback never runs caller code. The first batch is
// small, for a scan that stops after a few rows; later ones grow, so that
// a long scan seeks into the memtables and files less often.
type KVScan struct {
	Tx         *txn.Tx
	Start, End []byte
	buf        []KV
	i          int
	batch      int
	done       bool
}

type KV struct{ K, V []byte }

const (
	ScanBatch    = 256
	maxScanBatch = 16 * ScanBatch
)

func (s *KVScan) Next() (KV, bool, error) {
	if s.i == len(s.buf) {
		if s.done {
			return KV{}, false, nil
		}
		if s.batch == 0 {
			s.batch = ScanBatch
		} else {
			s.batch = min(2*s.batch, maxScanBatch)
		}
		s.buf, s.i = s.buf[:0], 0
		err := s.Tx.Scan(s.Start, s.End, func(k, v []byte) bool {
			s.buf = append(s.buf, KV{k, v})
			return len(s.buf) < s.batch
		})
		if err != nil {
			return KV{}, false, err
		}
		if len(s.buf) < s.batch {
			s.done = true
		} else {
			// Resume just after the last key: its immediate successor.
			last := s.buf[len(s.buf)-1].K
			s.Start = append(bytes.Clone(last), 0)
		}
		if len(s.buf) == 0 {
			return KV{}, false, nil
		}
	}
	s.i++
	return s.buf[s.i-1], true, nil
}

// PrefixEnd is the first key after every key that starts with p.
func PrefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
