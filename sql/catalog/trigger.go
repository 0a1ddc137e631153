package catalog

import (
	"slices"
	"strings"

	"github.com/epochdb/epochdb/sql/types"
)

// Triggers (pg_trigger). A table's triggers live in its descriptor, in
// name order, the order PostgreSQL fires the triggers of one event and
// timing in.

// Trigger events, as the bits of pg_trigger.tgtype.
const (
	TriggerInsert   = 1 << 2
	TriggerDelete   = 1 << 3
	TriggerUpdate   = 1 << 4
	TriggerTruncate = 1 << 5
)

// Trigger describes a trigger.
type Trigger struct {
	OID  uint32 `json:"oid"`
	Name string `json:"name"`
	// Function is the oid of the function it calls.
	Function uint32 `json:"function"`
	// Timing is "before", "after" or "instead".
	Timing string `json:"timing"`
	Events int    `json:"events"`
	Row    bool   `json:"row,omitempty"`
	// Columns are UPDATE OF's columns, by attnum.
	Columns []int16 `json:"columns,omitempty"`
	// When is the WHEN condition as SQL the TiDB parser reads, and
	// WhenText as PostgreSQL prints it.
	When     string   `json:"when,omitempty"`
	WhenText string   `json:"when_text,omitempty"`
	Args     []string `json:"args,omitempty"`
	// Disabled is ALTER TABLE ... DISABLE TRIGGER's.
	Disabled bool `json:"disabled,omitempty"`
	// OldTable and NewTable are REFERENCING's transition table names
	// (tgoldtable, tgnewtable), "" for none.
	OldTable string `json:"old_table,omitempty"`
	NewTable string `json:"new_table,omitempty"`
}

// Transitions reports which transition tables t's enabled AFTER triggers
// of event read, which a write of event must collect the rows of.
func (t *Table) Transitions(event int) (old, new bool) {
	for _, tg := range t.Triggers {
		if tg.Timing == "after" && tg.Events&event != 0 && !tg.Disabled {
			old, new = old || tg.OldTable != "", new || tg.NewTable != ""
		}
	}
	return old, new
}

// EventNames are the events t fires on, as CREATE TRIGGER writes them.
func (t *Trigger) EventNames() []string {
	var out []string
	for _, e := range []struct {
		bit  int
		name string
	}{{TriggerInsert, "INSERT"}, {TriggerDelete, "DELETE"}, {TriggerUpdate, "UPDATE"}, {TriggerTruncate, "TRUNCATE"}} {
		if t.Events&e.bit != 0 {
			out = append(out, e.name)
		}
	}
	return out
}

// TgType is pg_trigger.tgtype: ROW 1, BEFORE 2, the events, INSTEAD 64.
func (t *Trigger) TgType() int {
	ty := t.Events
	if t.Row {
		ty |= 1
	}
	switch t.Timing {
	case "before":
		ty |= 2
	case "instead":
		ty |= 64
	}
	return ty
}

// Trigger is t's trigger called name, or nil.
func (t *Table) Trigger(name string) *Trigger { return FindTrigger(t.Triggers, name) }

// FindTrigger is the trigger of tgs called name, or nil.
func FindTrigger(tgs []*Trigger, name string) *Trigger {
	for _, tg := range tgs {
		if tg.Name == name {
			return tg
		}
	}
	return nil
}

// SetTrigger adds tg to t's triggers, or replaces the one of its name.
func (t *Table) SetTrigger(tg *Trigger) { t.Triggers = WithTrigger(t.Triggers, tg) }

// WithTrigger is tgs, in name order, with tg added or in place of the
// one of its name; tgs is left as it was.
func WithTrigger(tgs []*Trigger, tg *Trigger) []*Trigger {
	tgs = slices.DeleteFunc(slices.Clone(tgs), func(o *Trigger) bool { return o.Name == tg.Name })
	tgs = append(tgs, tg)
	slices.SortFunc(tgs, func(a, b *Trigger) int { return strings.Compare(a.Name, b.Name) })
	return tgs
}

// Fires reports whether tg is enabled and of timing and event, row or
// statement level.
func (tg *Trigger) Fires(timing string, event int, row bool) bool {
	return tg.Timing == timing && tg.Events&event != 0 && tg.Row == row && !tg.Disabled
}

// HasTrigger reports whether t has a trigger that Fires for timing,
// event and level. The writes ask it per row, so it allocates nothing.
func (t *Table) HasTrigger(timing string, event int, row bool) bool {
	for _, tg := range t.Triggers {
		if tg.Fires(timing, event, row) {
			return true
		}
	}
	return false
}

// RowType is the record type of t's rows: its visible columns, as a
// function returning t's rows, NEW and OLD, and a cast to t's name see
// them.
func (t *Table) RowType() types.T {
	var fields []types.Field
	for _, c := range t.Columns {
		if c.Visible() {
			fields = append(fields, types.Field{Name: c.Name, T: c.Type})
		}
	}
	return types.RecordOf(fields)
}

// RowTable describes v's rows as a table: its columns, named and typed as
// the view's, and its triggers. It is what a write to v plans against
// and its INSTEAD OF triggers see as NEW and OLD; it has no rows of its
// own (no DataID), and nothing may write to it.
func (v *View) RowTable() *Table { return v.rows }

func (v *View) rowTable() *Table {
	t := &Table{ID: v.ID, Name: v.Name, Schema: v.Schema, Triggers: v.Triggers, view: true}
	for i, c := range v.Columns {
		t.Columns = append(t.Columns, &TableColumn{Name: c.Name, Type: c.Type, Num: int16(i + 1)})
	}
	t.colTypes = t.ColumnTypes()
	return t
}

// IsView reports whether t is a view's RowTable.
func (t *Table) IsView() bool { return t.view }

// Clone is a copy of v that a DDL may change; its triggers are copies.
func (v *View) Clone() *View {
	c := *v
	c.Triggers = cloneEach(v.Triggers, func(tg *Trigger) { tg.Columns, tg.Args = slices.Clone(tg.Columns), slices.Clone(tg.Args) })
	c.rows = nil
	return &c
}
