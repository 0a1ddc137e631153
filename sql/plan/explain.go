package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/rowexec"
)

// EXPLAIN's plan tree. Each Source describes itself as a Node, with
// PostgreSQL's node names, so that psql users and tools that read
// PostgreSQL's plans (explain.depesz.com, pgAdmin) read epochdb's: the
// text format indents children under "->", and FORMAT JSON has
// PostgreSQL's keys. Under EXPLAIN ANALYZE the statement runs with an
// Analysis on its ExecCtx, which counts each node's rows, loops and time,
// and the description reads the counts back.

// A Node is one node of a plan as EXPLAIN shows it.
type Node struct {
	Type  string // "Node Type": "Seq Scan", "Hash Join", "Aggregate"
	Label string // the text format's heading, when not Type
	// Attrs are what FORMAT JSON shows as keys of their own and the text
	// format puts in the heading: "Relation Name", "Strategy".
	Attrs []Field
	Props []Field // shown in both formats: "Filter", "Index Cond"
	Kids  []*Node
	// Parent is the node's relationship to its parent: "Outer", "Inner",
	// "InitPlan", "SubPlan", "Subquery", "Member".
	Parent      string
	SubplanName string
	Est         Estimate
	Stats       *NodeStats // under EXPLAIN ANALYZE; nil for a node that never ran

	// cols are the node's output columns where known, which conditions
	// over it read, for estimates; base is a scan's table's rows, before
	// any condition (0 once a Filter has used it, and for other nodes).
	cols []ScopeCol
	base float64
}

// A Field is one key and value of a node.
type Field struct {
	Key   string
	Value any
}

// Estimate is what the planner expects of a node: its rows, its width in
// bytes, and its cost in PostgreSQL's units, to its first row and to its
// last.
type Estimate struct {
	Startup, Total float64
	Rows           float64
	Width          int
}

// NodeStats are what EXPLAIN ANALYZE measured of a node: over all its
// loops (each Open is one), the rows it returned, the time to its first
// row and to its last.
type NodeStats struct {
	Loops, Rows     int64
	Startup, Totals time.Duration
}

// Analysis collects the NodeStats of one EXPLAIN ANALYZE execution. The
// executions of subqueries share their statement's.
type Analysis struct {
	stats map[nodeKey]*NodeStats
}

// NewAnalysis starts an empty Analysis.
func NewAnalysis() *Analysis { return &Analysis{stats: make(map[nodeKey]*NodeStats)} }

// A nodeKey names a node of the running plan: a Source, or a step of one
// (a SelectPlan's sort or aggregate) by its stage.
type nodeKey struct {
	src   any
	stage string
}

// Analyze makes x's executions, and its subqueries', measure their nodes.
func (x *ExecCtx) Analyze(a *Analysis) { x.analysis = a }

// open opens s, a child of the node that calls it, measured when the
// statement runs under EXPLAIN ANALYZE.
func open(x *ExecCtx, s Source) (rowexec.RowIter, error) {
	began := x.began()
	it, err := s.Open(x)
	return x.tracked(s, "", began, it, err)
}

// began is when a node starts making its iterator, under EXPLAIN
// ANALYZE; the zero time, for nothing, otherwise.
func (x *ExecCtx) began() time.Time {
	if x.analysis == nil {
		return time.Time{}
	}
	return time.Now()
}

// tracked is it, which the node (src, stage) made since began, measured
// under EXPLAIN ANALYZE: making it counts towards the node's first row,
// as an Open that reads all its input (a hash, a sort) does its work
// there. Without ANALYZE, or on err, it is it as it is.
func (x *ExecCtx) tracked(src any, stage string, began time.Time, it rowexec.RowIter, err error) (rowexec.RowIter, error) {
	a := x.analysis
	if a == nil || err != nil {
		return it, err
	}
	k := nodeKey{src, stage}
	st := a.stats[k]
	if st == nil {
		st = &NodeStats{}
		a.stats[k] = st
	}
	st.Loops++
	return &trackedIter{in: it, st: st, began: began}, nil
}

