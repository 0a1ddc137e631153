package sql

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/epochdb/epochdb/txn"
)

// Triggers. A table's triggers (catalog.Trigger) call PL/pgSQL functions
// that return trigger. The writes fire them, as PostgreSQL does:
//
//   - BEFORE STATEMENT triggers as the statement starts, AFTER STATEMENT
//     triggers as it ends;
//   - BEFORE ROW triggers for each row, before its constraints are checked
//     and it is written: the row the function returns is written instead,
//     and NULL skips the row;
//   - AFTER ROW triggers, for each row written, once the statement has
//     written them all (triggerQueue), in the order the rows were written.
//
// Every trigger's function runs its statements nested in the writing
// statement, in its transaction: a trigger's writes commit or roll back
// with the statement that fired it. Of triggers of one timing and event,
// those whose names sort first fire first.

// triggerEvent names an event as TG_OP does.
var triggerEvents = map[int]string{catalog.TriggerInsert: "INSERT", catalog.TriggerUpdate: "UPDATE",
	catalog.TriggerDelete: "DELETE", catalog.TriggerTruncate: "TRUNCATE"}

// triggerCall is what a trigger function is called with.
type triggerCall struct {
	tg       *catalog.Trigger
	t        *catalog.Table
	event    int
	old, new []any // visible columns; nil where the event has none
	// trans are the statement's rows of the event, for a trigger with
	// transition tables; nil for none.
	trans *transitionRows
}

// transitionRows are the rows a statement changed for one event, old and
// new, as a trigger's transition tables show them: their visible
// columns, held as a statement's other rows are (spilling past
// work_mem).
type transitionRows struct{ old, new *rowexec.RowStore }

func (tr *transitionRows) close() {
	for _, st := range []*rowexec.RowStore{tr.old, tr.new} {
		if st != nil {
			st.Close()
		}
	}
}

// triggerQueue holds a statement's AFTER ROW trigger calls, the rows its
// triggers' transition tables show, and the columns an UPDATE sets, which
// UPDATE OF triggers fire for.
type triggerQueue struct {
	calls []triggerCall
	trans map[int]*transitionRows
	set   []int16
}

// firesFor reports whether tg fires for a row of an UPDATE that sets
// the queue's columns: an UPDATE OF trigger only if it sets one of them.
func (q *triggerQueue) firesFor(tg *catalog.Trigger, event int) bool {
	if event != catalog.TriggerUpdate || len(tg.Columns) == 0 {
		return true
	}
	return q != nil && slices.ContainsFunc(tg.Columns, func(c int16) bool { return slices.Contains(q.set, c) })
}

// visibleRow is the visible columns of a stored row, as NEW and OLD
// hold them.
func visibleRow(t *catalog.Table, row []any) []any {
	if row == nil {
		return nil
	}
	out := make([]any, 0, len(t.Columns))
	for i, c := range t.Columns {
		if c.Visible() {
			out = append(out, row[i])
		}
	}
	return out
}

// storedRow puts the visible columns of rec into row, a stored row.
func storedRow(t *catalog.Table, row, rec []any) []any {
	out := slices.Clone(row)
	j := 0
	for i, c := range t.Columns {
		if c.Visible() {
			if j < len(rec) {
				out[i] = rec[j]
			}
			j++
		}
	}
	return out
}

// fire calls tg's function for one event; it returns the function's
// result, the row a BEFORE ROW trigger returns.
func (s *Session) fire(e *plan.Env, call triggerCall) (any, error) {
	rc := s.currentRoutines()
	fn := rc.triggers[call.tg]
	if fn == nil {
		f := s.catalog().FunctionByID[call.tg.Function]
		if f == nil {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function of trigger %q does not exist", call.tg.Name)
		}
		r, err := s.routine(f, nil)
		if err != nil {
			return nil, err
		}
		var ok bool
		if fn, ok = r.(*plFunction); !ok {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "trigger functions in language %s are not supported", f.Language)
		}
		if rc.triggers == nil {
			rc.triggers = map[*catalog.Trigger]*plFunction{}
		}
		rc.triggers[call.tg] = fn
	}
	s.triggerDepth++
	defer func() { s.triggerDepth-- }()
	return fn.trigger(e, &call)
}

func init() {
	plan.FuncCompilers["pg_trigger_depth"] = plan.Fixed(types.Int4, nil, func(e *plan.Env, _ []any) (any, error) {
		return int64(sessionOf(e.Host).triggerDepth), nil
	})
}

