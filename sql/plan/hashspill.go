package plan

import (
	"hash/maphash"

	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/spill"
	"github.com/epochdb/epochdb/sql/types"
)

// Hash tables past work_mem. Grouping, hash joins and the set operations
// keep a hash table of what they have seen; when it fills work_mem they
// write the rows it cannot take to partitions, temporary files chosen by
// a hash of the rows' keys, so that rows with equal keys share a
// partition and each partition can be finished on its own, after the
// input, within work_mem again. A partition that still does not fit is
// partitioned in turn, with another hash, up to maxSpillLevel levels
// deep; past that, what is left is done in memory whatever its size.

// spillParts is how many partitions one level of spilling writes.
const spillParts = 16

// maxSpillLevel bounds the partitioning of partitions.
const maxSpillLevel = 8

// spillSeeds hash keys at each level of partitioning, each with a seed of
// its own, so that the rows of one partition spread over the next level.
var spillSeeds = func() (seeds [maxSpillLevel + 1]maphash.Seed) {
	for i := range seeds {
		seeds[i] = maphash.MakeSeed()
	}
	return seeds
}()

// partitions are spillParts temporary files that rows go to by the hash
// of a key, at one level of partitioning.
type partitions struct {
	x     *ExecCtx
	level int
	files [spillParts]*spill.File
}

func newPartitions(x *ExecCtx, level int) *partitions {
	return &partitions{x: x, level: level}
}

// maphashPartition is the partition of key at a level.
func maphashPartition(level int, key []byte) uint64 {
	return maphash.Bytes(spillSeeds[level], key) % spillParts
}

// add writes row to the partition of key.
func (ps *partitions) add(key []byte, row []any) error {
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

// take flushes the partitions and hands over the files written, which
// the caller removes.
func (ps *partitions) take() ([]*spill.File, error) {
	files, err := ps.takeAll()
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

// takeAll is take that keeps the partitions' places: nil where no row
// went.
func (ps *partitions) takeAll() ([spillParts]*spill.File, error) {
	for _, f := range ps.files {
		if f == nil {
			continue
		}
		if err := f.Flush(); err != nil {
			ps.close()
			return [spillParts]*spill.File{}, err
		}
	}
	files := ps.files
	ps.files = [spillParts]*spill.File{}
	return files, nil
}

func (ps *partitions) close() {
	for i, f := range ps.files {
		if f != nil {
			f.Remove()
			ps.files[i] = nil
		}
	}
}

// partPair is a partition of each of two inputs whose rows meet by key
// (a hash join's sides, INTERSECT's and EXCEPT's), nil where an input has
// no rows; level is the partitioning that would split it further.
type partPair struct {
	right, left *spill.File
	level       int
}

func (p partPair) remove() {
	p.right.Remove()
	p.left.Remove()
}

// splitPair partitions a pair of partitions again, at the pair's level:
// right yields the right one's records, each its key and then the row,
// and the left one's are read from its file; both files are removed. A
// split that leaves every right record in one partition splits nothing,
// and that partition is not split again.
func splitPair(x *ExecCtx, right rowexec.RowIter, pair partPair) ([]partPair, error) {
	rps, lps := newPartitions(x, pair.level), newPartitions(x, pair.level)
	var counts [spillParts]int
	total := 0
	copyIn := func(it rowexec.RowIter, ps *partitions, count bool) error {
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
				counts[maphashPartition(pair.level, k)]++
				total++
			}
			if err := ps.add(k, rec); err != nil {
				return err
			}
		}
	}
	err := copyIn(right, rps, true)
	switch {
	case err == nil && pair.left != nil:
		err = copyIn(&spilledRows{f: pair.left}, lps, false)
	case pair.left != nil:
		pair.left.Remove()
	}
	var rf, lf [spillParts]*spill.File
	if err == nil {
		rf, err = rps.takeAll()
	}
	if err == nil {
		lf, err = lps.takeAll()
	}
	if err != nil {
		spill.RemoveAll(rf[:])
		rps.close()
		lps.close()
		return nil, err
	}
	var pairs []partPair
	for i := range spillParts {
		if rf[i] == nil && lf[i] == nil {
			continue
		}
		level := pair.level + 1
		if counts[i] == total {
			level = maxSpillLevel + 1 // no split: hold it
		}
		pairs = append(pairs, partPair{rf[i], lf[i], level})
	}
	return pairs, nil
}

// groupKey is the key of a row's group: the key encodings of its GROUP BY
// values, equal exactly when the values are.
func groupKey(buf []byte, ts []types.T, vals []any) []byte {
	for i, t := range ts {
		buf = types.AppendKey(buf, t, vals[i], false)
	}
	return buf
}

