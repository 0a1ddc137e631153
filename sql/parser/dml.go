package parser

import (
	"fmt"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"slices"
)

// dml parses INSERT, UPDATE and DELETE.
func (p *stmtParser) dml() error {
	seq, err := p.buildTree(p.toks)
	if err != nil {
		return err
	}
	if err := p.noNestedDML(seq); err != nil {
		return err
	}
	return p.dmlTree(seq, 0)
}

func isInsert(n ast.StmtNode) bool { _, ok := n.(*ast.InsertStmt); return ok }
func isUpdate(n ast.StmtNode) bool { _, ok := n.(*ast.UpdateStmt); return ok }
func isDelete(n ast.StmtNode) bool { _, ok := n.(*ast.DeleteStmt); return ok }

// dmlTree parses the INSERT, UPDATE or DELETE at seq[main], which a WITH
// clause may precede. RETURNING and ON CONFLICT, which TiDB lacks, are cut
// off and parsed on their own.
func (p *stmtParser) dmlTree(seq []item, main int) error {
	if main > 0 && isWord(seq[main], "insert") {
		// TiDB's INSERT takes no WITH clause: TiDB parses it as that of
		// a SELECT, and the planner takes it from Statement.With.
		t := tokOf(seq[main])
		with := append(slices.Clip(seq[:main]), &synth{anchor: t, space: true, parts: []any{"SELECT 1"}})
		items, err := p.rewrite(with)
		if err != nil {
			return err
		}
		n, err := p.tidb(items, isQuery)
		if err != nil {
			return err
		}
		sel, ok := n.(*ast.SelectStmt)
		if !ok || sel.With == nil {
			return p.syntaxError(&p.toks[0])
		}
		p.st.With = sel.With
		seq, main = seq[main:], 0
	}
	var returning, conflict []item
	for i := main; i < len(seq); i++ {
		if isWord(seq[i], "returning") {
			returning = seq[i:]
			seq = seq[:i]
			break
		}
	}
	if isWord(seq[main], "insert") {
		for i := main; i < len(seq); i++ {
			if wordsAt(seq, i, "on", "conflict") {
				conflict = seq[i:]
				seq = seq[:i]
				break
			}
		}
	}
	items, kind, err := p.dmlItems(seq, main)
	if err != nil {
		return err
	}
	if err := p.finish(items, kind); err != nil {
		return err
	}
	if conflict != nil {
		if err := p.onConflict(seq, main, conflict); err != nil {
			return err
		}
	}
	if returning != nil {
		return p.returning(returning)
	}
	return nil
}