// whenHolds evaluates a trigger's WHEN condition on the old and new rows,
// compiled once per catalog (routineCache.whens).
func (s *Session) whenHolds(e *plan.Env, call triggerCall) (bool, error) {
	if call.tg.When == "" {
		return true, nil
	}
	rc := s.currentRoutines()
	cond := rc.whens[call.tg]
	if cond == nil {
		var err error
		if cond, err = s.compileWhen(call.t, call.tg); err != nil {
			return false, err
		}
		if rc.whens == nil {
			rc.whens = map[*catalog.Trigger]plan.Expr{}
		}
		rc.whens[call.tg] = cond
	}
	// OLD's columns, then NEW's: a missing row's are NULL.
	n := 0
	for _, c := range call.t.Columns {
		if c.Visible() {
			n++
		}
	}
	row := make([]any, 2*n)
	copy(row, call.old)
	copy(row[n:], call.new)
	v, err := cond.Eval(e.Exec().Env(row))
	return plan.IsTrue(v), err
}

// compileWhen compiles a WHEN condition over a row of the old row's
// columns then the new row's, which OLD.c and NEW.c name.
func (s *Session) compileWhen(t *catalog.Table, tg *catalog.Trigger) (plan.Expr, error) {
	n, err := plan.ParseExpr(tg.When)
	if err != nil {
		return nil, err
	}
	params := []types.T{}
	c := &plan.Compiler{Host: s.host(), Params: &params, Scope: plan.OldNewScope(t), Clause: "WHEN"}
	return c.CompileAs(n, types.Bool)
}

// beforeRow fires t's BEFORE ROW triggers of event on a row about to be
// written (new; old for UPDATE and DELETE): the row to write instead,
// or skip for a trigger that returned NULL.
func (s *Session) beforeRow(x *plan.ExecCtx, t *catalog.Table, event int, old, row []any) (out []any, skip bool, err error) {
	return s.rowTriggers(x, t, "before", event, old, row)
}

// rowTriggers fires t's ROW triggers of timing and event, BEFORE or
// INSTEAD OF, which pass the row each returns to the next: the row the
// last returned, or skip for one that returned NULL.
func (s *Session) rowTriggers(x *plan.ExecCtx, t *catalog.Table, timing string, event int, old, row []any) (out []any, skip bool, err error) {
	if !t.HasTrigger(timing, event, true) {
		return row, false, nil
	}
	e := x.Env(nil)
	out = row
	q, _ := x.Triggers.(*triggerQueue)
	for _, tg := range t.Triggers {
		if !tg.Fires(timing, event, true) || !q.firesFor(tg, event) {
			continue
		}
		call := triggerCall{tg: tg, t: t, event: event, old: visibleRow(t, old), new: visibleRow(t, out)}
		if event == catalog.TriggerDelete {
			call.new = nil
		}
		if ok, err := s.whenHolds(e, call); err != nil || !ok {
			if err != nil {
				return nil, false, err
			}
			continue
		}
		v, err := s.fire(e, call)
		if err != nil {
			return nil, false, err
		}
		rec, _ := v.([]any)
		if rec == nil {
			return nil, true, nil
		}
		if event == catalog.TriggerDelete {
			continue // what a DELETE trigger returns only says not to skip
		}
		if len(rec) != len(call.new) {
			return nil, false, pgerr.New(pgerr.DatatypeMismatch, "returned row structure does not match the structure of the triggering table").
				WithDetail("Number of returned columns (%d) does not match expected column count (%d).", len(rec), len(call.new))
		}
		out = storedRow(t, out, rec)
	}
	return out, false, nil
}

// afterRow queues t's AFTER ROW triggers of event for a row written,
// and keeps the row for the transition tables that show it.
func afterRow(x *plan.ExecCtx, t *catalog.Table, event int, old, row []any) error {
	q, _ := x.Triggers.(*triggerQueue)
	if q == nil {
		return nil
	}
	for _, tg := range t.Triggers {
		if !tg.Fires("after", event, true) || !q.firesFor(tg, event) {
			continue
		}
		call := triggerCall{tg: tg, t: t, event: event, old: visibleRow(t, old), new: visibleRow(t, row)}
		if event == catalog.TriggerDelete {
			call.new = nil
		}
		q.calls = append(q.calls, call)
	}
	keepOld, keepNew := t.Transitions(event)
	if !keepOld && !keepNew {
		return nil
	}
	tr := q.transitions(x, event)
	if keepOld && old != nil {
		if err := tr.old.Add(visibleRow(t, old)); err != nil {
			return err
		}
	}
	if keepNew && row != nil && event != catalog.TriggerDelete {
		return tr.new.Add(visibleRow(t, row))
	}
	return nil
}

