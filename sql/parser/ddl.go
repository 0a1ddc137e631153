package parser

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

func isCreateTable(n ast.StmtNode) bool { _, ok := n.(*ast.CreateTableStmt); return ok }
func isAlterTable(n ast.StmtNode) bool  { _, ok := n.(*ast.AlterTableStmt); return ok }
func isCreateIndex(n ast.StmtNode) bool { _, ok := n.(*ast.CreateIndexStmt); return ok }
func isCreateSeq(n ast.StmtNode) bool   { _, ok := n.(*ast.CreateSequenceStmt); return ok }
func isAlterSeq(n ast.StmtNode) bool    { _, ok := n.(*ast.AlterSequenceStmt); return ok }
func isDropTable(n ast.StmtNode) bool   { _, ok := n.(*ast.DropTableStmt); return ok }
func isDropSeq(n ast.StmtNode) bool     { _, ok := n.(*ast.DropSequenceStmt); return ok }
func isExplain(n ast.StmtNode) bool     { _, ok := n.(*ast.ExplainStmt); return ok }

// createModifiers may come between CREATE and the kind of object.
var createModifiers = map[string]bool{
	"or": true, "replace": true, "global": true, "local": true, "temp": true, "temporary": true,
	"unlogged": true, "unique": true, "materialized": true, "recursive": true, "trusted": true,
	"procedural": true, "default": true, "constraint": true,
}

// create parses CREATE TABLE, CREATE INDEX and CREATE SEQUENCE.
func (p *stmtParser) create() error {
	var atomic string
	for k := 1; k < min(len(p.toks), 4); k++ {
		if isWord(&p.toks[k], "function", "procedure") {
			atomic = p.atomicBody()
			break
		}
	}
	seq, err := p.buildTree(p.toks)
	if err != nil {
		return err
	}
	i := 1
	var temp, unique *token
	for isWord(at(seq, i)) && createModifiers[tokOf(seq[i]).val] {
		switch t := tokOf(seq[i]); t.val {
		case "temp", "temporary":
			temp = t
		case "unique":
			unique = t
		}
		i++
	}
	kind := tokOf(at(seq, i))
	switch {
	case kind == nil:
		return p.syntaxErrorAtEnd()
	case isWord(kind, "table") && unique == nil:
		if err := p.modifiersOnly(seq[1:i], "global", "local", "temp", "temporary", "unlogged"); err != nil {
			return err
		}
		p.st.Temp = temp != nil
		return p.createTable(seq, i)
	case isWord(kind, "index"):
		if err := p.modifiersOnly(seq[1:i], "unique"); err != nil {
			return err
		}
		return p.createIndex(seq, i, unique)
	case isWord(kind, "sequence"):
		if err := p.modifiersOnly(seq[1:i], "temp", "temporary"); err != nil {
			return err
		}
		p.st.Temp = temp != nil
		return p.createSequence(seq, i)
	case isWord(kind, "view") && !slices.ContainsFunc(seq[1:i], func(it item) bool { return isWord(it, "materialized") }):
		if err := p.modifiersOnly(seq[1:i], "or", "replace", "temp", "temporary"); err != nil {
			return err
		}
		p.st.Temp = temp != nil
		return p.createView(i, wordsAt(seq, 1, "or", "replace"))
	case isWord(kind, "type"):
		if err := p.modifiersOnly(seq[1:i]); err != nil {
			return err
		}
		return p.command(parseCreateType, i+1)
	case isWord(kind, "extension"):
		if err := p.modifiersOnly(seq[1:i]); err != nil {
			return err
		}
		return p.command(parseCreateExtension, i+1)
	case isWord(kind, "schema"):
		if err := p.modifiersOnly(seq[1:i]); err != nil {
			return err
		}
		return p.command(parseCreateSchema, i+1)
	case isWord(kind, "view"):
		if err := p.modifiersOnly(seq[1:i], "materialized"); err != nil {
			return err
		}
		return p.createMatView(i)
	case isWord(kind, "trigger"):
		if err := p.modifiersOnly(seq[1:i], "or", "replace"); err != nil {
			return err
		}
		return p.command(parseCreateTrigger(wordsAt(seq, 1, "or", "replace")), i+1)
	case isWord(kind, "function", "procedure"):
		if err := p.modifiersOnly(seq[1:i], "or", "replace"); err != nil {
			return err
		}
		return p.createFunction(seq, i, wordsAt(seq, 1, "or", "replace"), atomic)
	}
	return p.unsupported(tokOf(seq[0]), "%s is not supported", upper(p.q[p.toks[0].pos:kind.end]))
}

// CreateView is CREATE [OR REPLACE] VIEW name [(column, ...)] AS query.
type CreateView struct {
	Name      string   // qualified as qualifiedName joins it
	Columns   []string // nil: the query's own column names
	Query     *Statement
	OrReplace bool
	Temp      bool // CREATE TEMPORARY VIEW
}

// createView parses CREATE VIEW from the token after VIEW, at p.toks[i+1]:
// the words before it are plain tokens, so item and token indexes agree.
func (p *stmtParser) createView(i int, orReplace bool) error {
	c := &cursor{p: p, toks: p.toks, i: i + 1}
	name, err := c.qualifiedName()
	if err != nil {
		return err
	}
	v := &CreateView{Name: name, OrReplace: orReplace, Temp: p.st.Temp}
	if c.punct("(") {
		for {
			col, err := c.name()
			if err != nil {
				return err
			}
			v.Columns = append(v.Columns, col)
			if c.punct(")") {
				break
			}
			if !c.punct(",") {
				return c.fail()
			}
		}
	}
	if err := c.expect("as"); err != nil {
		return err
	}
	if v.Query, err = c.nested(c.toks[c.i:], p.after, isQuery); err != nil {
		return err
	}
	if v.Query.WithDML != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "views must not contain data-modifying statements in WITH")
	}
	p.st.Cmd = v
	return nil
}

// modifiersOnly checks that the CREATE modifiers mods are among allowed.
func (p *stmtParser) modifiersOnly(mods []item, allowed ...string) error {
	for _, m := range mods {
		if !isWord(m, allowed...) {
			return p.syntaxError(tokOf(m))
		}
	}
	return nil
}

// createTable parses CREATE TABLE. Column types are recorded in
// ColumnTypes and replaced by TEXT, so that TiDB, which knows MySQL's types,
// parses the constraints and defaults; storage options go to Options.
func (p *stmtParser) createTable(seq []item, i int) error {
	out := []item{seq[0], seq[i]}
	i++
	if wordsAt(seq, i, "if", "not", "exists") {
		out = append(out, seq[i:i+3]...)
		i += 3
	}
	j := skipNameAt(seq, i)
	if j < 0 {
		return p.errorAt(seq, i)
	}
	out = append(out, seq[i:j]...)
	i = j
	if parenGroup(at(seq, i)) == nil {
		var err error
		if i, err = p.tableClauses(seq, i); err != nil {
			return err
		}
	}
	g := parenGroup(at(seq, i))
	switch {
	case isWord(at(seq, i), "as"):
		rest := seq[i:]
		if n := len(rest); n >= 2 && wordsAt(rest, n-2, "with", "data") {
			rest = rest[:n-2]
		} else if n >= 3 && wordsAt(rest, n-3, "with", "no", "data") {
			return p.unsupported(tokOf(rest[n-3]), "CREATE TABLE ... WITH NO DATA is not supported")
		}
		query, main, err := p.with(rest[1:])
		if err != nil {
			return err
		}
		query, err = p.queryItems(query, main)
		if err != nil {
			return err
		}
		return p.finish(append(append(out, rest[0]), query...), isCreateTable)
	case g == nil && isWord(at(seq, i), "of", "partition"):
		return p.unsupported(tokOf(seq[i]), "CREATE TABLE ... %s is not supported", upper(tokOf(seq[i]).val))
	case g == nil:
		return p.errorAt(seq, i)
	}
	if isWord(at(seq, i+1), "as") {
		return p.unsupported(tokOf(seq[i+1]), "CREATE TABLE ... (columns) AS is not supported")
	}
	kids, err := p.tableElements(g.kids)
	if err != nil {
		return err
	}
	g.kids = kids
	out = append(out, g)
	if i, err = p.tableClauses(seq, i+1); err != nil {
		return err
	}
	if t := tokOf(at(seq, i)); isWord(t, "inherits", "partition", "using", "tablespace") {
		return p.unsupported(t, "CREATE TABLE ... %s is not supported", upper(t.val))
	} else if t != nil {
		return p.errorAt(seq, i)
	}
	items, err := p.rewrite(out)
	if err != nil {
		return err
	}
	return p.finish(items, isCreateTable)
}