// aggregate groups the input rows and computes every aggregate call,
// by a hash table of the groups. The groups come out in the order of
// their first rows, while they fit in work_mem. Once they fill it, a row
// of a group the table has not goes to a partition, with its GROUP BY
// values in front, and the groups the table has keep taking their rows;
// after the input, those groups come out, and then each partition's,
// aggregated in turn the same way. Every row of a group is aggregated in
// one pass, in input order.
func (p *SelectPlan) aggregate(x *ExecCtx, it rowexec.RowIter) (rowexec.RowIter, error) {
	rows, parts, err := p.aggPass(x, it, 0)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return &rowexec.SliceIter{Rows: rows}, nil
	}
	var queue []spillPart
	for _, f := range parts {
		queue = append(queue, spillPart{f, 1})
	}
	return &rowexec.FuncIter{F: func() ([]any, error) {
		for len(rows) == 0 {
			if len(queue) == 0 {
				return nil, nil
			}
			next := queue[0]
			queue = queue[1:]
			var more []*spill.File
			rows, more, err = p.aggPass(x, &spilledRows{f: next.f}, next.level)
			if err != nil {
				return nil, err
			}
			// Deeper partitions first, so that few files are open at once.
			deeper := make([]spillPart, len(more))
			for i, f := range more {
				deeper[i] = spillPart{f, next.level + 1}
			}
			queue = append(deeper, queue...)
		}
		row := rows[0]
		rows[0], rows = nil, rows[1:]
		return row, nil
	}, Done: func() {
		for _, q := range queue {
			q.f.Remove()
		}
	}}, nil
}

// spillPart is a partition still to do, and the level of partitioning
// that would split it.
type spillPart struct {
	f     *spill.File
	level int
}

// spilledRows reads a partition's rows and removes the file at the end.
type spilledRows struct {
	f *spill.File
	r *spill.Reader
}

func (s *spilledRows) Next() ([]any, error) {
	if s.r == nil {
		s.r = s.f.Reader(0)
	}
	return s.r.Next()
}

func (s *spilledRows) Close() { s.f.Remove() }

// minGroupsToSpill is how many groups a pass holds before it spills, so
// that groups whose states alone pass work_mem do not make a level of
// partitions each.
const minGroupsToSpill = 8

// aggPass aggregates the rows of it, in a hash table within work_mem,
// and returns the rows of the groups it holds, and the partitions of the
// rows it could not take. At level 0, it reads input rows; deeper, a
// partition's, each its GROUP BY values and then the input row.
func (p *SelectPlan) aggPass(x *ExecCtx, it rowexec.RowIter, level int) ([][]any, []*spill.File, error) {
	defer it.Close()
	a := p.agg
	ng := len(a.groupExprs)
	type group struct {
		keys   []any
		states []*aggState
	}
	groups := make(map[string]*group)
	var order []*group
	newGroup := func(keys []any) *group {
		g := &group{keys: keys, states: make([]*aggState, len(a.calls))}
		for i, c := range a.calls {
			g.states[i] = newAggState(x, c)
		}
		order = append(order, g)
		return g
	}
	limit := x.WorkMem()
	var mem int64
	var parts *partitions
	fail := func(err error) ([][]any, []*spill.File, error) {
		if parts != nil {
			parts.close()
		}
		return nil, nil, err
	}
	var k []byte
	for {
		rec, err := it.Next()
		if err == nil {
			err = x.Canceled()
		}
		if err != nil {
			return fail(err)
		}
		if rec == nil {
			break
		}
		row, keys := rec, rec[:0:0]
		if level == 0 {
			keys = make([]any, ng)
			e := x.Env(row)
			for i, ge := range a.groupExprs {
				if keys[i], err = ge.Eval(e); err != nil {
					return fail(err)
				}
			}
		} else {
			keys, row = rec[:ng:ng], rec[ng:]
		}
		k = groupKey(k[:0], a.groupTypes[:a.keyed], keys)
		g := groups[string(k)]
		if g == nil {
			if parts != nil {
				if err := parts.add(k, append(keys, row...)); err != nil {
					return fail(err)
				}
				continue
			}
			g = newGroup(keys)
			groups[string(k)] = g
			mem += 2*int64(len(k)) + spill.RowSize(keys) + 64 + 96*int64(len(a.calls))
		}
		e := x.Env(row)
		for i, c := range a.calls {
			if c.filter != nil {
				if ok, err := c.filter.Eval(e); err != nil || !IsTrue(ok) {
					if err != nil {
						return fail(err)
					}
					continue
				}
			}
			vals := make([]any, len(c.args))
			for j, arg := range c.args {
				if vals[j], err = arg.Eval(e); err != nil {
					return fail(err)
				}
			}
			if err := g.states[i].add(vals); err != nil {
				return fail(err)
			}
			if c.holdsInputs() {
				mem += spill.RowSize(vals)
			}
		}
		if mem > limit && parts == nil && len(groups) >= minGroupsToSpill && level < maxSpillLevel {
			parts = newPartitions(x, level)
		}
	}
	if len(order) == 0 && ng == 0 && level == 0 {
		newGroup(nil) // aggregates over no rows still give one row
	}
	rows := make([][]any, len(order))
	for i, g := range order {
		row := append(make([]any, 0, len(g.keys)+len(g.states)), g.keys...)
		for _, st := range g.states {
			v, err := st.result(x)
			if err != nil {
				return fail(err)
			}
			row = append(row, v)
		}
		rows[i] = row
	}
	if parts == nil {
		return rows, nil, nil
	}
	files, err := parts.take()
	if err != nil {
		return nil, nil, err
	}
	return rows, files, nil
}

// holdsInputs reports whether the call's state grows with its inputs:
// it keeps them (ORDER BY, DISTINCT), or builds a value of them.
func (c *aggCall) holdsInputs() bool {
	return c.distinct || len(c.order) > 0 || c.agg != nil && c.agg.Holds
}