// dmlItems rewrites an INSERT, UPDATE or DELETE without RETURNING or ON
// CONFLICT.
func (p *stmtParser) dmlItems(seq []item, main int) ([]item, stmtKind, error) {
	verb := tokOf(seq[main])
	var kind stmtKind
	i := main + 1
	switch verb.val {
	case "insert":
		kind = isInsert
		if !isWord(at(seq, i), "into") {
			return nil, nil, p.errorAt(seq, i)
		}
		if i = skipNameAt(seq, i+1); i < 0 {
			return nil, nil, p.errorAt(seq, main+2)
		}
		if isWord(at(seq, i), "as") {
			// TiDB's INSERT has no alias; the planner takes it from here.
			if !isName(at(seq, i+1)) {
				return nil, nil, p.errorAt(seq, i+1)
			}
			p.st.InsertAlias = tokOf(seq[i+1]).val
			seq = append(seq[:i:i], seq[i+2:]...)
		}
		cols := parenGroup(at(seq, i)) != nil && !isWord(at(parenGroup(at(seq, i)).kids, 0), "select", "values", "with")
		if cols {
			i++
		}
		if isWord(at(seq, i), "overriding") {
			switch {
			case wordsAt(seq, i, "overriding", "system", "value"):
				p.st.Overriding = OverridingSystem
			case wordsAt(seq, i, "overriding", "user", "value"):
				p.st.Overriding = OverridingUser
			default:
				return nil, nil, p.errorAt(seq, min(i+2, len(seq)))
			}
			seq = append(seq[:i:i], seq[i+3:]...)
		}
		switch {
		case wordsAt(seq, i, "default", "values") && !cols && i+2 == len(seq):
			t := tokOf(seq[i])
			seq = append(seq[:i:i], &synth{anchor: t, space: t.space, parts: []any{"() VALUES ()"}})
		case !isWord(at(seq, i), "values", "select", "with", "table") && parenGroup(at(seq, i)) == nil:
			// MySQL's INSERT ... SET, say.
			return nil, nil, p.errorAt(seq, i)
		}
		if isWord(at(seq, i), "values") {
			// TiDB takes VALUES () for a row of defaults; PostgreSQL does not.
			for j := i + 1; j < len(seq); j += 2 {
				g := parenGroup(seq[j])
				if g == nil {
					break
				}
				if len(g.kids) == 0 {
					return nil, nil, p.syntaxError(g.close)
				}
				if !isPunct(at(seq, j+1), ",") {
					break
				}
			}
		}
		for j := i; j < len(seq); j++ {
			if wordsAt(seq, j, "on", "duplicate") {
				return nil, nil, p.syntaxError(tokOf(seq[j+1]))
			}
		}
	case "update":
		kind = isUpdate
		seq, i = stripOnly(seq, i)
		if i = skipAlias(seq, skipNameAt(seq, i), "set"); i < 0 || !isWord(at(seq, i), "set") {
			// MySQL's multiple-table UPDATE, say.
			return nil, nil, p.errorAt(seq, max(i, main+1))
		}
		var err error
		if seq, err = p.multiAssign(seq, i+1); err != nil {
			return nil, nil, err
		}
		for j := i; j < len(seq); j++ {
			switch {
			case isWord(seq[j], "from") && !isWord(seq[j-1], "distinct"):
				// UPDATE t SET ... FROM items WHERE ... is TiDB's
				// multiple-table UPDATE t, items SET ... WHERE ...; the
				// planner takes the first table as the target.
				w := j + 1
				for w < len(seq) && !isWord(seq[w], "where") {
					w++
				}
				if w == j+1 {
					return nil, nil, p.errorAt(seq, w)
				}
				out := append(append([]item(nil), seq[:i]...), comma(seq[j+1]))
				out = append(append(out, seq[j+1:w]...), seq[i:j]...)
				seq = append(out, seq[w:]...)
				j = len(seq)
			case wordsAt(seq, j, "where", "current", "of"):
				return nil, nil, p.unsupported(tokOf(seq[j]), "WHERE CURRENT OF is not supported")
			case isWord(seq[j], "order", "limit"):
				return nil, nil, p.syntaxError(tokOf(seq[j]))
			}
		}
	case "delete":
		kind = isDelete
		if !isWord(at(seq, i), "from") {
			return nil, nil, p.errorAt(seq, i)
		}
		seq, i = stripOnly(seq, i+1)
		if i = skipAlias(seq, skipNameAt(seq, i), "where", "using"); i < 0 {
			return nil, nil, p.errorAt(seq, main+2)
		}
		switch {
		case isWord(at(seq, i), "using"):
			// DELETE FROM t [AS] a USING items is TiDB's multiple-table
			// DELETE FROM a USING t AS a, items; the planner takes the
			// first table as the target.
			from := main + 1
			target := seq[from+1 : i]
			name := target[len(target)-1]
			if len(target) == 1 || isPunct(target[len(target)-2], ".") {
				name = &synth{anchor: firstTok(target[0]), space: true, parts: []any{quoteIdent(tokOf(name).val)}}
			}
			if isWord(at(target, len(target)-2), "as") {
				target = target[:len(target)-2]
			} else if len(target) > 1 && !isPunct(target[len(target)-2], ".") {
				target = target[:len(target)-1]
			}
			out := append(append([]item(nil), seq[:from+1]...), name, seq[i])
			out = append(out, target...)
			out = append(out, &synth{anchor: tokOf(seq[i]), space: true, parts: []any{"AS ", name, ","}})
			seq = append(out, seq[i+1:]...)
			i = len(seq)
		case wordsAt(seq, i, "where", "current", "of"):
			return nil, nil, p.unsupported(tokOf(seq[i]), "WHERE CURRENT OF is not supported")
		case i < len(seq) && !isWord(seq[i], "where"):
			return nil, nil, p.errorAt(seq, i)
		}
		for j := i; j < len(seq); j++ {
			if isWord(seq[j], "order", "limit") {
				return nil, nil, p.syntaxError(tokOf(seq[j]))
			}
		}
	}
	items, err := p.rewrite(seq)
	return items, kind, err
}