// tableClauses parses the clauses of CREATE TABLE that may follow its
// columns, or its name where AS follows: WITH (options), WITHOUT OIDS and
// ON COMMIT. It returns the index of the first item that is none of them.
func (p *stmtParser) tableClauses(seq []item, i int) (int, error) {
	for {
		switch t := tokOf(at(seq, i)); {
		case isWord(t, "with") && parenGroup(at(seq, i+1)) != nil:
			if err := p.options(parenGroup(seq[i+1])); err != nil {
				return i, err
			}
			i += 2
		case wordsAt(seq, i, "without", "oids"):
			i += 2
		case wordsAt(seq, i, "on", "commit"):
			switch {
			case wordsAt(seq, i+2, "preserve", "rows"):
				p.st.OnCommit, i = OnCommitPreserve, i+4
			case wordsAt(seq, i+2, "delete", "rows"):
				p.st.OnCommit, i = OnCommitDelete, i+4
			case wordsAt(seq, i+2, "drop"):
				p.st.OnCommit, i = OnCommitDrop, i+3
			default:
				return i, p.errorAt(seq, i+2)
			}
		default:
			return i, nil
		}
	}
}

// OnCommit is what CREATE TEMPORARY TABLE's ON COMMIT does with the table
// when a transaction commits.
type OnCommit uint8

const (
	OnCommitNone     OnCommit = iota // no ON COMMIT clause: as PRESERVE ROWS
	OnCommitPreserve                 // keep the table and its rows
	OnCommitDelete                   // delete its rows
	OnCommitDrop                     // drop it, at the end of the transaction that made it
)

// options parses CREATE TABLE's WITH (name [= value], ...).
func (p *stmtParser) options(g *group) error {
	for _, opt := range splitCommas(g.kids) {
		j := skipNameAt(opt, 0)
		if j < 0 {
			return p.errorAt(opt, 0, g.close)
		}
		var name strings.Builder
		for _, it := range opt[:j] {
			if t := tokOf(it); t.kind == tkPunct {
				name.WriteByte('.')
			} else {
				name.WriteString(t.val)
			}
		}
		value := "true" // a bare name turns a boolean option on
		if j < len(opt) {
			if !isOp(opt[j], "=") {
				return p.errorAt(opt, j)
			}
			v, n, ok := optionValue(opt, j+1)
			if !ok {
				return p.errorAt(opt, j+1, g.close)
			}
			if n < len(opt) {
				return p.errorAt(opt, n)
			}
			value = v
		}
		p.st.Options = append(p.st.Options, Option{Name: name.String(), Value: value})
	}
	return nil
}

// optionValue reads a string, a signed number or a word as text.
func optionValue(seq []item, i int) (string, int, bool) {
	sign := ""
	if isOp(at(seq, i), "-") || isOp(at(seq, i), "+") {
		sign = tokOf(seq[i]).val
		i++
		if t := tokOf(at(seq, i)); t == nil || t.kind != tkNumber {
			return "", i, false
		}
	}
	t := tokOf(at(seq, i))
	if t == nil || t.kind != tkString && t.kind != tkNumber && t.kind != tkWord && t.kind != tkQIdent {
		return "", i, false
	}
	if sign == "-" {
		return "-" + t.val, i + 1, true
	}
	return t.val, i + 1, true
}

// tableElements rewrites the column definitions and table constraints of
// CREATE TABLE. Named column constraints that TiDB takes only at table level
// move there.
func (p *stmtParser) tableElements(kids []item) ([]item, error) {
	var out []item
	var moved [][]item
	for n, elem := range splitCommas(kids) {
		if len(elem) == 0 {
			return nil, p.errorAt(kids, len(out))
		}
		if n > 0 {
			out = append(out, comma(elem[0]))
		}
		if isWord(elem[0], "constraint", "primary", "unique", "check", "foreign", "exclude", "like") {
			c, err := p.tableConstraint(elem)
			if err != nil {
				return nil, err
			}
			out = append(out, c...)
			continue
		}
		col, extra, err := p.columnDef(elem)
		if err != nil {
			return nil, err
		}
		out = append(out, col...)
		moved = append(moved, extra...)
	}
	for _, c := range moved {
		out = append(out, comma(c[0]))
		out = append(out, c...)
	}
	return out, nil
}

// comma is a ',' written before it.
func comma(it item) *token {
	t := firstTok(it)
	return &token{kind: tkPunct, pos: t.pos, end: t.pos, val: ","}
}

// tableConstraint checks a table constraint for what TiDB would drop or
// misread and strips the clauses that only restate PostgreSQL's defaults.
func (p *stmtParser) tableConstraint(elem []item) ([]item, error) {
	i := 0
	if isWord(elem[0], "constraint") {
		if !isName(at(elem, 1)) {
			return nil, p.errorAt(elem, 1)
		}
		i = 2
	}
	t := tokOf(at(elem, i))
	switch {
	case t == nil:
		return nil, p.errorAt(elem, i)
	case isWord(t, "exclude"):
		return nil, p.unsupported(t, "EXCLUDE constraints are not supported")
	case isWord(t, "like"):
		return nil, p.unsupported(t, "CREATE TABLE ... (LIKE) is not supported")
	case isWord(t, "foreign"):
		// FOREIGN KEY (cols) REFERENCES ...
		g := parenGroup(at(elem, i+2))
		if !isWord(at(elem, i+1), "key") || g == nil || !isWord(at(elem, i+3), "references") {
			return nil, p.errorAt(elem, i+1)
		}
		end, err := p.references(elem, i+3)
		if err != nil {
			return nil, err
		}
		var cols []string
		for _, c := range splitCommas(g.kids) {
			if len(c) == 1 && isName(c[0]) {
				cols = append(cols, tokOf(c[0]).val)
			}
		}
		if elem, err = p.deferral(elem, end, cols, tokOf(at(elem, skipNameAt(elem, i+4)-1))); err != nil {
			return nil, err
		}
		return p.constraintTail(elem, end)
	case isWord(t, "check"):
		if parenGroup(at(elem, i+1)) == nil {
			return nil, p.errorAt(elem, i+1)
		}
		if wordsAt(elem, i+2, "no", "inherit") {
			return nil, p.unsupported(tokOf(elem[i+2]), "NO INHERIT is not supported")
		}
		return p.constraintTail(elem, i+2)
	case isWord(t, "primary"):
		if !isWord(at(elem, i+1), "key") || parenGroup(at(elem, i+2)) == nil {
			return nil, p.errorAt(elem, i+1)
		}
		return p.constraintTail(elem, i+3)
	case isWord(t, "unique"):
		out, j, err := p.nullsDistinct(elem, i+1)
		if err != nil {
			return nil, err
		}
		if parenGroup(at(out, j)) == nil {
			return nil, p.errorAt(out, j)
		}
		return p.constraintTail(out, j+1)
	}
	return nil, p.errorAt(elem, i)
}

