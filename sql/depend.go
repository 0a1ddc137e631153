package sql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/pgcatalog"

	"github.com/epochdb/epochdb/sql/plan"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Dependencies, as pg_depend records them in PostgreSQL: what a DROP
// must refuse to orphan, or with CASCADE take along.
//
//   - A view depends on the relations it reads (View.Deps), views too.
//   - A foreign key depends on the table it references, and on the index
//     that holds that table's keys.
//   - A column default that calls nextval('s') depends on s.
//
// A DROP without CASCADE fails naming every dependent, in its DETAIL as
// PostgreSQL words it. With CASCADE the dependents go too: views are
// dropped, and foreign keys and defaults are removed from their tables,
// which stay. A NOTICE lists what went.

// dependent is one object that depends on what a DROP removes.
type dependent struct {
	view    *catalog.View
	matView *catalog.Table       // a materialized view
	table   *catalog.Table       // the table of fk, def or col
	fk      *catalog.ForeignKey  // a foreign key of table
	def     *catalog.TableColumn // a column of table whose default calls nextval
	col     *catalog.TableColumn // a generated column of table, which its caller drops
	trigger *catalog.Trigger     // a trigger of table or of triggerOf, on the function it calls
	// triggerOf is the view whose trigger trigger is.
	triggerOf *catalog.View
	fn        *catalog.Function // a function that returns a table's rows
	on        string            // what it depends on: "table cp", "view cv"
	onID      uint32            // and its id
}

func (d dependent) String() string {
	switch {
	case d.view != nil:
		return "view " + d.view.Name
	case d.matView != nil:
		return "materialized view " + d.matView.Name
	case d.fk != nil:
		return fmt.Sprintf("constraint %s on table %s", d.fk.Name, d.table.Name)
	case d.col != nil:
		return fmt.Sprintf("column %s of table %s", d.col.Name, d.table.Name)
	case d.trigger != nil && d.triggerOf != nil:
		return fmt.Sprintf("trigger %s on view %s", d.trigger.Name, d.triggerOf.Name)
	case d.trigger != nil:
		return fmt.Sprintf("trigger %s on table %s", d.trigger.Name, d.table.Name)
	case d.fn != nil:
		return d.fn.KindName() + " " + routineSignature(d.fn)
	}
	return fmt.Sprintf("default value for column %s of table %s", d.def.Name, d.table.Name)
}

// dropTarget is a relation a DROP removes: its kind and name as errors
// name it, its id, and for an index, the index itself.
type dropTarget struct {
	kind, name string
	id         uint32
	table      *catalog.Table // of an index
	index      *catalog.Index
}

// dependents lists what depends on target, directly or through views,
// leaving out what the statement drops anyway: the tables and views whose
// ids are in dropping, and what belongs to them. A table's own sequences
// go with it, so what depends on them counts as depending on the table.
func (s *Session) dependents(cat *catalog.Catalog, target dropTarget, dropping []uint32) []dependent {
	var out []dependent
	type gone struct {
		id   uint32
		desc string
	}
	queue := []gone{{target.id, target.kind + " " + target.name}}
	if target.kind == "table" {
		for _, seq := range cat.Sequences() {
			if seq.Owner == target.id {
				queue = append(queue, gone{seq.ID, "sequence " + seq.Name})
			}
		}
	}
	seen := map[uint32]bool{}
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		if seen[g.id] {
			continue
		}
		seen[g.id] = true
		for _, t := range cat.Tables() {
			if slices.Contains(dropping, t.ID) {
				continue
			}
			if t.IsMatView() && slices.Contains(t.Deps, g.id) && !seen[t.ID] {
				out = append(out, dependent{matView: t, on: g.desc, onID: g.id})
				queue = append(queue, gone{t.ID, "materialized view " + t.Name})
			}
			for _, fk := range t.ForeignKeys {
				refIndex := target.index != nil && g.id == target.id && fk.RefTable == target.table.ID && fk.RefIndex == target.index.ID
				if refIndex || target.index == nil && fk.RefTable == g.id && t.ID != g.id {
					out = append(out, dependent{table: t, fk: fk, on: g.desc, onID: g.id})
				}
			}
			for _, col := range t.Columns {
				if !col.Dropped && col.Default != "" && s.defaultCalls(col, g.id) {
					out = append(out, dependent{table: t, def: col, on: g.desc, onID: g.id})
				}
			}
			for _, tg := range byOID(t.Triggers) {
				if tg.Function == g.id {
					out = append(out, dependent{table: t, trigger: tg, on: g.desc, onID: g.id})
				}
			}
		}
		for _, f := range cat.Functions() {
			if f.ReturnsRow == g.id && !slices.Contains(dropping, f.ID) {
				out = append(out, dependent{fn: f, on: "type " + strings.TrimPrefix(g.desc, "table "), onID: g.id})
			}
		}
		for _, v := range cat.Views() {
			for _, tg := range byOID(v.Triggers) {
				if tg.Function == g.id && !slices.Contains(dropping, v.ID) {
					out = append(out, dependent{triggerOf: v, trigger: tg, on: g.desc, onID: g.id})
				}
			}
		}
		for _, v := range cat.Views() {
			if slices.Contains(v.Deps, g.id) && !seen[v.ID] && !slices.Contains(dropping, v.ID) {
				out = append(out, dependent{view: v, on: g.desc, onID: g.id})
				queue = append(queue, gone{v.ID, "view " + v.Name})
			}
		}
	}
	return out
}

