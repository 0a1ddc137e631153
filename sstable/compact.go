package sstable

import (
	"bytes"
	"slices"
)

// CompactionOptions shape the tree. The zero value takes the defaults.
type CompactionOptions struct {
	// L0Trigger compacts L0 into the next level once it holds this many
	// files. Default 4.
	L0Trigger int
	// LevelBase is L1's target size; each deeper level's is Multiplier
	// times the one above. Defaults 64 MiB and 10.
	LevelBase  int64
	Multiplier int
	// TargetFileSize is the size at which a compaction starts a new output
	// file. Default 32 MiB.
	TargetFileSize int64
}

// FillDefaults sets the zero fields to their defaults.
func (o *CompactionOptions) FillDefaults() {
	if o.L0Trigger <= 0 {
		o.L0Trigger = 4
	}
	if o.LevelBase <= 0 {
		o.LevelBase = 64 << 20
	}
	if o.Multiplier <= 1 {
		o.Multiplier = 10
	}
	if o.TargetFileSize <= 0 {
		o.TargetFileSize = 32 << 20
	}
}

// Compaction is one merge of files into the next level, or within one.
type Compaction struct {
	// Level's files in Inputs[0] are merged with Output's in Inputs[1]
	// into new files at Output.
	Level, Output int
	Inputs        [2][]*FileMeta
	// Move says the inputs go to Output unchanged: nothing overlaps them
	// there, so there is nothing to merge.
	Move bool
	// Reason names why it was picked, for the statistics.
	Reason string
}

// Picker chooses compactions for one tree. It remembers, per level, where
// the last compaction ended, so that levels are compacted round-robin by
// key and every file's turn comes.
type Picker struct {
	opts   CompactionOptions
	cursor [NumLevels][]byte
}

// NewPicker returns a picker with opts (defaults filled in).
func NewPicker(opts CompactionOptions) *Picker {
	opts.FillDefaults()
	return &Picker{opts: opts}
}

// Options returns the picker's options.
func (p *Picker) Options() CompactionOptions { return p.opts }

// maxBytes is level l's target size (l >= 1).
func (p *Picker) maxBytes(l int) int64 {
	b := p.opts.LevelBase
	for i := 1; i < l; i++ {
		b *= int64(p.opts.Multiplier)
	}
	return b
}

// Score is how far over its target a level is: L0 by file count, the
// others by bytes. A level scoring 1 or more is due.
func (p *Picker) Score(v *Version, l int) float64 {
	if l == 0 {
		return float64(len(v.Levels[0])) / float64(p.opts.L0Trigger)
	}
	return float64(levelSize(v.Levels[l])) / float64(p.maxBytes(l))
}

// Pick returns the next compaction the tree needs, or nil. The most
// overfull level goes first. When no level is due, a file that rewrite
// reports (one whose unresolved writers have all ended, so that its
// versions would resolve and their status entries go, or one that holds
// a dropped range) is rewritten in place.
func (p *Picker) Pick(v *Version, rewrite func(*FileMeta) bool) *Compaction {
	best, bestScore := -1, 1.0
	for l := 0; l < NumLevels-1; l++ {
		if s := p.Score(v, l); s >= bestScore {
			best, bestScore = l, s
		}
	}
	switch {
	case best == 0:
		return p.pickL0(v)
	case best > 0:
		return p.pickLevel(v, best)
	}
	for l := range NumLevels {
		for _, f := range v.Levels[l] {
			if rewrite(f) {
				c := &Compaction{Level: l, Output: l, Reason: "resolve"}
				c.Inputs[0] = []*FileMeta{f}
				if l == 0 {
					// An L0 file cannot be rewritten on its own without
					// breaking L0's order; take it down with the rest.
					return p.pickL0(v)
				}
				return c
			}
		}
	}
	return nil
}

// pickL0 merges all of L0 into L1. All, because an L0 file's versions are
// newer than those of every older L0 file it overlaps, and L1 is read after
// L0: leaving an older L0 file behind a newer one moved down would invert
// them.
func (p *Picker) pickL0(v *Version) *Compaction {
	c := &Compaction{Level: 0, Output: 1, Reason: "L0 files"}
	c.Inputs[0] = slices.Clone(v.Levels[0])
	lo, hi := keyRange(c.Inputs[0])
	c.Inputs[1] = overlapping(v.Levels[1], lo, hi)
	c.Move = len(c.Inputs[1]) == 0 && disjoint(c.Inputs[0])
	return c
}