// nullsDistinct strips NULLS DISTINCT, PostgreSQL's default, after UNIQUE at
// elem[i-1], and rejects NULLS NOT DISTINCT.
func (p *stmtParser) nullsDistinct(elem []item, i int) ([]item, int, error) {
	switch {
	case wordsAt(elem, i, "nulls", "distinct"):
		return append(elem[:i:i], elem[i+2:]...), i, nil
	case wordsAt(elem, i, "nulls", "not", "distinct"):
		return nil, 0, p.unsupported(tokOf(elem[i]), "UNIQUE NULLS NOT DISTINCT is not supported")
	}
	return elem, i, nil
}

// deferral reads the deferrability clauses after a foreign key's
// REFERENCES clause, which ends at elem[i], and records a DEFERRABLE one
// for cols, referencing table. It returns elem without them.
func (p *stmtParser) deferral(elem []item, i int, cols []string, table *token) ([]item, error) {
	deferrable, notDeferrable, initially := false, false, false
	j := i
	for {
		switch {
		case isWord(at(elem, j), "deferrable"):
			deferrable, j = true, j+1
			continue
		case wordsAt(elem, j, "not", "deferrable"):
			notDeferrable, j = true, j+2
			continue
		case wordsAt(elem, j, "initially", "deferred"):
			initially, j = true, j+2
			continue
		case wordsAt(elem, j, "initially", "immediate"):
			j += 2
			continue
		}
		break
	}
	switch {
	case notDeferrable && (deferrable || initially):
		return nil, p.syntaxMsg(tokOf(elem[i]), "constraint declared INITIALLY DEFERRED must be DEFERRABLE")
	case deferrable || initially:
		if table != nil {
			p.st.DeferrableFKs = append(p.st.DeferrableFKs, DeferrableFK{Columns: cols, Table: table.val, InitiallyDeferred: initially})
		}
	}
	return append(elem[:i:i], elem[j:]...), nil
}

// constraintTail checks what follows a constraint at elem[i]: only the
// deferrability clauses that restate the default may.
func (p *stmtParser) constraintTail(elem []item, i int) ([]item, error) {
	out := elem[:i:i]
	for i < len(elem) {
		switch {
		case wordsAt(elem, i, "not", "deferrable"), wordsAt(elem, i, "initially", "immediate"):
			i += 2
		case isWord(elem[i], "deferrable"), wordsAt(elem, i, "initially", "deferred"):
			return nil, p.unsupported(tokOf(elem[i]), "deferrable constraints are not supported")
		case wordsAt(elem, i, "not", "valid"):
			return nil, p.unsupported(tokOf(elem[i]), "NOT VALID is not supported")
		case isWord(elem[i], "include", "using", "with"):
			return nil, p.unsupported(tokOf(elem[i]), "%s in a constraint is not supported", upper(tokOf(elem[i]).val))
		default:
			return nil, p.errorAt(elem, i)
		}
	}
	return out, nil
}

// references returns the end of a REFERENCES clause at elem[i].
func (p *stmtParser) references(elem []item, i int) (int, error) {
	j := skipNameAt(elem, i+1)
	if j < 0 {
		return 0, p.errorAt(elem, i+1)
	}
	if parenGroup(at(elem, j)) != nil {
		j++
	}
	for {
		switch {
		case isWord(at(elem, j), "match") && isWord(at(elem, j+1), "full", "simple"):
			j += 2
		case isWord(at(elem, j), "match") && isWord(at(elem, j+1), "partial"):
			return 0, p.unsupported(tokOf(elem[j]), "MATCH PARTIAL not yet implemented")
		case isWord(at(elem, j), "match"):
			return 0, p.errorAt(elem, j+1)
		case wordsAt(elem, j, "on", "delete"), wordsAt(elem, j, "on", "update"):
			j += 2
			switch {
			case wordsAt(elem, j, "no", "action"), wordsAt(elem, j, "set", "null"), wordsAt(elem, j, "set", "default"):
				j += 2
				if parenGroup(at(elem, j)) != nil {
					return 0, p.unsupported(firstTok(elem[j]), "column lists in referential actions are not supported")
				}
			case isWord(at(elem, j), "restrict", "cascade"):
				j++
			default:
				return 0, p.errorAt(elem, j)
			}
		default:
			return j, nil
		}
	}
}

// columnDef rewrites a column definition: its type becomes TEXT, and its
// constraints take the forms TiDB reads. Named PRIMARY KEY, UNIQUE and
// REFERENCES constraints come back as table constraints in moved.
func (p *stmtParser) columnDef(elem []item) (col []item, moved [][]item, err error) {
	if !isName(elem[0]) {
		return nil, nil, p.errorAt(elem, 0)
	}
	name := tokOf(elem[0])
	typ, i, ok := parseType(elem, 1)
	if !ok {
		return nil, nil, p.errorAt(elem, 1)
	}
	p.st.ColumnTypes = append(p.st.ColumnTypes, typ)
	tt := firstTok(elem[1])
	col = []item{elem[0], &synth{anchor: tt, space: leadingSpace(elem[1]), parts: []any{"TEXT"}}}
	for i < len(elem) {
		var conName []item
		if isWord(elem[i], "constraint") {
			if !isName(at(elem, i+1)) {
				return nil, nil, p.errorAt(elem, i+1)
			}
			conName = elem[i : i+2]
			i += 2
		}
		t := tokOf(at(elem, i))
		switch {
		case t == nil:
			return nil, nil, p.errorAt(elem, i)
		case wordsAt(elem, i, "not", "null"), isWord(t, "null"):
			// TiDB takes no constraint name here, and PostgreSQL does not
			// keep one for NOT NULL.
			j := i + 1
			if isWord(t, "not") {
				j++
			}
			col = append(col, elem[i:j]...)
			i = j
		case isWord(t, "default"):
			j := i + 1
			for j < len(elem) && (j == i+1 || !isWord(elem[j], columnConstraintWords...)) {
				j++
			}
			if j == i+1 {
				return nil, nil, p.errorAt(elem, j)
			}
			def, err := p.fold(elem[i+1 : j])
			if err != nil {
				return nil, nil, err
			}
			col = append(col, t, tidbDefault(def))
			i = j
		case isWord(t, "check"):
			if parenGroup(at(elem, i+1)) == nil {
				return nil, nil, p.errorAt(elem, i+1)
			}
			if wordsAt(elem, i+2, "no", "inherit") {
				return nil, nil, p.unsupported(tokOf(elem[i+2]), "NO INHERIT is not supported")
			}
			col = append(col, conName...)
			col = append(col, elem[i:i+2]...)
			i += 2
		case wordsAt(elem, i, "primary", "key"):
			if conName != nil {
				moved = append(moved, append(append([]item(nil), conName...), elem[i], elem[i+1], columnList(name)))
			} else {
				col = append(col, elem[i:i+2]...)
			}
			i += 2
		case isWord(t, "unique"):
			rest, j, err := p.nullsDistinct(elem, i+1)
			if err != nil {
				return nil, nil, err
			}
			elem = rest
			if conName != nil {
				moved = append(moved, append(append([]item(nil), conName...), elem[i], columnList(name)))
			} else {
				col = append(col, elem[i])
			}
			i = j
		case isWord(t, "references"):
			j, err := p.references(elem, i)
			if err != nil {
				return nil, nil, err
			}
			if elem, err = p.deferral(elem, j, []string{name.val}, tokOf(at(elem, skipNameAt(elem, i+1)-1))); err != nil {
				return nil, nil, err
			}
			if conName != nil {
				fk := &synth{anchor: t, space: true, parts: []any{"FOREIGN KEY", columnList(name)}}
				moved = append(moved, append(append(append([]item(nil), conName...), fk), elem[i:j]...))
			} else {
				col = append(col, elem[i:j]...)
			}
			i = j
		case wordsAt(elem, i, "generated", "by", "default", "as", "identity"), wordsAt(elem, i, "generated", "always", "as", "identity"):
			// Identity BY DEFAULT takes explicit values, as AUTO_INCREMENT
			// does; the comment tells the planner that ALWAYS takes none.
			mark := "AUTO_INCREMENT"
			n := 5
			if isWord(elem[i+1], "always") {
				mark, n = "AUTO_INCREMENT COMMENT 'epochdb_identity_always'", 4
			}
			if g := parenGroup(at(elem, i+n)); g != nil {
				seqName, seqStmt, err := p.identityOptions(g)
				if err != nil {
					return nil, nil, err
				}
				p.st.IdentityColumns = append(p.st.IdentityColumns, IdentityColumn{Column: name.val, SequenceName: seqName, Sequence: seqStmt})
				n++
			}
			col = append(col, &synth{anchor: t, space: true, parts: []any{mark}})
			i += n
		case wordsAt(elem, i, "generated", "always", "as") && parenGroup(at(elem, i+3)) != nil && isWord(at(elem, i+4), "stored"):
			col = append(col, elem[i:i+5]...)
			i += 5
		case isWord(t, "collate"):
			return nil, nil, p.unsupported(t, "COLLATE is not supported")
		case wordsAt(elem, i, "not", "deferrable"), wordsAt(elem, i, "initially", "immediate"):
			i += 2
		case isWord(t, "deferrable"), wordsAt(elem, i, "initially", "deferred"):
			return nil, nil, p.unsupported(t, "deferrable constraints are not supported")
		default:
			return nil, nil, p.errorAt(elem, i)
		}
	}
	return col, moved, nil
}

