package rowexec

import (
	"hash/maphash"

	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/sql/types"
)

// Hash tables past work_mem. Grouping, hash joins and the set operations
// keep a hash table of what they have seen; when it fills work_mem they
// write the rows it cannot take to partitions, temporary files chosen by
// a hash of the rows' keys, so that rows with equal keys share a
// partition and each partition can be finished on its own, after the
// input, within work_mem again. A partition that still does not fit is
// partitioned in turn, with another hash, up to MaxSpillLevel levels
// deep; past that, what is left is done in memory whatever its size.

// SpillParts is how many partitions one level of spilling writes.
const SpillParts = 16

// MaxSpillLevel bounds the partitioning of partitions.
const MaxSpillLevel = 8

// spillSeeds hash keys at each level of partitioning, each with a seed of
// its own, so that the rows of one partition spread over the next level.
var spillSeeds = func() (seeds [MaxSpillLevel + 1]maphash.Seed) {
	for i := range seeds {
		seeds[i] = maphash.MakeSeed()
	}
	return seeds
}()

// Partitions are SpillParts temporary files that rows go to by the hash
// of a key, at one level of partitioning.
type Partitions struct {
	x     Run
	level int
	files [SpillParts]*spill.File
}

// NewPartitions makes the partitions of a level of partitioning, whose
// files belong to x.
func NewPartitions(x Run, level int) *Partitions {
	return &Partitions{x: x, level: level}
}

// maphashPartition is the partition of key at a level.
func maphashPartition(level int, key []byte) uint64 {
	return maphash.Bytes(spillSeeds[level], key) % SpillParts
}

// Add writes row to the partition of key.
func (ps *Partitions) Add(key []byte, row []any) error {
	i := maphashPartition(ps.level, key)
	f := ps.files[i]
	if f == nil {
		var err error
		if f, err = ps.x.NewTempFile("hash"); err != nil {
			return err
		}
		ps.files[i] = f
	}
	return f.WriteRow(row)
}

// Take flushes the partitions and hands over the files written, which
// the caller removes.
func (ps *Partitions) Take() ([]*spill.File, error) {
	files, err := ps.TakeAll()
	if err != nil {
		return nil, err
	}
	var out []*spill.File
	for _, f := range files {
		if f != nil {
			out = append(out, f)
		}
	}
	return out, nil
}

// TakeAll is Take that keeps the partitions' places: nil where no row
// went.
func (ps *Partitions) TakeAll() ([SpillParts]*spill.File, error) {
	for _, f := range ps.files {
		if f == nil {
			continue
		}
		if err := f.Flush(); err != nil {
			ps.Close()
			return [SpillParts]*spill.File{}, err
		}
	}
	files := ps.files
	ps.files = [SpillParts]*spill.File{}
	return files, nil
}

// Close removes the partitions' files.
func (ps *Partitions) Close() {
	for i, f := range ps.files {
		if f != nil {
			f.Remove()
			ps.files[i] = nil
		}
	}
}

// PartPair is a partition of each of two inputs whose rows meet by key
// (a hash join's sides, INTERSECT's and EXCEPT's), nil where an input has
// no rows; Level is the partitioning that would split it further.
type PartPair struct {
	Right, Left *spill.File
	Level       int
}

// Remove removes the pair's files.
func (p PartPair) Remove() {
	p.Right.Remove()
	p.Left.Remove()
}

// SplitPair partitions a pair of partitions again, at the pair's level:
// right yields the right one's records, each its key and then the row,
// and the left one's are read from its file; both files are removed. A
// split that leaves every right record in one partition splits nothing,
// and that partition is not split again.
func SplitPair(x Run, right RowIter, pair PartPair) ([]PartPair, error) {
	rps, lps := NewPartitions(x, pair.Level), NewPartitions(x, pair.Level)
	var counts [SpillParts]int
	total := 0
	copyIn := func(it RowIter, ps *Partitions, count bool) error {
		defer it.Close()
		for {
			rec, err := it.Next()
			if err == nil && rec != nil {
				err = x.Canceled()
			}
			if err != nil || rec == nil {
				return err
			}
			k := rec[0].([]byte)
			if count {
				counts[maphashPartition(pair.Level, k)]++
				total++
			}
			if err := ps.Add(k, rec); err != nil {
				return err
			}
		}
	}
	err := copyIn(right, rps, true)
	switch {
	case err == nil && pair.Left != nil:
		err = copyIn(&SpilledRows{File: pair.Left}, lps, false)
	case pair.Left != nil:
		pair.Left.Remove()
	}
	var rf, lf [SpillParts]*spill.File
	if err == nil {
		rf, err = rps.TakeAll()
	}
	if err == nil {
		lf, err = lps.TakeAll()
	}
	if err != nil {
		spill.RemoveAll(rf[:])
		rps.Close()
		lps.Close()
		return nil, err
	}
	var pairs []PartPair
	for i := range SpillParts {
		if rf[i] == nil && lf[i] == nil {
			continue
		}
		level := pair.Level + 1
		if counts[i] == total {
			level = MaxSpillLevel + 1 // no split: hold it
		}
		pairs = append(pairs, PartPair{rf[i], lf[i], level})
	}
	return pairs, nil
}

// GroupKey is the key of a row's group: the key encodings of its GROUP BY
// values, equal exactly when the values are.
func GroupKey(buf []byte, ts []types.T, vals []any) []byte {
	for i, t := range ts {
		buf = types.AppendKey(buf, t, vals[i], false)
	}
	return buf
}

// SpilledRows reads a partition's rows and removes the file at the end.
type SpilledRows struct {
	File *spill.File
	r    *spill.Reader
}

func (s *SpilledRows) Next() ([]any, error) {
	if s.r == nil {
		s.r = s.File.Reader(0)
	}
	return s.r.Next()
}

func (s *SpilledRows) Close() { s.File.Remove() }