// multiAssign rewrites the SET (a, b) = (x, y), or = ROW(x, y), of UPDATE
// and ON CONFLICT DO UPDATE, whose list starts at seq[i], into a = x,
// b = y, which TiDB reads; (a, b) = (SELECT ...) becomes one
// epochdb_rowfield per column.
func (p *stmtParser) multiAssign(seq []item, i int) ([]item, error) {
	out := append([]item(nil), seq[:i]...)
	for i < len(seq) {
		cols := parenGroup(seq[i])
		if cols == nil || !isOp(at(seq, i+1), "=") {
			// An ordinary assignment, or the end of the list: copy up to
			// the next top-level comma.
			for i < len(seq) && !isPunct(seq[i], ",") && !isWord(seq[i], "from", "where", "returning") {
				out = append(out, seq[i])
				i++
			}
			if i < len(seq) && isPunct(seq[i], ",") {
				out = append(out, seq[i])
				i++
				continue
			}
			return append(out, seq[i:]...), nil
		}
		j := i + 2
		if isWord(at(seq, j), "row") {
			j++
		}
		vals := parenGroup(at(seq, j))
		if vals == nil {
			return nil, p.errorAt(seq, j)
		}
		names, exprs := splitCommas(cols.kids), splitCommas(vals.kids)
		if isWord(at(vals.kids, 0), "select", "with", "values") && !isWord(seq[i+2], "row") {
			// (a, b) = (SELECT ...): each column reads its field of the
			// subquery's row, which the planner runs once per row for all
			// of them (epochdb_rowfield's key is the subquery's offset).
			key := vals.open.pos
			for n, name := range names {
				if len(name) != 1 || !isName(name[0]) {
					return nil, p.errorAt(name, 0, cols.close)
				}
				if n > 0 {
					out = append(out, comma(name[0]))
				}
				eq := tokOf(seq[i+1])
				out = append(out, name[0], &synth{anchor: eq, space: true, parts: []any{
					"= epochdb_rowfield(", vals, fmt.Sprintf(", %d, %d, %d)", n, key, len(names))}})
			}
			i = j + 1
			if i < len(seq) && isPunct(seq[i], ",") {
				out = append(out, seq[i])
				i++
			}
			continue
		}
		if len(exprs) == 1 && !isWord(seq[i+2], "row") {
			return nil, p.unsupported(vals.open, "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression")
		}
		if len(names) != len(exprs) {
			return nil, p.syntaxMsg(tokOf(seq[i+1]), "number of columns does not match number of values")
		}
		for n, name := range names {
			if n > 0 {
				out = append(out, comma(name[0]))
			}
			if len(name) != 1 || !isName(name[0]) {
				return nil, p.errorAt(name, 0, cols.close)
			}
			if len(exprs[n]) == 0 {
				return nil, p.errorAt(vals.kids, 0, vals.close)
			}
			eq := tokOf(seq[i+1])
			out = append(out, name[0], &synth{anchor: eq, space: true, parts: []any{"="}})
			if isWord(at(exprs[n], 0), "default") && len(exprs[n]) == 1 {
				out = append(out, exprs[n]...)
			} else {
				out = append(out, &synth{anchor: firstTok(exprs[n][0]), space: true, parts: []any{"(", exprs[n], ")"}})
			}
		}
		i = j + 1
	}
	return out, nil
}

// stripOnly drops ONLY before a table name and * after it: epochdb tables
// have no inheritance children to include or exclude.
func stripOnly(seq []item, i int) ([]item, int) {
	if isWord(at(seq, i), "only") {
		seq = append(seq[:i:i], seq[i+1:]...)
	}
	if j := skipNameAt(seq, i); j > 0 && isOp(at(seq, j), "*") {
		seq = append(seq[:j:j], seq[j+1:]...)
	}
	return seq, i
}

// skipAlias returns the index after an optional [AS] alias at seq[i],
// which cannot be one of the words that may follow it. A negative i passes
// through.
func skipAlias(seq []item, i int, follow ...string) int {
	switch {
	case i < 0:
	case isWord(at(seq, i), "as") && isColID(at(seq, i+1)):
		i += 2
	case isColID(at(seq, i)) && !isWord(at(seq, i), follow...):
		i++
	}
	return i
}