// transitions are the statement's rows of event, made on first use.
func (q *triggerQueue) transitions(x *plan.ExecCtx, event int) *transitionRows {
	tr := q.trans[event]
	if tr == nil {
		tr = &transitionRows{old: rowexec.NewRowStore(x), new: rowexec.NewRowStore(x)}
		if q.trans == nil {
			q.trans = map[int]*transitionRows{}
		}
		q.trans[event] = tr
	}
	return tr
}

func (q *triggerQueue) close() {
	for _, tr := range q.trans {
		tr.close()
	}
}

// withTriggers wraps a write's run with t's statement triggers of event
// and the AFTER ROW triggers its rows queue. An INSERT ... ON CONFLICT DO
// UPDATE fires the UPDATE statement triggers too (upsert): BEFORE after
// INSERT's, AFTER before INSERT's, as PostgreSQL does.
func withTriggers(t *catalog.Table, event int, upsert bool, set []int16, run func(x *plan.ExecCtx) (*rowexec.RowStore, int64, error)) func(x *plan.ExecCtx) (*rowexec.RowStore, int64, error) {
	events := []int{event}
	if upsert {
		events = append(events, catalog.TriggerUpdate)
	}
	return func(x *plan.ExecCtx) (*rowexec.RowStore, int64, error) {
		if len(t.Triggers) == 0 {
			return run(x)
		}
		s := sessionOf(x.Host)
		for _, ev := range events {
			if err := s.statementTriggers(x, t, "before", ev, nil); err != nil {
				return nil, 0, err
			}
		}
		q := &triggerQueue{set: set}
		defer q.close()
		prev := x.Triggers
		x.Triggers = q
		rows, n, err := run(x)
		x.Triggers = prev
		if err != nil {
			return rows, n, err
		}
		if err := s.endTriggers(x, t, q, reversed(events)...); err != nil {
			if rows != nil {
				rows.Close()
			}
			return nil, 0, err
		}
		return rows, n, nil
	}
}