// columnConstraintWords end a column's DEFAULT expression, which is a
// b_expr and so holds none of them.
var columnConstraintWords = []string{
	"constraint", "not", "null", "default", "check", "primary", "unique", "references",
	"generated", "collate", "deferrable", "initially",
}

// columnList is "(name)" for a constraint moved to table level.
func columnList(name *token) *synth {
	return &synth{anchor: name, parts: []any{"(", name, ")"}}
}

// tidbDefault wraps a DEFAULT expression that TiDB's column grammar does
// not take. It accepts only literals and function calls there, so anything
// else becomes the argument of epochdb_default, which the planner
// evaluates as its argument. So do now(), LOCALTIME(p) and
// LOCALTIMESTAMP(p), which that grammar would store as CURRENT_TIMESTAMP,
// a different expression (of another type) to pg_get_expr.
func tidbDefault(def []item) item {
	if simpleDefault(def) || len(def) == 1 && isCall(def[0]) ||
		len(def) == 2 && isFuncName(tokOf(def[0])) && tokOf(def[0]).call && !isWord(def[0], "now", "localtime", "localtimestamp") {
		return &synth{anchor: firstTok(def[0]), space: true, parts: []any{def}}
	}
	return &synth{anchor: firstTok(def[0]), space: true, parts: []any{"epochdb_default(", def, ")"}}
}

// simpleDefault reports whether def is a literal, possibly signed.
func simpleDefault(def []item) bool {
	if len(def) == 2 && (isOp(def[0], "-") || isOp(def[0], "+")) {
		def = def[1:]
	}
	t := tokOf(at(def, 0))
	return len(def) == 1 && t != nil && (t.kind == tkString || t.kind == tkNumber || isWord(t, "null", "true", "false"))
}

// isCall reports whether it is a rewritten function call, such as a cast.
func isCall(it item) bool {
	_, ok := it.(*synth)
	return ok
}

// createIndex parses CREATE INDEX. TiDB wants the index name, the method
// after the columns, and expressions in parentheses.
func (p *stmtParser) createIndex(seq []item, i int, unique *token) error {
	out := []item{seq[0]}
	if unique != nil {
		out = append(out, unique)
	}
	out = append(out, seq[i])
	i++
	if isWord(at(seq, i), "concurrently") {
		// Building without blocking writes changes nothing a client sees.
		i++
	}
	var name []item
	if !isWord(at(seq, i), "on") {
		if wordsAt(seq, i, "if", "not", "exists") {
			out = append(out, seq[i:i+3]...)
			i += 3
		}
		if !isName(at(seq, i)) {
			return p.errorAt(seq, i)
		}
		name = seq[i : i+1]
		i++
	}
	if !isWord(at(seq, i), "on") {
		return p.errorAt(seq, i)
	}
	on := seq[i]
	i++
	if isWord(at(seq, i), "only") {
		i++
	}
	j := skipNameAt(seq, i)
	if j < 0 {
		return p.errorAt(seq, i)
	}
	table := seq[i:j]
	i = j
	var using item
	if isWord(at(seq, i), "using") {
		m := tokOf(at(seq, i+1))
		if m == nil || !isName(m) {
			return p.errorAt(seq, i+1)
		}
		switch m.val {
		case "btree", "hash":
		case "gin", "gist":
			// pg_trgm's operator classes are GIN's and GiST's; a btree
			// in their place would answer none of their operators.
			return p.unsupported(m, "index method %s is not supported", m.val).
				WithDetail("epochdb has btree indexes only, so no operator class of %s (such as pg_trgm's %s_trgm_ops) can index a column.", m.val, m.val).
				WithHint("pg_trgm's operators and functions work without the index, by reading every row.")
		default:
			return p.unsupported(m, "index method %s is not supported", m.val)
		}
		using = &synth{anchor: m, space: true, parts: []any{"USING " + upper(m.val)}}
		i += 2
	}
	g := parenGroup(at(seq, i))
	if g == nil {
		return p.errorAt(seq, i)
	}
	var cols []string
	var kids []item
	for n, elem := range splitCommas(g.kids) {
		if len(elem) == 0 {
			return p.errorAt(g.kids, len(kids), g.close)
		}
		if n > 0 {
			kids = append(kids, comma(elem[0]))
		}
		k := 1
		switch {
		case parenGroup(elem[0]) != nil:
			cols = append(cols, figureColname(parenGroup(elem[0]).kids))
		case isName(elem[0]) && tokOf(elem[0]).call && parenGroup(at(elem, 1)) != nil:
			// PostgreSQL takes a function call without the parentheses
			// around an expression that TiDB needs.
			cols = append(cols, tokOf(elem[0]).val)
			elem = append([]item{&synth{anchor: tokOf(elem[0]), space: tokOf(elem[0]).space,
				parts: []any{"(", elem[:2], ")"}}}, elem[2:]...)
		case isName(elem[0]):
			cols = append(cols, tokOf(elem[0]).val)
		default:
			return p.errorAt(elem, 0)
		}
		if isWord(at(elem, k), btreeOpClasses...) {
			// The index orders values as these classes do anyway: by
			// their bytes, which is also the order LIKE 'prefix%' needs
			// that text_pattern_ops gives PostgreSQL.
			elem = slices.Delete(slices.Clone(elem), k, k+1)
		}
		if isWord(at(elem, k), "asc", "desc") {
			k++
		}
		switch {
		case k == len(elem):
		case isWord(elem[k], "nulls"):
			return p.unsupported(tokOf(elem[k]), "NULLS FIRST/LAST in an index is not supported")
		case isWord(elem[k], "collate"):
			return p.unsupported(tokOf(elem[k]), "COLLATE is not supported")
		case isName(elem[k]):
			return p.unsupported(tokOf(elem[k]), "operator classes are not supported")
		default:
			return p.errorAt(elem, k)
		}
		kids = append(kids, elem...)
	}
	g.kids = kids
	i++
	for i < len(seq) {
		t := tokOf(seq[i])
		switch {
		case wordsAt(seq, i, "nulls", "distinct"):
			i += 2
		case isWord(t, "where") && i+1 < len(seq):
			// A partial index: TiDB's CREATE INDEX has no WHERE, so the
			// predicate goes in IndexPredicate, parsed as a query's.
			stmts, err := Parse("SELECT " + p.q[firstTok(seq[i+1]).pos:p.toks[len(p.toks)-1].end])
			if err != nil {
				return err
			}
			p.st.IndexPredicate = stmts[0]
			seq = seq[:i]
		case isWord(t, "include", "nulls", "with", "tablespace"):
			return p.unsupported(t, "CREATE INDEX ... %s is not supported", upper(t.val))
		default:
			return p.errorAt(seq, i)
		}
	}
	if name == nil {
		t := tokOf(on)
		p.st.IndexNameParts = []string{tokOf(table[len(table)-1]).val, strings.Join(cols, "_"), "idx"}
		name = []item{&synth{anchor: t, space: true,
			parts: []any{quoteIdent(ObjectName(p.st.IndexNameParts[0], p.st.IndexNameParts[1], "idx"))}}}
	}
	out = append(out, name...)
	out = append(out, on)
	out = append(out, table...)
	out = append(out, g)
	if using != nil {
		out = append(out, using)
	}
	items, err := p.rewrite(out)
	if err != nil {
		return err
	}
	return p.finish(items, isCreateIndex)
}