// OpenTracked opens s as the root of an EXPLAIN ANALYZE.
func OpenTracked(x *ExecCtx, s Source) (rowexec.RowIter, error) { return open(x, s) }

// A trackedIter counts one loop of a node. A loop's total time runs to
// its last row, or to its end: a node its parent stops reading early (a
// Sort under a Limit) took only the time to the rows it gave.
type trackedIter struct {
	in    rowexec.RowIter
	st    *NodeStats
	began time.Time
	last  time.Duration // since began, at the last row
	rows  int64
	done  bool
}

func (t *trackedIter) Next() ([]any, error) {
	row, err := t.in.Next()
	if t.done {
		return row, err
	}
	t.last = time.Since(t.began)
	if row == nil {
		t.finish()
		return row, err
	}
	if t.rows == 0 {
		t.st.Startup += t.last
	}
	t.rows++
	t.st.Rows++
	return row, err
}

// finish adds the loop's times to the node's, once.
func (t *trackedIter) finish() {
	if t.done {
		return
	}
	t.done = true
	if t.rows == 0 {
		t.st.Startup += t.last
	}
	t.st.Totals += t.last
}

func (t *trackedIter) Close() {
	t.finish()
	t.in.Close()
}

// Explainer builds a plan's Nodes, with the counts of an Analysis.
type Explainer struct {
	a        *Analysis
	tables   map[uint32]*catalog.Table // the tables scanned so far, by oid, for estimates
	subplans int                       // numbers InitPlans and SubPlans, as PostgreSQL does
	aliases  map[string]int            // the relation aliases shown so far, and how often
}

// uniqueAlias is alias, or alias_N where an earlier node of the plan has
// it: PostgreSQL names each relation of a plan apart ("emp emp_1").
func (e *Explainer) uniqueAlias(alias string) string {
	if e.aliases == nil {
		e.aliases = make(map[string]int)
	}
	n := e.aliases[alias]
	e.aliases[alias] = n + 1
	if n == 0 {
		return alias
	}
	return alias + "_" + strconv.Itoa(n)
}

// node describes s and gives it its counts: the counts of s itself win
// over those of what s passes through (a pushed-down filter over a scan
// counts the rows the filter kept).
func (e *Explainer) Node(s Source) *Node {
	n := s.Describe(e)
	if n.Type != "ModifyTable" {
		n.Est.Rows = max(1, math.Round(n.Est.Rows))
	}
	e.attach(n, s, "")
	return n
}

// estimator judges conditions over cols.
func (e *Explainer) estimator(cols []ScopeCol) estimator {
	return estimator{cols: cols, tables: e.tables}
}

// filter applies condition x, over n's columns cols, to n's estimate:
// a Filter keeps its share of the rows and costs an operator per
// conjunct per row read.
func (e *Explainer) filter(n *Node, x Expr, cols []ScopeCol) {
	in := n.Est.Rows
	if n.base > 0 {
		// A scan's Filter holds all of its WHERE clause, the index
		// condition too: judge it against the whole table.
		in, n.base = n.base, 0
	}
	n.Est.Total += n.Est.Rows * cpuOperCost * float64(len(Conjuncts(x)))
	n.Est.Rows = in * e.estimator(cols).selectivity(x)
}

// attach gives n the counts of the node (src, stage), if it ran.
func (e *Explainer) attach(n *Node, src any, stage string) {
	if e.a == nil {
		return
	}
	if st := e.a.stats[nodeKey{src, stage}]; st != nil {
		n.Stats = st
	}
}

// as sets n's relationship to its parent and returns n.
func (n *Node) as(parent string) *Node {
	n.Parent = parent
	return n
}