// reversed is a copy of xs in reverse order.
func reversed(xs []int) []int {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

// endTriggers fires, as a write ends, the AFTER ROW triggers q holds and
// t's AFTER STATEMENT triggers of each event in turn.
func (s *Session) endTriggers(x *plan.ExecCtx, t *catalog.Table, q *triggerQueue, events ...int) error {
	e := x.Env(nil)
	for _, call := range q.calls {
		if ok, err := s.whenHolds(e, call); err != nil {
			return err
		} else if !ok {
			continue
		}
		call.trans = q.trans[call.event]
		if _, err := s.fire(e, call); err != nil {
			return err
		}
	}
	for _, ev := range events {
		if err := s.statementTriggers(x, t, "after", ev, q.transitions(x, ev)); err != nil {
			return err
		}
	}
	return nil
}

// statementTriggers fires t's statement triggers of timing and event;
// trans are the statement's rows, for AFTER triggers' transition tables.
func (s *Session) statementTriggers(x *plan.ExecCtx, t *catalog.Table, timing string, event int, trans *transitionRows) error {
	e := x.Env(nil)
	for _, tg := range t.Triggers {
		if !tg.Fires(timing, event, false) {
			continue
		}
		if _, err := s.fire(e, triggerCall{tg: tg, t: t, event: event, trans: trans}); err != nil {
			return err
		}
	}
	return nil
}

// modifyTriggered is modifyRow for a row of a table with BEFORE ROW
// triggers of the event: the trigger runs between finding the row's
// newest version and writing it, outside the write, since its function
// may write too; the row is then written if that version is still the
// newest. scanned, if not nil, is the version the statement's scan read,
// which pred held on: the newest, unless another transaction or this
// statement's triggers changed it, which the write then finds, and the
// row is read again.
func (s *Session) modifyTriggered(x *plan.ExecCtx, t *catalog.Table, key []byte, once bool, pred func(old []any) (bool, error),
	update func(old []any) ([]any, error), done func(row []any) error, scanned []any) error {
	event := catalog.TriggerDelete
	if update != nil {
		event = catalog.TriggerUpdate
	}
	old := scanned
	var seen []byte
	if old != nil {
		seen = t.EncodeRow(old)
	} else {
		err := x.Tx.Mutate(x.Ctx, key, func(cur []byte, exists bool) ([]byte, txn.Op, error) {
			if !exists {
				return nil, txn.Keep, nil
			}
			var err error
			if old, err = t.DecodeRow(key, cur); err != nil {
				return nil, txn.Keep, err
			}
			if pred != nil {
				if ok, err := pred(old); err != nil || !ok {
					old = nil
					return nil, txn.Keep, err
				}
			}
			seen = bytes.Clone(cur)
			return nil, txn.Keep, nil
		})
		if err != nil || old == nil {
			return err
		}
	}
	var row []any
	var err error
	if update != nil {
		if row, err = update(old); err != nil {
			return err
		}
	}
	row, skip, err := s.beforeRow(x, t, event, old, row)
	if err != nil || skip {
		return err
	}
	if update != nil {
		if err := s.checkRow(t, row); err != nil {
			return err
		}
	}
	changed := false
	same := func(cur []byte) bool {
		changed = !bytes.Equal(cur, seen)
		return !changed
	}
	var write func(old []any) ([]any, error)
	if update != nil {
		write = func([]any) ([]any, error) { return row, nil }
	}
	if err := s.writeModified(x, t, key, once, same, nil, write, done); err != nil || !changed {
		return err
	}
	if scanned != nil {
		return s.modifyTriggered(x, t, key, once, pred, update, done, nil)
	}
	return pgerr.New(pgerr.TriggeredDataChangeViolation, "tuple to be %s was already modified by an operation triggered by the current command", map[bool]string{true: "updated", false: "deleted"}[update != nil]).
		WithHint("Consider using an AFTER trigger instead of a BEFORE trigger to propagate changes to other rows.")
}

// createTrigger runs CREATE [OR REPLACE] TRIGGER.
func (s *Session) createTrigger(ctx context.Context, cmd *parser.CreateTrigger) error {
	d, err := s.ddl(ctx)
	if err != nil {
		return err
	}
	r, err := s.triggerRel(d.Cat, cmd.Table)
	if err != nil {
		return err
	}
	if err := r.allows(cmd); err != nil {
		return err
	}
	t := r.t
	tg := &catalog.Trigger{Name: cmd.Name, Timing: cmd.Timing, Row: cmd.Row, Args: cmd.Args, OldTable: cmd.OldTable, NewTable: cmd.NewTable}
	for _, ev := range cmd.Events {
		bit := map[string]int{"insert": catalog.TriggerInsert, "update": catalog.TriggerUpdate, "delete": catalog.TriggerDelete, "truncate": catalog.TriggerTruncate}[ev]
		tg.Events |= bit
	}
	if tg.Events&catalog.TriggerTruncate != 0 && tg.Row {
		return pgerr.New(pgerr.FeatureNotSupported, "TRUNCATE FOR EACH ROW triggers are not supported")
	}
	for _, name := range cmd.UpdateOf {
		_, col := t.Column(name)
		if col == nil || !col.Visible() {
			return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
		}
		tg.Columns = append(tg.Columns, col.Num)
	}
	f, err := s.triggerFunction(cmd.Function)
	if err != nil {
		return err
	}
	tg.Function = f.ID
	if cmd.When != "" {
		if !tg.Row {
			return pgerr.New(pgerr.FeatureNotSupported, "statement trigger's WHEN condition cannot reference column values")
		}
		n, err := parseOneExpr(cmd.When)
		if err != nil {
			return err
		}
		tg.When, tg.WhenText = plan.StoredExpr(n), cmd.When
		lower := " " + strings.ToLower(cmd.When)
		switch {
		case tg.Events == catalog.TriggerInsert && strings.Contains(lower, "old."):
			return pgerr.New(pgerr.InvalidObjectDefinition, "INSERT trigger's WHEN condition cannot reference OLD values")
		case tg.Events == catalog.TriggerDelete && strings.Contains(lower, "new."):
			return pgerr.New(pgerr.InvalidObjectDefinition, "DELETE trigger's WHEN condition cannot reference NEW values")
		}
		if _, err := s.compileWhen(t, tg); err != nil {
			return err
		}
	}
	if old := t.Trigger(cmd.Name); old != nil {
		if !cmd.OrReplace {
			return pgerr.New(pgerr.DuplicateObject, "trigger %q for relation %q already exists", cmd.Name, t.Name)
		}
		tg.OID = old.OID
	} else if tg.OID, err = d.NextID(ctx); err != nil {
		return err
	}
	return r.put(ctx, d, catalog.WithTrigger(t.Triggers, tg))
}

// triggerRel is the relation a trigger statement names: a table, or a
// view, whose triggers are INSTEAD OF ROW triggers or statement triggers.
type triggerRel struct {
	t *catalog.Table // the table, or the view's RowTable
	v *catalog.View  // nil for a table
}

// allows checks that the relation may have the trigger cmd makes, with
// PostgreSQL's errors in its order.
func (r triggerRel) allows(cmd *parser.CreateTrigger) error {
	transition := cmd.OldTable != "" || cmd.NewTable != ""
	if r.v == nil {
		if cmd.Timing == "instead" {
			return pgerr.New(pgerr.WrongObjectType, "%q is a table", r.t.Name).WithDetail("Tables cannot have INSTEAD OF triggers.")
		}
		if transition {
			return transitionsAllowed(cmd)
		}
		return nil
	}
	switch {
	case cmd.Timing != "instead" && cmd.Row:
		return pgerr.New(pgerr.WrongObjectType, "%q is a view", r.v.Name).WithDetail("Views cannot have row-level BEFORE or AFTER triggers.")
	case slices.Contains(cmd.Events, "truncate"):
		return pgerr.New(pgerr.WrongObjectType, "%q is a view", r.v.Name).WithDetail("Views cannot have TRUNCATE triggers.")
	case transition:
		return pgerr.New(pgerr.WrongObjectType, "%q is a view", r.v.Name).WithDetail("Triggers on views cannot have transition tables.")
	case cmd.Timing == "instead" && cmd.When != "":
		return pgerr.New(pgerr.FeatureNotSupported, "INSTEAD OF triggers cannot have WHEN conditions")
	case cmd.Timing == "instead" && len(cmd.UpdateOf) > 0:
		return pgerr.New(pgerr.FeatureNotSupported, "INSTEAD OF triggers cannot have column lists")
	}
	return nil
}

// transitionsAllowed checks a trigger's REFERENCING clause as PostgreSQL
// does, in its order.
func transitionsAllowed(cmd *parser.CreateTrigger) error {
	has := func(ev string) bool { return slices.Contains(cmd.Events, ev) }
	switch {
	case cmd.Timing != "after":
		return pgerr.New(pgerr.InvalidObjectDefinition, "transition table name can only be specified for an AFTER trigger")
	case has("truncate"):
		return pgerr.New(pgerr.FeatureNotSupported, "TRUNCATE triggers with transition tables are not supported")
	case len(cmd.Events) != 1:
		return pgerr.New(pgerr.FeatureNotSupported, "transition tables cannot be specified for triggers with more than one event")
	case len(cmd.UpdateOf) > 0:
		return pgerr.New(pgerr.FeatureNotSupported, "transition tables cannot be specified for triggers with column lists")
	case cmd.NewTable != "" && !has("insert") && !has("update"):
		return pgerr.New(pgerr.InvalidObjectDefinition, "NEW TABLE can only be specified for an INSERT or UPDATE trigger")
	case cmd.OldTable != "" && !has("delete") && !has("update"):
		return pgerr.New(pgerr.InvalidObjectDefinition, "OLD TABLE can only be specified for a DELETE or UPDATE trigger")
	case cmd.OldTable != "" && cmd.OldTable == cmd.NewTable:
		return pgerr.New(pgerr.InvalidObjectDefinition, "OLD TABLE name and NEW TABLE name cannot be the same")
	}
	return nil
}

// put stores the relation with the triggers tgs in place of its own.
func (r triggerRel) put(ctx context.Context, d *catalog.DDL, tgs []*catalog.Trigger) error {
	if r.v != nil {
		v := r.v.Clone()
		v.Triggers = tgs
		return d.PutView(ctx, v)
	}
	t := r.t.Clone()
	t.Triggers = tgs
	return d.PutTable(ctx, t)
}

// triggers is a copy of the relation's triggers that a DDL may change.
func (r triggerRel) triggers() []*catalog.Trigger {
	if r.v != nil {
		return r.v.Clone().Triggers
	}
	return r.t.Clone().Triggers
}

// triggerDDL begins the DDL of a trigger statement on a relation, and
// finds it.
func (s *Session) triggerDDL(ctx context.Context, name string) (*catalog.DDL, triggerRel, error) {
	d, err := s.ddl(ctx)
	if err != nil {
		return nil, triggerRel{}, err
	}
	r, err := s.triggerRel(d.Cat, name)
	return d, r, err
}

// triggerRel is the table or view a trigger statement names.
func (s *Session) triggerRel(cat *catalog.Catalog, name string) (triggerRel, error) {
	q, err := s.lookName(name)
	if err != nil {
		return triggerRel{}, err
	}
	if t := cat.TableByName[q]; t != nil && !t.IsMatView() {
		return triggerRel{t: t}, nil
	}
	if v := cat.ViewByName[q]; v != nil {
		return triggerRel{t: v.RowTable(), v: v}, nil
	}
	if q.Found() {
		return triggerRel{}, pgerr.New(pgerr.WrongObjectType, "relation %q cannot have triggers", q.Name)
	}
	return triggerRel{}, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", q.Name)
}

// triggerFunction is the function CREATE TRIGGER names: one that takes
// no arguments and returns trigger.
func (s *Session) triggerFunction(name string) (*catalog.Function, error) {
	schema, fname, err := splitSchema(name)
	if err != nil {
		return nil, err
	}
	fs, err := s.catalog().FunctionOverloads(s.searchPath(), schema, fname)
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		if len(f.InParams()) == 0 && f.Kind == 'f' {
			if f.Returns.Oid != types.OidTrigger {
				return nil, pgerr.New(pgerr.InvalidObjectDefinition, "function %s must return type trigger", name)
			}
			return f, nil
		}
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "function %s() does not exist", name)
}

