package parser

import (
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// QualifyRelations rewrites a query so that the relations its FROM
// clauses name carry a schema: each unqualified name in a FROM list or
// after JOIN for which schema returns one is prefixed by it, the rest of
// the text as written. pg_dump sets an empty search_path before it
// creates a view, so a view's definition must not depend on one, as
// PostgreSQL's deparsed views do not.
func QualifyRelations(query string, schema func(name string) string) (string, error) {
	toks, err := lex(query)
	if err != nil {
		return "", err
	}
	// inFrom[d] is set while the tokens at paren depth d are a FROM list;
	// query[d] if they are a query, not a function's arguments as in
	// extract(year FROM x).
	inFrom, isQuery := []bool{false}, []bool{true}
	expect := false // the next name is a relation
	out, last := []byte{}, 0
	for i := range toks {
		t := &toks[i]
		d := len(inFrom) - 1
		switch {
		case t.kind == tkPunct && t.val == "(":
			inFrom = append(inFrom, false)
			isQuery = append(isQuery, i+1 < len(toks) && isWord(&toks[i+1], "select", "with", "values", "table"))
			expect = false
			continue
		case t.kind == tkPunct && t.val == ")":
			if d > 0 {
				inFrom, isQuery = inFrom[:d], isQuery[:d]
			}
			continue
		case t.kind == tkPunct && t.val == ",":
			expect = inFrom[d]
			continue
		case isWord(t, "from") && isQuery[d]:
			inFrom[d], expect = true, true
			continue
		case isWord(t, "join"):
			expect = true
			continue
		case isWord(t, "where", "group", "having", "order", "limit", "offset", "fetch", "window",
			"union", "intersect", "except", "for", "returning", "select", "values"):
			inFrom[d], expect = false, false
			continue
		case expect && isWord(t, "only", "lateral"):
			continue
		}
		if expect && (t.kind == tkWord || t.kind == tkQIdent) && !followedBy(toks, i, ".") && !followedBy(toks, i, "(") {
			if s := schema(t.val); s != "" {
				out = append(out, query[last:t.pos]...)
				out = append(out, QuoteIdent(s)+"."...)
				last = t.pos
			}
		}
		expect = false
	}
	return string(append(out, query[last:]...)), nil
}

func followedBy(toks []token, i int, punct string) bool {
	return i+1 < len(toks) && toks[i+1].kind == tkPunct && toks[i+1].val == punct
}

// AlterOwner is ALTER {TABLE | SEQUENCE | VIEW | INDEX | TYPE} [ONLY] name OWNER
// TO role, which pg_dump writes after every object it creates. Kind is
// the object's kind in lower case; Role is the role's name, or
// "current_user" or "session_user" (CURRENT_ROLE is current_user).
type AlterOwner struct {
	Kind, Name, Role string
}

// alterOwner parses ALTER ... OWNER TO, or returns nil if the statement
// is another ALTER.
func (p *stmtParser) alterOwner() (*AlterOwner, error) {
	c := &cursor{p: p, toks: p.toks, i: 1}
	if !c.accept("table", "sequence", "view", "index", "type", "schema") {
		return nil, nil
	}
	a := &AlterOwner{Kind: c.prev().val}
	if a.Kind == "table" {
		c.accept("only")
	}
	name, err := c.qualifiedName()
	if err != nil || !c.acceptSeq("owner", "to") {
		return nil, nil
	}
	a.Name = name
	switch {
	case c.accept("current_user", "current_role"):
		a.Role = "current_user"
	case c.accept("session_user"):
		a.Role = "session_user"
	default:
		if a.Role, err = c.name(); err != nil {
			return nil, err
		}
	}
	return a, c.end()
}

// SequenceOwnedBy is ALTER SEQUENCE [IF EXISTS] name OWNED BY
// {table.column | NONE}: the column whose table takes the sequence with it
// when dropped, as pg_dump restores a serial column. Table is "" for NONE.
type SequenceOwnedBy struct {
	Name, Table, Column string
	IfExists            bool
}

// sequenceOwnedBy parses ALTER SEQUENCE ... OWNED BY alone, or returns
// nil for another ALTER.
func (p *stmtParser) sequenceOwnedBy() (*SequenceOwnedBy, error) {
	c := &cursor{p: p, toks: p.toks, i: 1}
	if !c.accept("sequence") {
		return nil, nil
	}
	o := &SequenceOwnedBy{IfExists: c.acceptSeq("if", "exists")}
	name, err := c.qualifiedName()
	if err != nil || !c.acceptSeq("owned", "by") {
		return nil, nil
	}
	o.Name = name
	if c.accept("none") {
		return o, c.end()
	}
	ref, err := c.qualifiedName()
	if err != nil {
		return nil, err
	}
	i := strings.LastIndexByte(ref, '.')
	if i < 0 {
		return nil, pgerr.New(pgerr.SyntaxError, "invalid relation name: %s", ref)
	}
	o.Table, o.Column = ref[:i], ref[i+1:]
	return o, c.end()
}

// RenameRelation rewrites query, a view's, for the rename of relation
// old to new: the FROM and JOIN items that name old (bare or as
// public.old) and the column qualifiers old.x name new instead, the rest
// of the text as written. It reports false, changing nothing, where old
// appears as anything else (an alias, a WITH query, a column, a
// function), since a token-level rewrite could not tell those uses apart.
func RenameRelation(query, old, new string) (string, bool, error) {
	toks, err := lex(query)
	if err != nil {
		return "", false, err
	}
	inFrom, isQuery := []bool{false}, []bool{true}
	expect := false // the next name is a relation
	out, last := []byte{}, 0
	replace := func(t *token) {
		out = append(out, query[last:t.pos]...)
		out = append(out, QuoteIdent(new)...)
		last = t.end
	}
	for i := range toks {
		t := &toks[i]
		d := len(inFrom) - 1
		switch {
		case t.kind == tkPunct && t.val == "(":
			inFrom = append(inFrom, false)
			isQuery = append(isQuery, i+1 < len(toks) && isWord(&toks[i+1], "select", "with", "values", "table"))
			expect = false
			continue
		case t.kind == tkPunct && t.val == ")":
			if d > 0 {
				inFrom, isQuery = inFrom[:d], isQuery[:d]
			}
			continue
		case t.kind == tkPunct && t.val == ",":
			expect = inFrom[d]
			continue
		case isWord(t, "from") && isQuery[d]:
			inFrom[d], expect = true, true
			continue
		case isWord(t, "join"):
			expect = true
			continue
		case isWord(t, "where", "group", "having", "order", "limit", "offset", "fetch", "window",
			"union", "intersect", "except", "for", "returning", "select", "values", "on", "using"):
			inFrom[d], expect = false, false
			continue
		case expect && isWord(t, "only", "lateral"):
			continue
		}
		named := (t.kind == tkWord || t.kind == tkQIdent) && t.val == old
		switch {
		case expect && (t.kind == tkWord || t.kind == tkQIdent) && isWord(t, "public") && followedBy(toks, i, "."):
			continue // public.old: the name comes next
		case expect && named && !followedBy(toks, i, "(") && !followedBy(toks, i, "."):
			replace(t) // a FROM item naming old, aliased or not
		case named && followedBy(toks, i, ".") && !(i > 0 && toks[i-1].kind == tkPunct && toks[i-1].val == "."):
			replace(t) // old.column
		case named:
			return query, false, nil
		}
		if !(t.kind == tkPunct && t.val == ".") {
			expect = false
		}
	}
	return string(append(out, query[last:]...)), true, nil
}

// MentionsName reports whether query has name as a word or a quoted
// identifier anywhere: whether renaming a column called name could
// change what the query means.
func MentionsName(query, name string) bool {
	toks, err := lex(query)
	if err != nil {
		return true
	}
	for i := range toks {
		if t := &toks[i]; (t.kind == tkWord || t.kind == tkQIdent) && t.val == name {
			return true
		}
	}
	return false
}