// passedStats are the counts of a node that no step of its own measures
// and that passes on every row of its inputs (an Append over them, a Sort
// under the Unique that measures both): their rows, summed, over the
// loops of the first; nil if none of them ran.
func passedStats(kids ...*Node) *NodeStats {
	var st *NodeStats
	for _, k := range kids {
		if k.Stats == nil {
			continue
		}
		if st == nil {
			st = &NodeStats{Loops: k.Stats.Loops, Startup: k.Stats.Startup}
		}
		st.Rows += k.Stats.Rows
		st.Totals += k.Stats.Totals
	}
	return st
}

// subqueryScan is n as a set operation's input: PostgreSQL reads each
// through a Subquery Scan.
func subqueryScan(n *Node) *Node {
	return &Node{Type: "Subquery Scan", Label: "Subquery Scan on \"*SELECT*\"", Parent: "Member",
		Attrs: []Field{{"Alias", "*SELECT*"}}, Kids: []*Node{n.as("Subquery")}, Stats: n.Stats, Est: n.Est}
}

// parts adds a node's WITH queries and subqueries under it: as
// PostgreSQL lists them, the WITH queries and InitPlans before the node's
// inputs, the SubPlans after.
func (e *Explainer) parts(n *Node, ctes []*CTE, subs []*subquery) {
	var init, per []*Node
	for _, d := range ctes {
		k := e.Node(d.plan).as("InitPlan")
		k.SubplanName = "CTE " + d.name
		init = append(init, k)
	}
	for _, sq := range subs {
		e.subplans++
		k := sq.describe(e, e.subplans)
		if k.Parent == "InitPlan" {
			init = append(init, k)
		} else {
			per = append(per, k)
		}
	}
	n.Kids = append(append(init, n.Kids...), per...)
}

// ModifyNode is the ModifyTable node of INSERT, UPDATE or DELETE (verb
// in any case) on table, over the node that finds its rows.
func ModifyNode(verb, table, alias string, from *Node) *Node {
	op := strings.ToUpper(verb[:1]) + strings.ToLower(verb[1:])
	if alias == "" {
		alias = table
	}
	return &Node{Type: "ModifyTable", Label: op + " on " + aliased(table, alias),
		Attrs: []Field{{"Operation", op}, {"Relation Name", table}, {"Alias", alias}}, Kids: []*Node{from.as("Outer")},
		Est: Estimate{Startup: from.Est.Startup, Total: from.Est.Total + from.Est.Rows*cpuTupleCost}}
}

// Where applies a query's WHERE clause, over cols, to n, the node of the
// FROM item src: its Filter, without what an index scan's condition
// already holds (as PostgreSQL shows it; the rows are rechecked against
// all of it), and its estimate, judged on the whole clause.
func (e *Explainer) Where(n *Node, src Source, where Expr, cols []ScopeCol) {
	if where == nil {
		return
	}
	shown := where
	if ts, ok := src.(*TableScan); ok {
		shown = ts.Access.residual(where)
	}
	if shown != nil {
		n.Props = append(n.Props, Field{"Filter", e.expr(shown, cols)})
	}
	e.filter(n, where, cols)
}

// keyTexts are grouping or sort keys as EXPLAIN shows them: the
// expressions' SQL, without the quotes a plain name does not need.
func keyTexts(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k
		if name, err := strconv.Unquote(k); err == nil && len(k) > 2 && k[0] == '"' && parser.QuoteIdent(name) == name {
			out[i] = name
		}
	}
	return out
}

// qualified is x over cols with every column qualified by its relation,
// as a join's conditions show them.
func (e *Explainer) qualified(x Expr, cols []ScopeCol) string {
	names := make([]string, len(cols))
	tables := make([]string, len(cols))
	for i, c := range cols {
		names[i], tables[i] = e.colName(c), c.Table
	}
	text, ok := Deparser{cols: names, Qualifiers: tables}.Print(x)
	if !ok {
		return "?"
	}
	return text
}