// figureColname names an index expression as PostgreSQL's FigureColname
// does for an index's name: after the function it calls, the constructor
// it is, or the column it casts, and otherwise "expr".
func figureColname(expr []item) string {
	for len(expr) == 1 && parenGroup(expr[0]) != nil {
		expr = parenGroup(expr[0]).kids
	}
	t := tokOf(at(expr, 0))
	switch {
	case t == nil:
	case isWord(t, "row", "array", "case") && len(expr) >= 2:
		return t.val
	case isName(t) && t.call && parenGroup(at(expr, 1)) != nil && len(expr) == 2:
		return t.val
	case isName(t) && len(expr) >= 3 && isPunct(expr[1], "::"):
		return t.val
	}
	return "expr"
}

// ObjectName is PostgreSQL's makeObjectName (indexcmds.c): name1_name2_label,
// with name1 and name2 shortened in turn, the longer first, to fit in
// NAMEDATALEN-1 bytes. name2 may be empty. An unnamed index is
// table_col1_col2_idx; an unnamed CHECK, table_col_check.
func ObjectName(name1, name2, label string) string {
	avail := maxIdentLen - len(label) - 1
	if name2 != "" {
		avail--
	}
	n1, n2 := len(name1), len(name2)
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	clip := func(s string, n int) string {
		for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n]
	}
	name := clip(name1, n1)
	if name2 != "" {
		name += "_" + clip(name2, n2)
	}
	return name + "_" + label
}

// createSequence parses CREATE SEQUENCE, whose options TiDB shares except
// AS type and OWNED BY.
func (p *stmtParser) createSequence(seq []item, i int) error {
	out := []item{seq[0], seq[i]} // without TEMPORARY, which Temp says
	for i++; i < len(seq); i++ {
		switch {
		case isWord(seq[i], "as"):
			typ, next, ok := parseType(seq, i+1)
			if !ok {
				return p.errorAt(seq, i+1)
			}
			// The type goes to ColumnTypes, which TiDB's AST lacks a place for.
			p.st.ColumnTypes = append(p.st.ColumnTypes, typ)
			i = next - 1
		case wordsAt(seq, i, "owned", "by"):
			// The sequence's column, as ALTER SEQUENCE ... OWNED BY says it.
			o := &SequenceOwnedBy{}
			if isWord(at(seq, i+2), "none") {
				i += 2
			} else {
				end := skipNameAt(seq, i+2)
				if end < 0 {
					return p.errorAt(seq, i+2)
				}
				var parts []string
				for j := i + 2; j < end; j += 2 {
					parts = append(parts, tokOf(seq[j]).val)
				}
				if len(parts) < 2 {
					return pgerr.New(pgerr.SyntaxError, "invalid relation name: %s", p.q[firstTok(seq[i+2]).pos:tokOf(seq[end-1]).end])
				}
				o.Table, o.Column = strings.Join(parts[:len(parts)-1], "."), parts[len(parts)-1]
				i = end - 1
			}
			p.st.OwnedBy = o
		default:
			out = append(out, seq[i])
		}
	}
	items, err := p.rewrite(out)
	if err != nil {
		return err
	}
	return p.finish(items, isCreateSeq)
}

// AlterIndexRename is ALTER INDEX [IF EXISTS] name RENAME TO new_name.
type AlterIndexRename struct {
	Name, NewName string
	IfExists      bool
}

// RenameConstraint is ALTER TABLE table RENAME CONSTRAINT name TO new_name.
type RenameConstraint struct {
	Table, Name, NewName string
}

// btreeOpClasses are the operator classes an index column may name: the
// default btree classes of epochdb's types, and the pattern classes;
// citext's pattern class orders by the lower-cased bytes, as its default
// one does here.
var btreeOpClasses = []string{
	"text_ops", "varchar_ops", "bpchar_ops", "name_ops", "text_pattern_ops", "varchar_pattern_ops",
	"bpchar_pattern_ops", "int2_ops", "int4_ops", "int8_ops", "numeric_ops", "float4_ops", "float8_ops",
	"bool_ops", "bytea_ops", "date_ops", "timestamp_ops", "timestamptz_ops", "interval_ops", "uuid_ops",
	"oid_ops", "char_ops", "jsonb_ops", "citext_ops", "citext_pattern_ops",
}

// AddIdentity is ALTER TABLE table ALTER COLUMN column ADD GENERATED
// { ALWAYS | BY DEFAULT } AS IDENTITY [ ( sequence options ) ], as pg_dump
// writes identity columns. Sequence is CREATE SEQUENCE with the options,
// named by SEQUENCE NAME or, if that is not given, "".
type AddIdentity struct {
	Table, Column string
	Always        bool
	SequenceName  string
	Sequence      *Statement
}

// addIdentity parses ALTER TABLE's ADD GENERATED ... AS IDENTITY, for the
// table named at seq[i:j] and the column at seq[k].
func (p *stmtParser) addIdentity(seq []item, i, j, k int) error {
	cmd := &AddIdentity{Table: p.q[firstTok(seq[i]).pos:tokOf(seq[j-1]).end]}
	if !isName(at(seq, k)) {
		return p.errorAt(seq, k)
	}
	cmd.Column = tokOf(seq[k]).val
	m := k + 3
	switch {
	case isWord(at(seq, m), "always"):
		cmd.Always, m = true, m+1
	case wordsAt(seq, m, "by", "default"):
		m += 2
	default:
		return p.errorAt(seq, m)
	}
	if !wordsAt(seq, m, "as", "identity") {
		return p.errorAt(seq, m)
	}
	m += 2
	var err error
	cmd.SequenceName, cmd.Sequence, err = p.identityOptions(parenGroup(at(seq, m)))
	if err != nil {
		return err
	}
	if parenGroup(at(seq, m)) != nil {
		m++
	}
	if m != len(seq) {
		return p.errorAt(seq, m)
	}
	p.st.Cmd = cmd
	return nil
}

// AlterIdentity is ALTER TABLE table ALTER COLUMN column followed by SET
// GENERATED { ALWAYS | BY DEFAULT }, SET sequence_option and RESTART [ [
// WITH ] n ] in any number, or by DROP IDENTITY [ IF EXISTS ].
type AlterIdentity struct {
	Table, Column string
	// SetGenerated is 'a' (ALWAYS) or 'd' (BY DEFAULT), or 0.
	SetGenerated byte
	// Restart says to restart the sequence, at RestartWith if set.
	Restart     bool
	RestartWith *int64
	// Sequence holds the SET options, as the ALTER SEQUENCE that says them.
	Sequence *Statement
	Drop     bool
	IfExists bool
}

