package catalog

import (
	"slices"
	"strings"
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
func (t *Table) Trigger(name string) *Trigger {
	for _, tg := range t.Triggers {
		if tg.Name == name {
			return tg
		}
	}
	return nil
}

// SetTrigger adds tg to t's triggers, or replaces the one of its name.
func (t *Table) SetTrigger(tg *Trigger) {
	t.Triggers = slices.DeleteFunc(slices.Clone(t.Triggers), func(o *Trigger) bool { return o.Name == tg.Name })
	t.Triggers = append(t.Triggers, tg)
	slices.SortFunc(t.Triggers, func(a, b *Trigger) int { return strings.Compare(a.Name, b.Name) })
}

// TriggersFor are t's enabled triggers of timing and event, row or
// statement level, in firing order.
func (t *Table) TriggersFor(timing string, event int, row bool) []*Trigger {
	var out []*Trigger
	for _, tg := range t.Triggers {
		if tg.Timing == timing && tg.Events&event != 0 && tg.Row == row && !tg.Disabled {
			out = append(out, tg)
		}
	}
	return out
}