// colName is c's name, or for the hidden column of an index on an
// expression, the name the table gives it.
func (e *Explainer) colName(c ScopeCol) string {
	if c.Name != "" || c.TableOID == 0 {
		return c.Name
	}
	if t := e.tables[c.TableOID]; t != nil {
		for _, tc := range t.Columns {
			if tc.Num == c.AttNum {
				return tc.Name
			}
		}
	}
	return c.Name
}

// expr is a condition as EXPLAIN prints it, its columns named from cols,
// qualified when they come from more than one relation.
func (e *Explainer) expr(x Expr, cols []ScopeCol) string {
	names := make([]string, len(cols))
	tables := make([]string, len(cols))
	many := false
	for i, c := range cols {
		names[i], tables[i] = e.colName(c), c.Table
		many = many || c.Table != cols[0].Table
	}
	if !many {
		tables = nil
	}
	text, ok := Deparser{cols: names, Qualifiers: tables}.Print(x)
	if !ok {
		return "(?)"
	}
	if !strings.HasPrefix(text, "(") {
		text = "(" + text + ")"
	}
	return text
}

// Describe is s's plan tree, with the counts of a if it ran under EXPLAIN
// ANALYZE (a may be nil).
func Describe(s Source, a *Analysis) *Node {
	e := &Explainer{a: a, tables: make(map[uint32]*catalog.Table)}
	return e.Node(s)
}

// ExplainOptions are EXPLAIN's options that shape its output.
type ExplainOptions struct {
	Analyze, Costs, Timing, Summary bool
	Format                          string // "text" or "json"
	Planning, Execution             time.Duration
}