// alterIdentity parses an AlterIdentity, for the table named at seq[i:j]
// and the column at seq[k].
func (p *stmtParser) alterIdentity(seq []item, i, j, k int) error {
	cmd := &AlterIdentity{Table: p.q[firstTok(seq[i]).pos:tokOf(seq[j-1]).end]}
	if !isName(at(seq, k)) {
		return p.errorAt(seq, k)
	}
	cmd.Column = tokOf(seq[k]).val
	m := k + 1
	var opts []string
	if wordsAt(seq, m, "drop", "identity") {
		cmd.Drop, m = true, m+2
		if wordsAt(seq, m, "if", "exists") {
			cmd.IfExists, m = true, m+2
		}
		if m != len(seq) {
			return p.errorAt(seq, m)
		}
		p.st.Cmd = cmd
		return nil
	}
	for m < len(seq) {
		switch {
		case wordsAt(seq, m, "set", "generated", "always"):
			cmd.SetGenerated, m = 'a', m+3
		case wordsAt(seq, m, "set", "generated", "by", "default"):
			cmd.SetGenerated, m = 'd', m+4
		case isWord(seq[m], "restart"):
			cmd.Restart, m = true, m+1
			if isWord(at(seq, m), "with") {
				m++
			}
			if n, width, ok := signedIntAt(seq, m); ok {
				cmd.RestartWith, m = &n, m+width
			} else if width > 0 {
				return p.errorAt(seq, m)
			}
		case isWord(seq[m], "set"):
			// A sequence option, up to the next SET or RESTART.
			end := m + 1
			for end < len(seq) && !isWord(seq[end], "set", "restart") {
				end++
			}
			if end == m+1 {
				return p.errorAt(seq, end)
			}
			opts = append(opts, p.q[firstTok(seq[m+1]).pos:itemEnd(seq[end-1])])
			m = end
		default:
			return p.errorAt(seq, m)
		}
	}
	if opts != nil {
		stmts, err := Parse("ALTER SEQUENCE epochdb_identity " + strings.Join(opts, " "))
		if err != nil {
			return err
		}
		cmd.Sequence = stmts[0]
	}
	p.st.Cmd = cmd
	return nil
}

// signedIntAt reads an integer, with or without a sign, at seq[i], and
// how many items it spans. It reports false with a width if an integer
// starts there but does not fit an int64.
func signedIntAt(seq []item, i int) (n int64, width int, ok bool) {
	sign := ""
	if t := tokOf(at(seq, i)); t != nil && (isOp(t, "-") || isOp(t, "+")) {
		sign, width = t.val, 1
	}
	t := tokOf(at(seq, i+width))
	if t == nil || t.kind != tkNumber {
		return 0, 0, false
	}
	n, err := strconv.ParseInt(sign+t.val, 10, 64)
	return n, width + 1, err == nil
}

// IdentityColumn is a CREATE TABLE column's GENERATED ... AS IDENTITY
// options, which TiDB's grammar cannot say: SEQUENCE NAME, if given, and
// the rest as CREATE SEQUENCE.
type IdentityColumn struct {
	Column, SequenceName string
	Sequence             *Statement
}

