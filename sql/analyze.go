package sql

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/types"
)

// ANALYZE: per-table row counts and per-column statistics, as PostgreSQL
// keeps them (pg_class.reltuples, pg_stats), for the planner's estimates.
// ANALYZE reads every row, keeping a uniform sample of analyzeSample of
// them (reservoir sampling), as PostgreSQL samples 300 × its default
// statistics target; the statistics are the sample's, scaled to the
// table. They are stored in the table's descriptor, so they commit (or
// roll back) with the transaction that ran ANALYZE, and survive restarts.

// analyzeSample is the number of rows ANALYZE keeps per table.
const analyzeSample = 30000

// Caps of a column's statistics: PostgreSQL's default_statistics_target.
const (
	maxMCV    = 100
	maxBounds = 101
)

// analyze runs ANALYZE [table, ...]: the tables named, or every table of
// the database the session can see.
func (s *Session) analyze(ctx context.Context, cmd *parser.Vacuum) error {
	cat := s.catalog()
	var tables []*catalog.Table
	if len(cmd.Tables) == 0 {
		for _, t := range cat.Tables() {
			if isTemp(cat, t.Schema) && cat.SchemaName(t.Schema) != s.tempSchemaName() {
				continue // another session's
			}
			if !t.Unpopulated {
				tables = append(tables, t)
			}
		}
	}
	for _, name := range cmd.Tables {
		q, err := s.lookName(name)
		if err != nil {
			return err
		}
		t := cat.TableByName[q]
		switch {
		case t != nil:
			tables = append(tables, t)
		case cat.ViewByName[q] != nil || cat.SequenceByName[q] != nil:
			s.warning(pgerr.Warning, "skipping %q --- cannot analyze non-tables or special system tables", q.Name)
		default:
			return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
		}
	}
	if len(tables) == 0 {
		return nil
	}
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		nt := t.Clone()
		if err := s.gatherStats(ctx, nt); err != nil {
			return err
		}
		if err := d.PutTable(ctx, nt); err != nil {
			return err
		}
	}
	return nil
}

// gatherStats reads t's rows and sets t.Stats and its columns' Stats.
func (s *Session) gatherStats(ctx context.Context, t *catalog.Table) error {
	x := &plan.ExecCtx{Ctx: ctx, Host: s.host(), Tx: s.tx}
	it, err := (&plan.TableScan{Table: t, Access: plan.Access{Kind: "seq"}}).Open(x)
	if err != nil {
		return err
	}
	defer it.Close()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(t.ID)))
	var sample [][]any
	var seen int64
	for {
		row, err := it.Next()
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
		seen++
		switch {
		case len(sample) < analyzeSample:
			sample = append(sample, row)
		default:
			// Algorithm R: the seen-th row replaces a kept one with
			// probability analyzeSample/seen.
			if j := rng.Int64N(seen); j < analyzeSample {
				sample[j] = row
			}
		}
	}
	width := 24 // a row's header, as PostgreSQL's heap tuples have
	for i, c := range t.Columns {
		c.Stats = nil
		if !c.Visible() {
			continue
		}
		c.Stats = columnStats(c.Type, sample, i, float64(seen))
		width += c.Stats.AvgWidth
	}
	t.Stats = &catalog.TableStats{Rows: float64(seen), Pages: int(math.Ceil(float64(seen) * float64(width) / 8192))}
	return nil
}