func skipNameAt(seq []item, i int) int {
	if !isName(at(seq, i)) {
		return -1
	}
	i++
	for isPunct(at(seq, i), ".") && isName(at(seq, i+1)) {
		i += 2
	}
	return i
}

// returning parses RETURNING's list as a SELECT list.
func (p *stmtParser) returning(seq []item) error {
	t := tokOf(seq[0])
	if len(seq) == 1 {
		return p.syntaxErrorAtEnd()
	}
	for _, it := range seq[1:] {
		if isWord(it, "from", "where", "group", "having", "window", "order", "limit", "offset", "fetch",
			"for", "union", "intersect", "except", "into") {
			return p.syntaxError(tokOf(it))
		}
	}
	items := append([]item{&synth{anchor: t, space: t.space, parts: []any{"SELECT"}}}, seq[1:]...)
	items, err := p.rewrite(items)
	if err != nil {
		return err
	}
	n, err := p.tidb(items, func(n ast.StmtNode) bool {
		s, ok := n.(*ast.SelectStmt)
		return ok && s.From == nil && s.Where == nil && s.GroupBy == nil && s.Having == nil &&
			s.OrderBy == nil && s.Limit == nil && s.LockInfo == nil && s.WindowSpecs == nil && !s.Distinct
	})
	if err != nil {
		return err
	}
	p.st.Returning = n.(*ast.SelectStmt).Fields
	return nil
}

// onConflict parses ON CONFLICT [(columns)] DO NOTHING | DO UPDATE SET ...
// [WHERE ...]. The SET list and WHERE are parsed by TiDB as an UPDATE of
// the insert's table.
func (p *stmtParser) onConflict(insert []item, main int, seq []item) error {
	oc := &OnConflict{}
	i := 2
	if g := parenGroup(at(seq, i)); g != nil {
		for _, col := range splitCommas(g.kids) {
			if len(col) == 1 && isName(col[0]) {
				oc.Columns = append(oc.Columns, tokOf(col[0]).val)
				continue
			}
			// An index expression, read as a query's select list.
			if len(col) == 0 {
				return p.errorAt(g.kids, 0, g.close)
			}
			stmts, err := Parse("SELECT " + p.q[firstTok(col[0]).pos:itemEnd(col[len(col)-1])])
			if err != nil {
				return err
			}
			sel, ok := stmts[0].AST.(*ast.SelectStmt)
			if !ok || len(stmts) != 1 || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.From != nil {
				return p.errorAt(col, 0)
			}
			if oc.Exprs == nil {
				oc.Exprs = make([]ast.ExprNode, len(oc.Columns), len(oc.Columns)+1)
			}
			oc.Columns = append(oc.Columns, "")
			oc.Exprs = append(oc.Exprs, sel.Fields.Fields[0].Expr)
		}
		i++
		if isWord(at(seq, i), "where") {
			return p.unsupported(tokOf(seq[i]), "ON CONFLICT ... WHERE is not supported")
		}
	} else if wordsAt(seq, i, "on", "constraint") {
		return p.unsupported(tokOf(seq[i]), "ON CONFLICT ON CONSTRAINT is not supported")
	}
	if !isWord(at(seq, i), "do") {
		return p.errorAt(seq, i)
	}
	i++
	switch {
	case isWord(at(seq, i), "nothing") && i+1 == len(seq):
		oc.DoNothing = true
	case wordsAt(seq, i, "update", "set"):
		if oc.Columns == nil {
			return p.syntaxMsg(tokOf(seq[0]), "ON CONFLICT DO UPDATE requires inference specification or constraint name")
		}
		// UPDATE <the insert's table> SET ... [WHERE ...]
		nameEnd := skipNameAt(insert, main+2)
		items := append([]item{seq[i]}, insert[main+2:nameEnd]...)
		items = append(items, seq[i+1:]...)
		items, err := p.multiAssign(items, 2+nameEnd-(main+2))
		if err != nil {
			return err
		}
		if items, err = p.rewrite(items); err != nil {
			return err
		}
		n, err := p.tidb(items, isUpdate)
		if err != nil {
			return err
		}
		u := n.(*ast.UpdateStmt)
		oc.Set, oc.Where = u.List, u.Where
	case isWord(at(seq, i), "nothing"):
		return p.errorAt(seq, i+1)
	default:
		return p.errorAt(seq, i)
	}
	p.st.OnConflict = oc
	return nil
}
