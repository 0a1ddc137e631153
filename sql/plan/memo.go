package plan

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
)

// A correlated subquery runs once for each row of the query around it
// (PostgreSQL's SubPlan). Its result depends only on the values of the
// enclosing rows' columns it reads (its level's params), because a
// statement reads one snapshot: so a subquery that calls no volatile
// function may remember its results by those values, as PostgreSQL's
// Memoize does for a join's inner side. WHERE t2.a = t1.v over a column
// t1.v with few distinct values then runs the subquery once per value.
//
// The memory lives as long as an uncorrelated subquery's cached result
// would: one execution of the level whose WITH queries the subquery reads,
// or the statement. It is bounded, and gives up when the values rarely
// repeat, where remembering costs more than it saves.

const (
	memoMaxEntries = 1 << 16
	// After memoProbation lookups, a memo that has hit fewer than one in
	// memoMinHitRatio stops remembering.
	memoProbation   = 1024
	memoMinHitRatio = 8
)

type memoTable struct {
	results      map[string]any
	hits, misses int
	off          bool
	key          []byte // scratch
}

// memoized is resultFor with a memo of the results by the subquery's
// params and extra.
func (sq *subquery) memoized(e *Env, extra []any, f func(x *ExecCtx, it rowexec.RowIter) (any, error)) (any, error) {
	x := e.x.up(sq.lvl.depth - 1 - sq.lvl.anchor)
	m, _ := x.cache[sq].(*memoTable)
	if m == nil {
		m = &memoTable{results: make(map[string]any)}
		if x.cache == nil {
			x.cache = make(map[any]any)
		}
		x.cache[sq] = m
	}
	if m.off {
		return sq.run(e, f)
	}
	key, ok := m.keyOf(e, sq.lvl.params, extra)
	if !ok {
		return sq.run(e, f)
	}
	if v, ok := m.results[string(key)]; ok {
		m.hits++
		return v, nil
	}
	v, err := sq.run(e, f)
	if err != nil {
		return nil, err
	}
	m.misses++
	switch {
	case m.hits+m.misses >= memoProbation && m.hits*memoMinHitRatio < m.misses:
		m.off, m.results = true, nil
	case len(m.results) < memoMaxEntries:
		m.results[string(key)] = v
	}
	return v, nil
}

// keyOf encodes the values of params, read from the enclosing env e, and
// extra. It reports false for a value it cannot encode exactly.
func (m *memoTable) keyOf(e *Env, params []outerParam, extra []any) ([]byte, bool) {
	k := m.key[:0]
	ok := true
	for _, p := range params {
		ee := e
		for h := p.hops; h > 0; h-- {
			ee = ee.x.outer
		}
		if k, ok = appendMemoKey(k, ee.Row[p.idx]); !ok {
			return nil, false
		}
	}
	for _, v := range extra {
		if k, ok = appendMemoKey(k, v); !ok {
			return nil, false
		}
	}
	m.key = k
	return k, true
}

// appendMemoKey appends an encoding of v that tells apart every two
// values a query could tell apart: numerics of different scales (1.0 and
// 1.00), float zeros of different signs, times in different zones. It
// reports false for kinds of value it does not encode.
func appendMemoKey(k []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(k, 0), true
	case bool:
		if v {
			return append(k, 1, 1), true
		}
		return append(k, 1, 0), true
	case int64:
		return binary.BigEndian.AppendUint64(append(k, 2), uint64(v)), true
	case float64:
		return binary.BigEndian.AppendUint64(append(k, 3), math.Float64bits(v)), true
	case string:
		return append(binary.AppendUvarint(append(k, 4), uint64(len(v))), v...), true
	case []byte:
		return append(binary.AppendUvarint(append(k, 5), uint64(len(v))), v...), true
	case *apd.Decimal:
		s := v.String()
		return append(binary.AppendUvarint(append(k, 6), uint64(len(s))), s...), true
	case time.Time:
		b, err := v.MarshalBinary()
		if err != nil {
			return nil, false
		}
		return append(binary.AppendUvarint(append(k, 7), uint64(len(b))), b...), true
	case types.Interval:
		k = binary.BigEndian.AppendUint64(append(k, 8), uint64(v.Micros))
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(k, uint32(v.Days)), uint32(v.Months)), true
	}
	return nil, false
}