// columnStats computes column col's statistics from sample, a sample of
// a table of rows rows.
func columnStats(t types.T, sample [][]any, col int, rows float64) *catalog.ColumnStats {
	cs := &catalog.ColumnStats{}
	n := len(sample)
	if n == 0 {
		return cs
	}
	type value struct {
		v    any
		text string
		pos  int // in the sample's order, which is the table's
	}
	counts := make(map[string]int)
	var values []value
	var buf []byte
	var widths int
	fixed := 0
	if in, ok := types.Lookup(t.Oid); ok && in.Len > 0 {
		fixed = int(in.Len)
	}
	for i, row := range sample {
		v := row[col]
		if v == nil {
			continue
		}
		buf = types.AppendText(buf[:0], t, v, time.UTC)
		text := string(buf)
		counts[text]++
		values = append(values, value{v, text, i})
		if fixed > 0 {
			widths += fixed
		} else {
			widths += len(text) + 1
		}
	}
	nonNull := len(values)
	cs.NullFrac = float64(n-nonNull) / float64(n)
	if nonNull == 0 {
		return cs
	}
	cs.AvgWidth = widths / nonNull
	d := float64(len(counts))
	f1 := 0.0
	for _, c := range counts {
		if c == 1 {
			f1++
		}
	}
	// Haas and Stokes' estimator of the distinct values in the table, as
	// PostgreSQL's analyze uses; the sample's count when it holds every row.
	total := rows * (1 - cs.NullFrac)
	nd := d
	if float64(nonNull) < total {
		m := float64(nonNull)
		nd = m * d / (m - f1 + f1*m/total)
		nd = min(max(nd, d), total)
	}
	switch {
	case f1 == float64(nonNull):
		// Every value unique: a key, whose distinct values grow with
		// the table. PostgreSQL works this out in float4.
		cs.NDistinct = -float64(1 - float32(cs.NullFrac))
	case nd > 0.1*rows:
		cs.NDistinct = -nd / rows
	default:
		cs.NDistinct = math.Round(nd)
	}
	// The most common values: all of them if they fit and the sample saw
	// each more than once (or saw every row); else those well above the
	// average frequency.
	type vc struct {
		text  string
		count int
	}
	var common []vc
	for text, c := range counts {
		common = append(common, vc{text, c})
	}
	slices.SortFunc(common, func(a, b vc) int {
		return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.text, b.text))
	})
	all := len(common) <= maxMCV && (float64(nonNull) >= total || common[len(common)-1].count > 1)
	avg := float64(nonNull) / d
	inMCV := make(map[string]bool)
	for _, c := range common {
		if len(cs.MCV) == maxMCV || (!all && (c.count < 2 || float64(c.count) < 1.25*avg)) {
			break
		}
		cs.MCV = append(cs.MCV, c.text)
		cs.MCF = append(cs.MCF, float64(c.count)/float64(n))
		inMCV[c.text] = true
	}
	if !orderable(t) {
		return cs
	}
	// Correlation of the values' order with the rows' physical order.
	sorted := slices.Clone(values)
	slices.SortStableFunc(sorted, func(a, b value) int { return types.Compare(t, a.v, b.v) })
	if len(sorted) > 1 {
		var sxy, sx, sy, sxx, syy float64
		for rank, v := range sorted {
			xf, yf := float64(v.pos), float64(rank)
			sx, sy, sxy, sxx, syy = sx+xf, sy+yf, sxy+xf*yf, sxx+xf*xf, syy+yf*yf
		}
		k := float64(len(sorted))
		den := math.Sqrt((k*sxx - sx*sx) * (k*syy - sy*sy))
		if den > 0 {
			r := (k*sxy - sx*sy) / den
			cs.Correlation = &r
		}
	}
	// The histogram of the rest: bounds that split them evenly.
	var rest []value
	for _, v := range sorted {
		if !inMCV[v.text] {
			rest = append(rest, v)
		}
	}
	if len(rest) >= 2 && !all {
		nb := min(maxBounds, len(rest))
		for i := range nb {
			cs.Bounds = append(cs.Bounds, rest[i*(len(rest)-1)/(nb-1)].text)
		}
		cs.Bounds = slices.Compact(cs.Bounds)
	}
	return cs
}

// orderable reports whether values of t sort as the planner's range
// estimates need: numbers, strings, times.
func orderable(t types.T) bool {
	switch t.Oid {
	case types.OidInt2, types.OidInt4, types.OidInt8, types.OidFloat4, types.OidFloat8, types.OidNumeric,
		types.OidText, types.OidVarchar, types.OidBpchar, types.OidDate, types.OidTimestamp, types.OidTimestamptz,
		types.OidTime, types.OidInterval, types.OidUUID, types.OidBool:
		return true
	}
	return false
}