// ExplainLines renders n in opts.Format, one string per row of EXPLAIN's
// output (FORMAT JSON is one row).
func ExplainLines(n *Node, opts ExplainOptions) []string {
	if opts.Format == "json" {
		return []string{explainJSON(n, opts)}
	}
	var lines []string
	n.text(&lines, 0, true, opts)
	if opts.Summary {
		lines = append(lines, fmt.Sprintf("Planning Time: %.3f ms", ms(opts.Planning)))
		if opts.Analyze {
			lines = append(lines, fmt.Sprintf("Execution Time: %.3f ms", ms(opts.Execution)))
		}
	}
	return lines
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// heading is the node's line in the text format: its label, then what
// PostgreSQL prints beside it (" on t", " using ix").
func (n *Node) heading() string {
	h := n.Label
	if h == "" {
		h = n.Type
	}
	return h
}

// text appends n's lines at depth, as PostgreSQL's text format lays them
// out: a child's heading starts "->  " two columns in from its parent's
// properties, and its properties line up under its heading's text.
func (n *Node) text(lines *[]string, depth int, root bool, opts ExplainOptions) {
	pad := ""
	if !root {
		if n.SubplanName != "" {
			// "InitPlan 1 (returns $0)", "CTE x": a line of its own, the
			// node under it.
			*lines = append(*lines, strings.Repeat(" ", depth)+n.SubplanName)
			depth += 2
		}
		pad = strings.Repeat(" ", depth) + "->  "
	}
	line := pad + n.heading()
	if opts.Costs {
		line += fmt.Sprintf("  (cost=%.2f..%.2f rows=%.0f width=%d)", n.Est.Startup, n.Est.Total, n.Est.Rows, n.Est.Width)
	}
	if opts.Analyze {
		line += n.actual(opts)
	}
	*lines = append(*lines, line)
	inner := len(pad) + 2
	if root {
		inner = 2
	}
	for _, p := range n.Props {
		*lines = append(*lines, strings.Repeat(" ", inner)+p.Key+": "+propText(p.Value))
	}
	for _, k := range n.Kids {
		k.text(lines, inner, false, opts)
	}
}

// actual is the "(actual ...)" part of a heading under EXPLAIN ANALYZE.
func (n *Node) actual(opts ExplainOptions) string {
	st := n.Stats
	if st == nil || st.Loops == 0 {
		return " (never executed)"
	}
	loops := float64(st.Loops)
	rows := float64(st.Rows) / loops
	if !opts.Timing {
		return fmt.Sprintf(" (actual rows=%.0f loops=%d)", rows, st.Loops)
	}
	return fmt.Sprintf(" (actual time=%.3f..%.3f rows=%.0f loops=%d)", ms(st.Startup)/loops, ms(st.Totals)/loops, rows, st.Loops)
}

func propText(v any) string {
	switch v := v.(type) {
	case []string:
		return strings.Join(v, ", ")
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// explainJSON is FORMAT JSON: an array of one object, PostgreSQL's keys
// in PostgreSQL's order, indented as it indents them.
func explainJSON(n *Node, opts ExplainOptions) string {
	var b strings.Builder
	b.WriteString("[\n  {\n    \"Plan\": ")
	n.json(&b, 4, opts)
	if opts.Summary {
		fmt.Fprintf(&b, ",\n    \"Planning Time\": %.3f", ms(opts.Planning))
		if opts.Analyze {
			b.WriteString(",\n    \"Triggers\": [\n    ]")
			fmt.Fprintf(&b, ",\n    \"Execution Time\": %.3f", ms(opts.Execution))
		}
	}
	b.WriteString("\n  }\n]")
	return b.String()
}

func (n *Node) json(b *strings.Builder, indent int, opts ExplainOptions) {
	pad := strings.Repeat(" ", indent+2)
	var fields []Field
	fields = append(fields, Field{"Node Type", n.Type})
	if n.Parent != "" {
		fields = append(fields, Field{"Parent Relationship", n.Parent})
	}
	if n.SubplanName != "" {
		fields = append(fields, Field{"Subplan Name", n.SubplanName})
	}
	fields = append(fields, Field{"Parallel Aware", false}, Field{"Async Capable", false})
	fields = append(fields, n.Attrs...)
	if opts.Costs {
		fields = append(fields, Field{"Startup Cost", jsonCost(n.Est.Startup)}, Field{"Total Cost", jsonCost(n.Est.Total)},
			Field{"Plan Rows", int64(n.Est.Rows)}, Field{"Plan Width", n.Est.Width})
	}
	if opts.Analyze {
		st := n.Stats
		if st == nil {
			st = &NodeStats{}
		}
		loops := max(1, float64(st.Loops))
		if opts.Timing {
			fields = append(fields, Field{"Actual Startup Time", jsonCost(ms(st.Startup) / loops)}, Field{"Actual Total Time", jsonCost(ms(st.Totals) / loops)})
		}
		fields = append(fields, Field{"Actual Rows", int64(float64(st.Rows) / loops)}, Field{"Actual Loops", st.Loops})
	}
	fields = append(fields, n.Props...)
	b.WriteString("{")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n" + pad + strconv.Quote(f.Key) + ": " + jsonValue(f.Value, pad))
	}
	if len(n.Kids) > 0 {
		b.WriteString(",\n" + pad + "\"Plans\": [")
		for i, k := range n.Kids {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + pad + "  ")
			k.json(b, indent+4, opts)
		}
		b.WriteString("\n" + pad + "]")
	}
	b.WriteString("\n" + strings.Repeat(" ", indent) + "}")
}

// jsonCost is a cost or a time as PostgreSQL writes it in JSON: with
// two or three decimals, as a number.
type jsonCost float64

func jsonValue(v any, pad string) string {
	switch v := v.(type) {
	case jsonCost:
		return strconv.FormatFloat(float64(v), 'f', 3, 64)
	case []string:
		var b strings.Builder
		b.WriteString("[")
		for i, s := range v {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + pad + "  " + jsonString(s))
		}
		b.WriteString("\n" + pad + "]")
		return b.String()
	case string:
		return jsonString(v)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func jsonString(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
}
