package plan

import (
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/spill"
)

// Grouping past work_mem: a hash table of the groups, whose rows spill to
// rowexec's Partitions when it is full (see sql/rowexec's hashspill.go).

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
			rows, more, err = p.aggPass(x, &rowexec.SpilledRows{File: next.f}, next.level)
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
	var parts *rowexec.Partitions
	fail := func(err error) ([][]any, []*spill.File, error) {
		if parts != nil {
			parts.Close()
		}
		return nil, nil, err
	}
	var k []byte
	var env *Env
	// args holds one call's inputs for one row: the states copy what
	// they keep.
	args := make([][]any, len(a.calls))
	for i, c := range a.calls {
		args[i] = make([]any, len(c.args))
	}
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
			e := x.envAt(&env, row)
			for i, ge := range a.groupExprs {
				if keys[i], err = ge.Eval(e); err != nil {
					return fail(err)
				}
			}
		} else {
			keys, row = rec[:ng:ng], rec[ng:]
		}
		k = rowexec.GroupKey(k[:0], a.groupTypes[:a.keyed], keys)
		g := groups[string(k)]
		if g == nil {
			if parts != nil {
				if err := parts.Add(k, append(keys, row...)); err != nil {
					return fail(err)
				}
				continue
			}
			g = newGroup(keys)
			groups[string(k)] = g
			mem += 2*int64(len(k)) + spill.RowSize(keys) + 64 + 96*int64(len(a.calls))
		}
		e := x.envAt(&env, row)
		for i, c := range a.calls {
			if c.filter != nil {
				if ok, err := c.filter.Eval(e); err != nil || !IsTrue(ok) {
					if err != nil {
						return fail(err)
					}
					continue
				}
			}
			vals := args[i]
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
		if mem > limit && parts == nil && len(groups) >= minGroupsToSpill && level < rowexec.MaxSpillLevel {
			parts = rowexec.NewPartitions(x, level)
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
	files, err := parts.Take()
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