// pickLevel merges the next file of level l, round-robin by key, with the
// files it overlaps in l+1.
func (p *Picker) pickLevel(v *Version, l int) *Compaction {
	files := v.Levels[l]
	i := 0
	if cur := p.cursor[l]; cur != nil {
		i = slices.IndexFunc(files, func(f *FileMeta) bool { return bytes.Compare(f.SmallestKey, cur) > 0 })
		if i < 0 {
			i = 0
		}
	}
	f := files[i]
	p.cursor[l] = f.LargestKey
	c := &Compaction{Level: l, Output: l + 1, Reason: "level size"}
	c.Inputs[0] = []*FileMeta{f}
	c.Inputs[1] = overlapping(v.Levels[l+1], f.SmallestKey, f.LargestKey)
	c.Move = len(c.Inputs[1]) == 0
	return c
}

// All returns the next step of a full compaction, which pushes every
// level's data down one level at a time (a level skipped would leave newer
// versions below older ones) until one level holds it all; nil when done.
func (p *Picker) All(v *Version) *Compaction {
	if len(v.Levels[0]) > 0 {
		// L0's files overlap: they are only ever merged all together, and
		// into L1 (an L0 file compacted on its own could drop a tombstone
		// that hides an older L0 file's version).
		c := p.pickL0(v)
		c.Reason = "manual"
		return c
	}
	last := 0
	for l := range NumLevels {
		if len(v.Levels[l]) > 0 {
			last = l
		}
	}
	for l := range last {
		if len(v.Levels[l]) == 0 {
			continue
		}
		c := &Compaction{Level: l, Output: l + 1, Reason: "manual"}
		c.Inputs[0] = slices.Clone(v.Levels[l])
		lo, hi := keyRange(c.Inputs[0])
		c.Inputs[1] = overlapping(v.Levels[l+1], lo, hi)
		c.Move = len(c.Inputs[1]) == 0 && disjoint(c.Inputs[0])
		return c
	}
	return nil
}

// Overlaps reports whether any file of v deeper than level l may hold key:
// if none does, a tombstone compacted into l (l >= 1) hides nothing and can
// go. Compactions never write to L0, whose own files a tombstone may hide.
func (v *Version) Overlaps(l int, key []byte) bool {
	for d := l + 1; d < NumLevels; d++ {
		files := v.Levels[d]
		if d == 0 {
			if len(overlapping(files, key, key)) > 0 {
				return true
			}
			continue
		}
		i, _ := slices.BinarySearchFunc(files, key, func(f *FileMeta, k []byte) int {
			return bytes.Compare(f.LargestKey, k)
		})
		if i < len(files) && bytes.Compare(files[i].SmallestKey, key) <= 0 {
			return true
		}
	}
	return false
}

func levelSize(files []*FileMeta) int64 {
	var n int64
	for _, f := range files {
		n += f.Size
	}
	return n
}

// keyRange is the smallest and largest key of files.
func keyRange(files []*FileMeta) (lo, hi []byte) {
	for _, f := range files {
		if lo == nil || bytes.Compare(f.SmallestKey, lo) < 0 {
			lo = f.SmallestKey
		}
		if hi == nil || bytes.Compare(f.LargestKey, hi) > 0 {
			hi = f.LargestKey
		}
	}
	return lo, hi
}

// overlapping returns the files whose ranges meet [lo, hi].
func overlapping(files []*FileMeta, lo, hi []byte) []*FileMeta {
	var out []*FileMeta
	for _, f := range files {
		if bytes.Compare(f.LargestKey, lo) >= 0 && bytes.Compare(f.SmallestKey, hi) <= 0 {
			out = append(out, f)
		}
	}
	return out
}

// disjoint reports whether no two of files overlap.
func disjoint(files []*FileMeta) bool {
	s := slices.Clone(files)
	slices.SortFunc(s, func(a, b *FileMeta) int { return bytes.Compare(a.SmallestKey, b.SmallestKey) })
	for i := 1; i < len(s); i++ {
		if bytes.Compare(s[i-1].LargestKey, s[i].SmallestKey) >= 0 {
			return false
		}
	}
	return true
}