// identityOptions reads the options in parentheses (g, or nil for none)
// after AS IDENTITY: SEQUENCE NAME, and the sequence options, which it
// parses as a CREATE SEQUENCE.
func (p *stmtParser) identityOptions(g *group) (string, *Statement, error) {
	name, opts := "", ""
	if g != nil {
		kids := g.kids
		for n := 0; n < len(kids); {
			if wordsAt(kids, n, "sequence", "name") {
				e := skipNameAt(kids, n+2)
				if e < 0 {
					return "", nil, p.errorAt(kids, n+2, g.close)
				}
				name = p.q[firstTok(kids[n+2]).pos:tokOf(kids[e-1]).end]
				n = e
				continue
			}
			t := tokOf(kids[n])
			if t == nil {
				return "", nil, p.errorAt(kids, n, g.close)
			}
			opts += " " + p.q[t.pos:t.end]
			n++
		}
	}
	stmts, err := Parse("CREATE SEQUENCE epochdb_identity" + opts)
	if err != nil {
		return "", nil, err
	}
	return name, stmts[0], nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// alterIndex parses ALTER INDEX, of which epochdb does RENAME TO.
func (p *stmtParser) alterIndex() error {
	c := &cursor{p: p, toks: p.toks, i: 2}
	cmd := &AlterIndexRename{IfExists: c.acceptSeq("if", "exists")}
	var err error
	if cmd.Name, err = c.qualifiedName(); err != nil {
		return err
	}
	if !c.is("rename") {
		if c.i < len(c.toks) {
			return p.unsupported(c.peek(), "ALTER INDEX ... %s is not supported", upper(c.peek().val))
		}
		return c.fail()
	}
	c.i++
	if err := c.expect("to"); err != nil {
		return err
	}
	if cmd.NewName, err = c.name(); err != nil {
		return err
	}
	if err := c.end(); err != nil {
		return err
	}
	p.st.Cmd = cmd
	return nil
}

// renameConstraint parses ALTER TABLE [ONLY] table RENAME CONSTRAINT a TO b.
func (p *stmtParser) renameConstraint() error {
	c := &cursor{p: p, toks: p.toks, i: 2}
	if c.is("if") {
		return p.unsupported(c.peek(), "ALTER TABLE IF EXISTS is not supported")
	}
	c.accept("only")
	cmd := &RenameConstraint{}
	var err error
	if cmd.Table, err = c.qualifiedName(); err != nil {
		return err
	}
	if err := c.expect("rename"); err != nil {
		return err
	}
	if err := c.expect("constraint"); err != nil {
		return err
	}
	if cmd.Name, err = c.name(); err != nil {
		return err
	}
	if err := c.expect("to"); err != nil {
		return err
	}
	if cmd.NewName, err = c.name(); err != nil {
		return err
	}
	if err := c.end(); err != nil {
		return err
	}
	p.st.Cmd = cmd
	return nil
}

// alterSequence parses ALTER SEQUENCE name options, whose options TiDB
// reads as PostgreSQL writes them (RESTART [WITH n], INCREMENT BY, MINVALUE,
// MAXVALUE, START WITH, CACHE).
func (p *stmtParser) alterSequence(seq []item) error {
	for j := 2; j < len(seq); j++ {
		switch {
		case isWord(seq[j], "rename", "owner", "set"):
			return p.unsupported(tokOf(seq[j]), "ALTER SEQUENCE ... %s is not supported", upper(tokOf(seq[j]).val))
		case wordsAt(seq, j, "owned", "by"), isWord(seq[j], "as"):
			return p.unsupported(tokOf(seq[j]), "ALTER SEQUENCE ... %s is not supported", upper(tokOf(seq[j]).val))
		}
	}
	items, err := p.rewrite(seq)
	if err != nil {
		return err
	}
	return p.finish(items, isAlterSeq)
}

// drop parses DROP TABLE, DROP SEQUENCE and DROP INDEX.
func (p *stmtParser) drop() error {
	seq, err := p.buildTree(p.toks)
	if err != nil {
		return err
	}
	kind := tokOf(at(seq, 1))
	if kind == nil {
		return p.syntaxErrorAtEnd()
	}
	if isWord(kind, "type") {
		return p.command(parseDropType, 2)
	}
	if isWord(kind, "extension") {
		return p.command(parseDropExtension, 2)
	}
	if isWord(kind, "schema") {
		return p.command(parseDropSchema, 2)
	}
	if isWord(kind, "materialized") {
		return p.command(parseDropMatView, 2)
	}
	if isWord(kind, "function", "procedure", "routine") {
		return p.dropFunction(seq)
	}
	if isWord(kind, "trigger") {
		return p.command(parseDropTrigger, 2)
	}
	if n := len(seq); n > 2 && isWord(seq[n-1], "restrict", "cascade") {
		p.st.Cascade = isWord(seq[n-1], "cascade")
		seq = seq[:n-1]
	}
	switch {
	case isWord(kind, "table"):
		items, err := p.rewrite(seq)
		if err != nil {
			return err
		}
		return p.finish(items, isDropTable)
	case isWord(kind, "sequence"):
		items, err := p.rewrite(seq)
		if err != nil {
			return err
		}
		return p.finish(items, isDropSeq)
	case isWord(kind, "index"):
		return p.dropIndex(seq)
	case isWord(kind, "view"):
		items, err := p.rewrite(seq)
		if err != nil {
			return err
		}
		return p.finish(items, isDropTable) // TiDB's DropTableStmt, IsView set
	}
	return p.unsupported(tokOf(seq[0]), "%s is not supported", upper(p.q[p.toks[0].pos:kind.end]))
}

// dropIndex parses DROP INDEX [CONCURRENTLY] [IF EXISTS] name. TiDB wants
// the index's table, which PostgreSQL does not name, so this builds the AST
// itself: Table holds only the schema, if the index name has one.
func (p *stmtParser) dropIndex(seq []item) error {
	i := 2
	if isWord(at(seq, i), "concurrently") {
		i++
	}
	stmt := &ast.DropIndexStmt{Table: &ast.TableName{}}
	if wordsAt(seq, i, "if", "exists") {
		stmt.IfExists = true
		i += 2
	}
	j := skipNameAt(seq, i)
	if j < 0 {
		return p.errorAt(seq, i)
	}
	switch {
	case isPunct(at(seq, j), ","):
		return p.unsupported(tokOf(seq[j]), "dropping several indexes at once is not supported")
	case j < len(seq):
		return p.errorAt(seq, j)
	case j-i == 3:
		stmt.Table.Schema = ast.NewCIStr(tokOf(seq[i]).val)
		i += 2
	case j-i > 3:
		return p.unsupported(tokOf(seq[i]), "cross-database references are not implemented")
	}
	stmt.IndexName = tokOf(seq[i]).val
	p.st.AST = stmt
	return nil
}

// alter parses ALTER TABLE.
func (p *stmtParser) alter() error {
	if cmd, err := p.alterOwner(); cmd != nil || err != nil {
		p.st.Cmd = cmd
		return err
	}
	if cmd, err := p.sequenceOwnedBy(); cmd != nil || err != nil {
		p.st.Cmd = cmd
		return err
	}
	if cmd, err := p.enableTrigger(); cmd != nil || err != nil {
		p.st.Cmd = cmd
		return err
	}
	seq, err := p.buildTree(p.toks)
	if err != nil {
		return err
	}
	if isWord(at(seq, 1), "sequence") {
		return p.alterSequence(seq)
	}
	if isWord(at(seq, 1), "index") {
		return p.alterIndex()
	}
	if isWord(at(seq, 1), "type") {
		return p.command(parseAlterType, 2)
	}
	if isWord(at(seq, 1), "schema") {
		return p.command(parseAlterSchema, 2)
	}
	if isWord(at(seq, 1), "function", "procedure", "routine") {
		return p.alterFunction(seq)
	}
	if isWord(at(seq, 1), "trigger") {
		return p.command(parseAlterTrigger, 2)
	}
	if isWord(at(seq, 1), "view") {
		return p.command(parseAlterView(false), 2)
	}
	if isWord(at(seq, 1), "materialized") && isWord(at(seq, 2), "view") {
		return p.command(parseAlterView(true), 3)
	}

	if !isWord(at(seq, 1), "table") {
		kind := tokOf(at(seq, 1))
		if kind == nil {
			return p.syntaxErrorAtEnd()
		}
		return p.unsupported(tokOf(seq[0]), "ALTER %s is not supported", upper(kind.val))
	}
	out := append([]item(nil), seq[:2]...)
	i := 2
	if wordsAt(seq, i, "if", "exists") {
		// TiDB's AST has nowhere to say it.
		return p.unsupported(tokOf(seq[i]), "ALTER TABLE IF EXISTS is not supported")
	}
	seq, i = stripOnly(seq, i)
	j := skipNameAt(seq, i)
	if j < 0 {
		return p.errorAt(seq, i)
	}
	out = append(out, seq[i:j]...)
	if j == len(seq) {
		return p.syntaxErrorAtEnd()
	}
	if isWord(seq[j], "rename") && isWord(at(seq, j+1), "constraint") {
		return p.renameConstraint()
	}
	if k := j + 1 + btoi(isWord(at(seq, j+1), "column")); isWord(seq[j], "alter") && wordsAt(seq, k+1, "add", "generated") {
		return p.addIdentity(seq, i, j, k)
	}
	if k := j + 1 + btoi(isWord(at(seq, j+1), "column")); isWord(seq[j], "alter") &&
		(wordsAt(seq, k+1, "set", "generated") || isWord(at(seq, k+1), "restart") || wordsAt(seq, k+1, "drop", "identity") ||
			isWord(at(seq, k+1), "set") && isWord(at(seq, k+2), "increment", "start", "minvalue", "maxvalue", "no", "cache", "cycle")) {
		return p.alterIdentity(seq, i, j, k)
	}
	if isWord(seq[j], "rename") {
		r, err := p.alterRename(seq, j)
		if err != nil {
			return err
		}
		out = append(out, r...)
	} else {
		for n, action := range splitCommas(seq[j:]) {
			if len(action) == 0 {
				return p.errorAt(seq, j)
			}
			if n > 0 {
				out = append(out, comma(action[0]))
			}
			a, err := p.alterAction(action)
			if err != nil {
				return err
			}
			out = append(out, a...)
		}
	}
	items, err := p.rewrite(out)
	if err != nil {
		return err
	}
	return p.finish(items, isAlterTable)
}

// alterRename parses RENAME TO name and RENAME [COLUMN] a TO b.
func (p *stmtParser) alterRename(seq []item, i int) ([]item, error) {
	switch {
	case isWord(at(seq, i+1), "to"):
		if !isName(at(seq, i+2)) || i+3 != len(seq) {
			return nil, p.errorAt(seq, i+2+min(len(seq)-i-2, 1))
		}
		return seq[i:], nil
	}
	j := i + 1
	if isWord(at(seq, j), "column") {
		j++
	}
	if !isName(at(seq, j)) || !isWord(at(seq, j+1), "to") || !isName(at(seq, j+2)) || j+3 != len(seq) {
		return nil, p.errorAt(seq, j)
	}
	t := tokOf(seq[i])
	return []item{&synth{anchor: t, space: t.space, parts: []any{"RENAME COLUMN"}}, seq[j], seq[j+1], seq[j+2]}, nil
}

// alterType rewrites ALTER [COLUMN] c [SET DATA] TYPE type [USING expr],
// whose verb is at a[i], as MODIFY COLUMN c TEXT COMMENT 'epochdb_type'
// [DEFAULT (epochdb_default(expr))]: the type goes to ColumnTypes, as a
// new column's does, and the USING expression rides in the DEFAULT (in
// the wrapper TiDB takes any expression in), which is how the planner
// reads this form.
func (p *stmtParser) alterType(a []item, i int) ([]item, error) {
	j := i + 1
	if isWord(a[i], "set") {
		j = i + 3
	}
	typ, k, ok := parseType(a, j)
	if !ok {
		return nil, p.errorAt(a, j)
	}
	if isWord(at(a, k), "collate") {
		return nil, p.unsupported(tokOf(a[k]), "COLLATE is not supported")
	}
	p.st.ColumnTypes = append(p.st.ColumnTypes, typ)
	t := tokOf(a[0])
	out := []item{&synth{anchor: t, space: t.space, parts: []any{"MODIFY COLUMN"}}, a[i-1],
		&synth{anchor: firstTok(a[i]), space: true, parts: []any{"TEXT COMMENT 'epochdb_type'"}}}
	switch {
	case k == len(a):
		return out, nil
	case isWord(a[k], "using") && k+1 < len(a):
		using, err := p.fold(a[k+1:])
		if err != nil {
			return nil, err
		}
		return append(out, &synth{anchor: tokOf(a[k]), space: true, parts: []any{"DEFAULT (epochdb_default(", using, "))"}}), nil
	}
	return nil, p.errorAt(a, k)
}

// alterAction rewrites one ALTER TABLE action.
func (p *stmtParser) alterAction(a []item) ([]item, error) {
	t := tokOf(a[0])
	switch {
	case isWord(t, "add"):
		if isWord(at(a, 1), "constraint", "primary", "unique", "check", "foreign", "exclude") {
			c, err := p.tableConstraint(a[1:])
			if err != nil {
				return nil, err
			}
			return append([]item{t}, c...), nil
		}
		i := 1
		if isWord(at(a, i), "column") {
			i++
		}
		if wordsAt(a, i, "if", "not", "exists") {
			i += 3
		}
		if i == len(a) {
			return nil, p.syntaxErrorAtEnd()
		}
		col, moved, err := p.columnDef(a[i:])
		if err != nil {
			return nil, err
		}
		out := append(append([]item(nil), a[:i]...), col...)
		for _, c := range moved {
			out = append(out, comma(c[0]), &synth{anchor: firstTok(c[0]), space: true, parts: []any{"ADD"}})
			out = append(out, c...)
		}
		return out, nil
	case isWord(t, "drop"):
		i := 1
		if isWord(at(a, i), "constraint", "column") {
			i++
		}
		if wordsAt(a, i, "if", "exists") {
			if isWord(a[1], "constraint") {
				// TiDB's AST has nowhere to say it.
				return nil, p.unsupported(tokOf(a[i]), "DROP CONSTRAINT IF EXISTS is not supported")
			}
			i += 2
		}
		if !isName(at(a, i)) {
			return nil, p.errorAt(a, i)
		}
		i++
		switch {
		case i == len(a):
		case isWord(a[i], "restrict") && i+1 == len(a):
			a = a[:i]
		case isWord(a[i], "cascade") && i+1 == len(a):
			p.st.Cascade = true
			a = a[:i]
		default:
			return nil, p.errorAt(a, i)
		}
		return a, nil
	case isWord(t, "alter"):
		i := 1
		if isWord(at(a, i), "column") {
			i++
		}
		if !isName(at(a, i)) {
			return nil, p.errorAt(a, i)
		}
		i++
		switch {
		case wordsAt(a, i, "drop", "default") && i+2 == len(a):
			return a, nil
		case isWord(at(a, i), "type") || wordsAt(a, i, "set", "data", "type"):
			return p.alterType(a, i)
		case (wordsAt(a, i, "set", "not", "null") || wordsAt(a, i, "drop", "not", "null")) && i+3 == len(a):
			// TiDB changes nullability only by restating the column:
			// MODIFY COLUMN c TEXT [NOT] NULL, whose type the planner
			// ignores.
			t := tokOf(a[0])
			null := "TEXT NULL"
			if isWord(a[i], "set") {
				null = "TEXT NOT NULL"
			}
			return []item{&synth{anchor: t, space: t.space, parts: []any{"MODIFY COLUMN"}}, a[i-1],
				&synth{anchor: tokOf(a[i]), space: true, parts: []any{null}}}, nil
		case wordsAt(a, i, "set", "default") && i+2 < len(a):
			def, err := p.fold(a[i+2:])
			if err != nil {
				return nil, err
			}
			if !simpleDefault(def) {
				// TiDB's SET DEFAULT takes a literal or a parenthesized expression.
				def = []item{&synth{anchor: firstTok(def[0]), space: true, parts: []any{"(", def, ")"}}}
			}
			return append(a[:i+2:i+2], def...), nil
		case i < len(a):
			what := tokOf(a[i])
			n := 1
			switch {
			case wordsAt(a, i, "set", "data", "type"), wordsAt(a, i, "set", "not", "null"), wordsAt(a, i, "drop", "not", "null"):
				n = 3
			case isWord(what, "set", "drop", "add", "reset"):
				n = min(2, len(a)-i)
			}
			return nil, p.unsupported(what, "ALTER TABLE ... ALTER COLUMN ... %s is not supported",
				upper(p.q[what.pos:firstTok(a[i+n-1]).end]))
		}
		return nil, p.syntaxErrorAtEnd()
	case t != nil && t.kind == tkWord:
		return nil, p.unsupported(t, "ALTER TABLE ... %s is not supported", upper(t.val))
	}
	return nil, p.errorAt(a, 0)
}

// explain parses EXPLAIN [ANALYZE] [VERBOSE] statement and EXPLAIN
// (options) statement.
func (p *stmtParser) explain() error {
	seq, err := p.buildTree(p.toks)
	if err != nil {
		return err
	}
	analyze := false
	opts := &ExplainOptions{Costs: true, Timing: true, Format: "text"}
	timingSet := false
	i := 1
	if g := parenGroup(at(seq, i)); g != nil && !isWord(at(g.kids, 0), "select", "values", "with", "table") {
		for _, opt := range splitCommas(g.kids) {
			name := tokOf(at(opt, 0))
			if name == nil || name.kind != tkWord {
				return p.errorAt(opt, 0, g.close)
			}
			if len(opt) > 2 {
				return p.errorAt(opt, 2)
			}
			value := "true"
			if len(opt) == 2 {
				v, _, ok := optionValue(opt, 1)
				if !ok {
					return p.errorAt(opt, 1)
				}
				value = strings.ToLower(v)
			}
			flag := func() (bool, error) {
				b, ok := parseBool(value)
				if !ok {
					return false, p.syntaxMsg(name, "%s requires a Boolean value", name.val)
				}
				return b, nil
			}
			var err error
			switch name.val {
			case "analyze", "analyse":
				analyze, err = flag()
			case "costs":
				opts.Costs, err = flag()
			case "timing":
				opts.Timing, err = flag()
				timingSet = true
			case "summary":
				var b bool
				b, err = flag()
				opts.Summary = &b
			case "format":
				switch value {
				case "text", "json":
					opts.Format = value
				case "xml", "yaml":
					return p.unsupported(name, "EXPLAIN FORMAT %s is not supported", upper(value))
				default:
					return p.invalidParam(name, "unrecognized value for EXPLAIN option \"format\": \"%s\"", value)
				}
			case "verbose", "settings", "buffers", "wal", "generic_plan":
				// Accepted; epochdb's plans have nothing more to show for them.
				if _, err = flag(); err != nil {
					return err
				}
			default:
				return p.syntaxMsg(name, "unrecognized EXPLAIN option \"%s\"", name.val)
			}
			if err != nil {
				return err
			}
		}
		i++
		if timingSet && opts.Timing && !analyze {
			return p.invalidParam(tokOf(seq[0]), "EXPLAIN option TIMING requires ANALYZE")
		}
	} else {
		if isWord(at(seq, i), "analyze", "analyse") {
			analyze = true
			i++
		}
		if isWord(at(seq, i), "verbose") {
			i++
		}
	}
	opts.Analyze = analyze
	p.st.Explain = opts
	out := []item{seq[0]}
	if analyze {
		out = append(out, &synth{anchor: tokOf(seq[0]), space: true, parts: []any{"ANALYZE"}})
	}
	inner, main, err := p.with(seq[i:])
	if err != nil {
		return err
	}
	if p.st.WithDML != nil {
		return p.unsupported(tokOf(seq[0]), "EXPLAIN of a statement with a data-modifying WITH query is not supported")
	}
	if main > 0 && isWord(at(inner, main), "insert") {
		return p.unsupported(tokOf(inner[main]), "EXPLAIN of WITH ... INSERT is not supported")
	}
	var items []item
	switch {
	case main >= len(inner):
		return p.syntaxErrorAtEnd()
	case isWord(inner[main], "insert", "update", "delete"):
		for _, it := range inner[main:] {
			if isWord(it, "returning") || isWord(it, "conflict") {
				return p.unsupported(tokOf(it), "EXPLAIN of a statement with %s is not supported", upper(tokOf(it).val))
			}
		}
		items, _, err = p.dmlItems(inner, main)
	case isWord(inner[main], "select", "values", "table") || parenGroup(inner[main]) != nil:
		items, err = p.queryItems(inner, main)
	default:
		return p.unsupported(firstTok(inner[main]), "EXPLAIN of this statement is not supported")
	}
	if err != nil {
		return err
	}
	return p.finish(append(out, items...), isExplain)
}