// dropTrigger runs DROP TRIGGER.
func (s *Session) dropTrigger(ctx context.Context, cmd *parser.DropTrigger) error {
	d, r, err := s.triggerDDL(ctx, cmd.Table)
	if err != nil {
		if cmd.IfExists && pgerr.Code(err) == pgerr.UndefinedTable {
			s.notice(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", cmd.Table)
			return nil
		}
		return err
	}
	t := r.t
	if t.Trigger(cmd.Name) == nil {
		if cmd.IfExists {
			s.notice(pgerr.SuccessfulCompletion, "trigger %q for relation %q does not exist, skipping", cmd.Name, t.Name)
			return nil
		}
		return pgerr.New(pgerr.UndefinedObject, "trigger %q for table %q does not exist", cmd.Name, t.Name)
	}
	return r.put(ctx, d, slices.DeleteFunc(r.triggers(), func(tg *catalog.Trigger) bool { return tg.Name == cmd.Name }))
}

// alterTrigger runs ALTER TRIGGER ... RENAME TO.
func (s *Session) alterTrigger(ctx context.Context, cmd *parser.AlterTrigger) error {
	d, r, err := s.triggerDDL(ctx, cmd.Table)
	if err != nil {
		return err
	}
	t := r.t
	tg := t.Trigger(cmd.Name)
	if tg == nil {
		return pgerr.New(pgerr.UndefinedObject, "trigger %q for table %q does not exist", cmd.Name, t.Name)
	}
	if t.Trigger(cmd.NewName) != nil {
		return pgerr.New(pgerr.DuplicateObject, "trigger %q for relation %q already exists", cmd.NewName, t.Name)
	}
	renamed := *tg
	renamed.Name = cmd.NewName
	tgs := slices.DeleteFunc(r.triggers(), func(o *catalog.Trigger) bool { return o.Name == cmd.Name })
	return r.put(ctx, d, catalog.WithTrigger(tgs, &renamed))
}

// enableTrigger runs ALTER TABLE ... {ENABLE | DISABLE} TRIGGER.
func (s *Session) enableTrigger(ctx context.Context, cmd *parser.EnableTrigger) error {
	d, r, err := s.triggerDDL(ctx, cmd.Table)
	if err != nil {
		return err
	}
	if r.v != nil {
		action := "DISABLE"
		if cmd.Enable {
			action = "ENABLE"
		}
		return pgerr.New(pgerr.WrongObjectType, "ALTER action %s TRIGGER cannot be performed on relation %q", action, r.v.Name).
			WithDetail("This operation is not supported for views.")
	}
	tgs := r.triggers()
	found := false
	for _, tg := range tgs {
		if cmd.Name == "" || tg.Name == cmd.Name {
			tg.Disabled, found = !cmd.Enable, true
		}
	}
	if cmd.Name != "" && !found {
		return pgerr.New(pgerr.UndefinedObject, "trigger %q for table %q does not exist", cmd.Name, r.t.Name)
	}
	return r.put(ctx, d, tgs)
}