// defaultCalls reports whether col's default calls nextval (or currval,
// or setval) of the sequence id.
func (s *Session) defaultCalls(col *catalog.TableColumn, id uint32) bool {
	n, err := plan.ParseExpr(col.Default)
	if err != nil {
		return false
	}
	f := &nextvalFinder{}
	n.Accept(f)
	for _, name := range f.names {
		if r, err := pgcatalog.RegByName(s.host(), types.Regclass, name); err == nil && uint32(r.Oid) == id {
			return true
		}
	}
	return false
}

// nextvalFinder collects the sequence names that nextval calls are given.
type nextvalFinder struct{ names []string }

func (f *nextvalFinder) Enter(n ast.Node) (ast.Node, bool) {
	call, ok := n.(*ast.FuncCallExpr)
	if !ok || len(call.Args) == 0 {
		return n, false
	}
	switch call.FnName.L {
	case "nextval", "currval", "setval":
	default:
		return n, false
	}
	lit := &literalFinder{}
	call.Args[0].Accept(lit)
	if lit.found {
		f.names = append(f.names, lit.s)
	}
	return n, true
}

func (f *nextvalFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// literalFinder finds the first string literal, within casts.
type literalFinder struct {
	s     string
	found bool
}

func (f *literalFinder) Enter(n ast.Node) (ast.Node, bool) {
	if v, ok := n.(*driver.ValueExpr); ok && !f.found {
		if s, ok := v.GetValue().(string); ok {
			f.s, f.found = s, true
		}
	}
	return n, f.found
}

func (f *literalFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// checkDependents fails a DROP of targets without CASCADE if anything
// depends on them, and with CASCADE returns what must go with them.
// dropping holds the ids of the targets that are tables or views.
func (s *Session) checkDependents(cat *catalog.Catalog, targets []dropTarget, dropping []uint32, cascade bool) ([]dependent, error) {
	var deps []dependent
	for _, target := range targets {
		deps = addDependents(deps, s.dependents(cat, target, dropping))
	}
	if len(deps) == 0 || cascade {
		return deps, nil
	}
	what := "desired object(s)"
	if len(targets) == 1 {
		what = targets[0].kind + " " + targets[0].name
	}
	return nil, errDependents(what, len(targets) > 1, deps)
}

// addDependents adds to deps those of more it lacks.
func addDependents(deps, more []dependent) []dependent {
	for _, dep := range more {
		if !slices.ContainsFunc(deps, func(o dependent) bool { return o.String() == dep.String() }) {
			deps = append(deps, dep)
		}
	}
	return deps
}

// errDependents is the error of a DROP of what, without CASCADE, that
// deps depend on, listed as PostgreSQL lists them.
func errDependents(what string, plural bool, deps []dependent) error {
	return errDependentLines(what, plural, dependentLines(deps))
}

// dependentLines are deps as a DETAIL lists them.
func dependentLines(deps []dependent) []string {
	lines := make([]string, len(deps))
	for i, d := range deps {
		lines[i] = d.String() + " depends on " + d.on
	}
	return lines
}

// errDependentLines is errDependents with the DETAIL's lines given.
func errDependentLines(what string, plural bool, lines []string) error {
	msg := "cannot drop %s because other objects depend on it"
	if plural {
		msg = "cannot drop %s because other objects depend on them"
	}
	return pgerr.New(pgerr.DependentObjectsStillExist, msg, what).
		WithDetail("%s", strings.Join(lines, "\n")).
		WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}

// dropDependents drops what CASCADE takes along, and says what in a
// NOTICE: views go, foreign keys and defaults leave their tables.
func (s *Session) dropDependents(ctx context.Context, d *catalog.DDL, deps []dependent) error {
	names := make([]string, len(deps))
	for i, dep := range deps {
		names[i] = dep.String()
	}
	s.noticeCascade(names)
	return s.removeDependents(ctx, d, deps)
}

// noticeCascade is the NOTICE of a DROP ... CASCADE that takes along the
// objects described.
func (s *Session) noticeCascade(objects []string) {
	switch len(objects) {
	case 0:
		return
	case 1:
		s.notice(pgerr.SuccessfulCompletion, "drop cascades to %s", objects[0])
		return
	}
	lines := make([]string, len(objects))
	for i, o := range objects {
		lines[i] = "drop cascades to " + o
	}
	s.sendNotice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(objects)).
		WithDetail("%s", strings.Join(lines, "\n")))
}

// removeDependents is dropDependents without its NOTICE.
func (s *Session) removeDependents(ctx context.Context, d *catalog.DDL, deps []dependent) error {
	for _, dep := range deps {
		if dep.col != nil {
			continue // a column of the table being altered: its ALTER drops it
		}
		if dep.matView != nil {
			if cur := d.Cat.TableByID[dep.matView.ID]; cur != nil {
				if err := s.lockTableForDDL(ctx, d, cur, true); err != nil {
					return err
				}
				if err := d.DropTable(ctx, cur); err != nil {
					return err
				}
			}
			continue
		}
		if dep.view != nil {
			if err := d.DropView(ctx, dep.view); err != nil {
				return err
			}
			continue
		}
		if dep.fn != nil {
			if err := d.DropFunction(ctx, dep.fn); err != nil {
				return err
			}
			continue
		}
		if dep.triggerOf != nil {
			if cur := d.Cat.ViewByName[dep.triggerOf.QName()]; cur != nil && cur.ID == dep.triggerOf.ID {
				v := cur.Clone()
				v.Triggers = slices.DeleteFunc(v.Triggers, func(tg *catalog.Trigger) bool { return tg.Name == dep.trigger.Name })
				if err := d.PutView(ctx, v); err != nil {
					return err
				}
			}
			continue
		}
		cur := d.Cat.TableByID[dep.table.ID]
		if cur == nil {
			continue // dropped meanwhile
		}
		if err := s.lockTableForDDL(ctx, d, cur, true); err != nil {
			return err
		}
		t := cur.Clone()
		if dep.fk != nil {
			t.ForeignKeys = slices.DeleteFunc(t.ForeignKeys, func(fk *catalog.ForeignKey) bool { return fk.Name == dep.fk.Name })
			s.forgetDeferred(t.ID, dep.fk.Name)
		} else if dep.trigger != nil {
			t.Triggers = slices.DeleteFunc(t.Triggers, func(tg *catalog.Trigger) bool { return tg.Name == dep.trigger.Name })
		} else if _, col := t.Column(dep.def.Name); col != nil {
			col.Default = ""
			if col.Serial == dep.onID {
				col.Serial = 0
			}
		}
		if err := d.PutTable(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// checkColumnDependents is checkDependents for ALTER TABLE ... DROP
// COLUMN of t's column i: the generated columns that read it, the foreign
// keys of other tables that reference it, and the views that read it and
// the views over those. Its own indexes, constraints and foreign keys go
// with it anyway, as in PostgreSQL.
func (s *Session) checkColumnDependents(cat *catalog.Catalog, t *catalog.Table, i int, cascade bool) ([]dependent, error) {
	col := t.Columns[i]
	on := fmt.Sprintf("column %s of table %s", col.Name, t.Name)
	var deps []dependent
	for _, g := range t.Columns {
		if g == col || g.Generated == "" || !g.Visible() {
			continue
		}
		if n, err := plan.ParseExpr(g.Generated); err == nil && slices.Contains(plan.ColumnsNamed(n), col.Name) {
			deps = append(deps, dependent{table: t, col: g, on: on})
		}
	}
	for _, ref := range cat.Referencing(t.ID) {
		if ref.Child.ID == t.ID && slices.Contains(ref.FK.Columns, i) {
			continue // its own: it goes with the column
		}
		if ix := indexByID(t, ref.FK.RefIndex); ix != nil && slices.Contains(ix.Columns, i) {
			deps = append(deps, dependent{table: ref.Child, fk: ref.FK, on: on})
		}
	}
	for _, v := range cat.Views() {
		if viewUsesColumn(v, t, col.Name) {
			deps = append(deps, dependent{view: v, on: on})
			deps = addDependents(deps, s.dependents(cat, dropTarget{kind: "view", name: v.Name, id: v.ID}, nil))
		}
	}
	if len(deps) == 0 || cascade {
		return deps, nil
	}
	return nil, errDependents(on, false, deps)
}

// dropConstraintDependents drops, for ALTER TABLE ... DROP CONSTRAINT ...
// CASCADE, the foreign keys of other tables that find their keys in the
// index of t's constraint name.
func (s *Session) dropConstraintDependents(ctx context.Context, d *catalog.DDL, t *catalog.Table, name string) error {
	k := slices.IndexFunc(t.Indexes, func(ix *catalog.Index) bool { return ix.Name == name && !ix.Standalone })
	if k < 0 {
		return nil
	}
	ix := t.Indexes[k]
	deps, err := s.checkDependents(d.Cat, []dropTarget{{kind: "index", name: ix.Name, id: ix.OID, table: t, index: ix}}, []uint32{t.ID}, true)
	if err != nil {
		return err
	}
	return s.dropDependents(ctx, d, deps)
}

// indexByID is t's index with id, or nil.
func indexByID(t *catalog.Table, id uint8) *catalog.Index {
	for _, ix := range t.Indexes {
		if ix.ID == id {
			return ix
		}
	}
	return nil
}

// dropColumnWithDependents drops column i of t, the altered copy of old,
// with what depends on it: an error without cascade, else the views and
// other tables' foreign keys go, and t's generated columns that read it.
func (s *Session) dropColumnWithDependents(ctx context.Context, d *catalog.DDL, old, t *catalog.Table, i int, cascade bool) error {
	deps, err := s.checkColumnDependents(d.Cat, old, i, cascade)
	if err != nil {
		return err
	}
	if err := s.dropDependents(ctx, d, deps); err != nil {
		return err
	}
	return dropColumnAndGenerated(t, i, deps)
}

// dropColumnAndGenerated drops column i of t and the generated columns
// among deps, the column's dependents, which read it.
func dropColumnAndGenerated(t *catalog.Table, i int, deps []dependent) error {
	for _, dep := range deps {
		if dep.col == nil {
			continue
		}
		if k, gc := t.Column(dep.col.Name); gc != nil {
			if err := dropColumn(t, k); err != nil {
				return err
			}
		}
	}
	return dropColumn(t, i)
}

// A typeSet names the types a DROP TYPE or DROP EXTENSION removes, arrays
// included: ok for a type's oid, with its name as a dependency cites it.
type typeSet func(oid types.Oid) (name string, ok bool)

// enumTypes is enum type e and its array type.
func enumTypes(e *catalog.EnumType) typeSet {
	at, _ := types.ArrayOf(e.T())
	return func(oid types.Oid) (string, bool) {
		switch oid {
		case e.Oid():
			return e.Name, true
		case at.Oid:
			return e.Name + "[]", true
		}
		return "", false
	}
}

// extensionTypes are the types extension ext provides.
func extensionTypes(ext string) typeSet {
	return func(oid types.Oid) (string, bool) {
		if in, ok := types.Lookup(oid); !ok || in.Extension != ext {
			return "", false
		}
		return types.T{Oid: oid, Mod: -1}.String(), true
	}
}

// typeDependents are what depends on the types of ts: their columns,
// and what depends on those (views, foreign keys, generated columns).
func (s *Session) typeDependents(cat *catalog.Catalog, ts typeSet) []dependent {
	var deps []dependent
	for _, t := range cat.Tables() {
		for i, col := range t.Columns {
			name, ok := ts(col.Type.Oid)
			if !ok || !col.Visible() {
				continue
			}
			deps = addDependents(deps, []dependent{{table: t, col: col, on: "type " + name}})
			more, _ := s.checkColumnDependents(cat, t, i, true)
			deps = addDependents(deps, more)
		}
	}
	return deps
}

// dropColumnsOfType drops, for DROP TYPE ... CASCADE and DROP EXTENSION
// ... CASCADE, every column of the types of ts, and what depends on them,
// as ALTER TABLE ... DROP COLUMN ... CASCADE would, table by table. The
// caller's NOTICE has named them.
func (s *Session) dropColumnsOfType(ctx context.Context, d *catalog.DDL, ts typeSet) error {
	ofType := func(c *catalog.TableColumn) bool {
		_, ok := ts(c.Type.Oid)
		return ok && c.Visible()
	}
	for _, old := range d.Cat.Tables() {
		if !slices.ContainsFunc(old.Columns, ofType) {
			continue
		}
		if err := s.refusePendingChecks(old, "ALTER TABLE"); err != nil {
			return err
		}
		if err := s.lockTableForDDL(ctx, d, old, true); err != nil {
			return err
		}
		t := old.Clone()
		for i, col := range t.Columns {
			if !ofType(col) {
				continue
			}
			deps, err := s.checkColumnDependents(d.Cat, old, i, true)
			if err != nil {
				return err
			}
			if err := s.removeDependents(ctx, d, deps); err != nil {
				return err
			}
			if err := dropColumnAndGenerated(t, i, deps); err != nil {
				return err
			}
		}
		if !sameIndexes(old, t) {
			if err := s.rebuild(ctx, d, old, t, nil, nil); err != nil {
				return err
			}
		}
		if err := d.PutTable(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// byOID is tgs in the order they were made, as pg_depend lists them.
func byOID(tgs []*catalog.Trigger) []*catalog.Trigger {
	tgs = slices.Clone(tgs)
	slices.SortFunc(tgs, func(a, b *catalog.Trigger) int { return int(a.OID) - int(b.OID) })
	return tgs
}
