package parser

import (
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// Functions and procedures: CREATE [OR REPLACE] FUNCTION and PROCEDURE,
// ALTER, DROP, CALL and DO. A routine's body is a string the session
// compiles when the routine is called; this package reads the header:
// parameters, result, and options.

// CreateFunction is CREATE [OR REPLACE] {FUNCTION | PROCEDURE}.
type CreateFunction struct {
	Name                 string // qualified as qualifiedName joins it
	Procedure, OrReplace bool
	Params               []FuncParam
	// Returns is the result type, normalized as column types are, or ""
	// if RETURNS is left out; Table holds RETURNS TABLE's columns.
	Returns    string
	ReturnsSet bool
	Table      []FuncParam
	Options    FuncOptions
	// Body is AS's string; SQLBody the SQL-standard body, RETURN expr or
	// BEGIN ATOMIC ... END, as written.
	Body, SQLBody string
}

// FuncParam is a parameter of CREATE FUNCTION, or of a routine named by
// its signature. Type is normalized as column types are; a column's type
// copied with %TYPE is "name%type". Mode is "in", "out", "inout" or
// "variadic"; Default is the default's expression as written, or "".
type FuncParam struct {
	Name, Type, Mode, Default string
}

// FuncOptions are the options of CREATE FUNCTION and ALTER FUNCTION, as
// written; those left out are zero.
type FuncOptions struct {
	Language   string
	Volatility string // "immutable", "stable" or "volatile"
	// Strict is "strict" for STRICT or RETURNS NULL ON NULL INPUT,
	// "called" for CALLED ON NULL INPUT.
	Strict    string
	Security  string // "definer" or "invoker"
	Leakproof string // "leakproof" or "not leakproof"
	Parallel  string // "safe", "restricted" or "unsafe"
	// Cost and Rows are 0 if not given.
	Cost, Rows float64
	// Set are the SET clauses, as name=value; FROM CURRENT is the value
	// "\x00current". Reset are ALTER's RESET names ("all" for RESET ALL).
	Set, Reset []string
	Window     bool
	// Support is SUPPORT's function name.
	Support string
}

// FuncRef names a routine, with its input parameters' types if Args is
// set (a list, perhaps empty, was written).
type FuncRef struct {
	Name    string
	Params  []FuncParam
	HasArgs bool
}

// DropFunction is DROP {FUNCTION | PROCEDURE | ROUTINE} [IF EXISTS] name
// [(args)] [, ...] [CASCADE | RESTRICT]. Kind is "function", "procedure"
// or "routine".
type DropFunction struct {
	Kind              string
	Funcs             []FuncRef
	IfExists, Cascade bool
}

// AlterFunction is ALTER {FUNCTION | PROCEDURE | ROUTINE} name [(args)]
// followed by RENAME TO, OWNER TO, SET SCHEMA, or options.
type AlterFunction struct {
	Kind                     string
	Func                     FuncRef
	Rename, Owner, SetSchema string
	Options                  FuncOptions
}

// Call is CALL name(args). Call is a SELECT of the call, so that its
// arguments go through the rewrite every expression does.
type Call struct {
	Call *Statement
}

// Do is DO [LANGUAGE name] code.
type Do struct {
	Language, Code string
}

// createFunction parses CREATE FUNCTION or PROCEDURE from the token after
// the keyword, at p.toks[i+1].
func (p *stmtParser) createFunction(seq []item, i int, orReplace bool, atomic string) error {
	cf := &CreateFunction{OrReplace: orReplace, Procedure: isWord(seq[i], "procedure"), SQLBody: atomic}
	p.st.NumParams = 0 // a $n is the body's
	name, j, err := p.routineName(seq, i+1)
	if err != nil {
		return err
	}
	cf.Name = name
	g := parenGroup(at(seq, j))
	if g == nil {
		return p.errorAt(seq, j)
	}
	if cf.Params, err = p.funcParams(g, true); err != nil {
		return err
	}
	j++
	if wordsAt(seq, j, "returns") && !wordsAt(seq, j, "returns", "null") {
		if cf.Procedure {
			return p.syntaxError(tokOf(seq[j]))
		}
		j++
		if isWord(at(seq, j), "table") && parenGroup(at(seq, j+1)) != nil {
			cols, err := p.funcParams(parenGroup(seq[j+1]), false)
			if err != nil {
				return err
			}
			for k := range cols {
				cols[k].Mode = "table"
			}
			cf.Table, cf.ReturnsSet = cols, true
			j += 2
		} else {
			if isWord(at(seq, j), "setof") {
				cf.ReturnsSet = true
				j++
			}
			typ, next, err := p.funcType(seq, j)
			if err != nil {
				return err
			}
			cf.Returns, j = typ, next
		}
	}
	return p.funcOptions(seq, j, cf)
}

// atomicBody cuts a BEGIN ATOMIC ... END body from the statement's
// tokens, which the token tree would take for a CASE's END, and returns
// its text.
func (p *stmtParser) atomicBody() string {
	for k := 1; k+1 < len(p.toks); k++ {
		if isWord(&p.toks[k], "begin") && isWord(&p.toks[k+1], "atomic") {
			body := p.q[p.toks[k].pos:p.toks[len(p.toks)-1].end]
			p.toks = p.toks[:k]
			return body
		}
	}
	return ""
}

// routineName reads a routine's possibly qualified name at seq[i].
func (p *stmtParser) routineName(seq []item, i int) (string, int, error) {
	var b strings.Builder
	for {
		t := tokOf(at(seq, i))
		if !isName(t) {
			return "", i, p.errorAt(seq, i)
		}
		part := t.val
		if strings.ContainsAny(part, `."`) {
			part = quoteIdent(part)
		}
		b.WriteString(part)
		i++
		if !isPunct(at(seq, i), ".") {
			return b.String(), i, nil
		}
		b.WriteByte('.')
		i++
	}
}

// funcParams reads a parameter list. Defaults are allowed in CREATE's.
func (p *stmtParser) funcParams(g *group, defaults bool) ([]FuncParam, error) {
	if len(g.kids) == 0 {
		return nil, nil
	}
	var out []FuncParam
	for _, elem := range splitCommas(g.kids) {
		if len(elem) == 0 {
			return nil, p.syntaxError(g.close)
		}
		fp, err := p.funcParam(elem, defaults)
		if err != nil {
			return nil, err
		}
		out = append(out, fp)
	}
	return out, nil
}

// paramModes are the words that give a parameter's mode.
var paramModes = map[string]string{"in": "in", "out": "out", "inout": "inout", "variadic": "variadic"}

// funcParam reads one parameter: [mode] [name] type [{DEFAULT | =} expr],
// or name mode type.
func (p *stmtParser) funcParam(elem []item, defaults bool) (FuncParam, error) {
	fp := FuncParam{Mode: "in"}
	i := 0
	mode := func() {
		if t := tokOf(at(elem, i)); isWord(t) && paramModes[t.val] != "" && i+1 < len(elem) && !isPunct(elem[i+1], ".") {
			fp.Mode = paramModes[t.val]
			i++
			if fp.Mode == "in" && isWord(at(elem, i), "out") && i+1 < len(elem) {
				fp.Mode = "inout"
				i++
			}
		}
	}
	mode()
	// A name comes first if what follows it is still a type.
	end := len(elem)
	for k, it := range elem {
		if isWord(it, "default") || isOp(it, "=") {
			end = k
			break
		}
	}
	if _, next, ok := parseType(elem[:end], i); !ok || next < end && !isOp(at(elem, next), "%") {
		if t := tokOf(at(elem, i)); isName(t) {
			fp.Name = t.val
			i++
			if fp.Mode == "in" {
				mode()
			}
		}
	}
	typ, next, err := p.funcType(elem[:end], i)
	if err != nil {
		return fp, err
	}
	if next != end {
		return fp, p.errorAt(elem, next)
	}
	fp.Type = typ
	if end < len(elem) {
		if !defaults {
			return fp, p.syntaxError(tokOf(elem[end]))
		}
		if end+1 >= len(elem) {
			return fp, p.errorAt(elem, end+1, tokOf(elem[end]))
		}
		fp.Default = p.q[firstTok(elem[end+1]).pos:itemEnd(elem[len(elem)-1])]
	}
	return fp, nil
}

// funcType reads a parameter's or result's type at seq[i]: a type name,
// or a column's type copied with name%TYPE.
func (p *stmtParser) funcType(seq []item, i int) (string, int, error) {
	typ, next, ok := parseType(seq, i)
	if !ok {
		return "", i, p.errorAt(seq, i)
	}
	if isOp(at(seq, next), "%") {
		if !isWord(at(seq, next+1), "type") {
			return "", next, p.errorAt(seq, next+1)
		}
		return typ + "%type", next + 2, nil
	}
	return typ, next, nil
}

// funcOptions reads CREATE FUNCTION's options and body from seq[i] on.
func (p *stmtParser) funcOptions(seq []item, i int, cf *CreateFunction) error {
	seen := map[string]bool{}
	for i < len(seq) {
		t := tokOf(seq[i])
		if t == nil {
			return p.errorAt(seq, i)
		}
		switch {
		case isWord(t, "as"):
			if seen["as"] {
				return p.syntaxMsg(t, "conflicting or redundant options")
			}
			seen["as"] = true
			s := tokOf(at(seq, i+1))
			if s == nil || s.kind != tkString {
				return p.errorAt(seq, i+1)
			}
			cf.Body = s.val
			i += 2
			if isPunct(at(seq, i), ",") {
				return p.unsupported(tokOf(seq[i]), "functions with a link symbol (AS 'file', 'symbol') are not supported")
			}
		case isWord(t, "return"):
			if i+1 >= len(seq) {
				return p.syntaxErrorAtEnd()
			}
			cf.SQLBody = p.q[t.pos:itemEnd(seq[len(seq)-1])]
			i = len(seq)
		default:
			next, err := p.funcOption(seq, i, &cf.Options, seen, false)
			if err != nil {
				return err
			}
			i = next
		}
	}
	p.st.Cmd = cf
	return nil
}

// funcOption reads one option at seq[i] into o and returns where the next
// begins. alter allows ALTER's RESET.
func (p *stmtParser) funcOption(seq []item, i int, o *FuncOptions, seen map[string]bool, alter bool) (int, error) {
	t := tokOf(seq[i])
	once := func(what string) error {
		if seen[what] {
			return p.syntaxMsg(t, "conflicting or redundant options")
		}
		seen[what] = true
		return nil
	}
	number := func(j int, what string) (float64, error) {
		n := tokOf(at(seq, j))
		if n == nil || n.kind != tkNumber {
			return 0, p.errorAt(seq, j)
		}
		f, err := strconv.ParseFloat(n.val, 64)
		if err != nil {
			return 0, p.errorAt(seq, j)
		}
		if f <= 0 {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "%s must be positive", what)
		}
		return f, nil
	}
	var err error
	switch {
	case isWord(t, "language"):
		l := tokOf(at(seq, i+1))
		if l == nil || l.kind != tkWord && l.kind != tkQIdent && l.kind != tkString {
			return i, p.errorAt(seq, i+1)
		}
		if err := once("language"); err != nil {
			return i, err
		}
		o.Language = strings.ToLower(l.val)
		return i + 2, nil
	case isWord(t, "immutable", "stable", "volatile"):
		o.Volatility = t.val
		return i + 1, once("volatility")
	case isWord(t, "strict"):
		o.Strict = "strict"
		return i + 1, once("strict")
	case wordsAt(seq, i, "returns", "null", "on", "null", "input"):
		o.Strict = "strict"
		return i + 5, once("strict")
	case wordsAt(seq, i, "called", "on", "null", "input"):
		o.Strict = "called"
		return i + 4, once("strict")
	case wordsAt(seq, i, "external", "security"), isWord(t, "security"):
		if isWord(t, "external") {
			i++
		}
		s := tokOf(at(seq, i+1))
		if !isWord(s, "definer", "invoker") {
			return i, p.errorAt(seq, i+1)
		}
		o.Security = s.val
		return i + 2, once("security")
	case isWord(t, "leakproof"):
		o.Leakproof = "leakproof"
		return i + 1, once("leakproof")
	case wordsAt(seq, i, "not", "leakproof"):
		o.Leakproof = "not leakproof"
		return i + 2, once("leakproof")
	case isWord(t, "parallel"):
		s := tokOf(at(seq, i+1))
		if !isWord(s, "safe", "restricted", "unsafe") {
			if s != nil && (s.kind == tkWord || s.kind == tkQIdent) {
				return i, p.invalidParam(s, "parameter \"parallel\" must be SAFE, RESTRICTED, or UNSAFE")
			}
			return i, p.errorAt(seq, i+1)
		}
		o.Parallel = s.val
		return i + 2, once("parallel")
	case isWord(t, "cost"):
		if o.Cost, err = number(i+1, "COST"); err != nil {
			return i, err
		}
		return i + 2, once("cost")
	case isWord(t, "rows"):
		if o.Rows, err = number(i+1, "ROWS"); err != nil {
			return i, err
		}
		return i + 2, once("rows")
	case isWord(t, "window"):
		o.Window = true
		return i + 1, once("window")
	case isWord(t, "support"):
		name, next, err := p.routineName(seq, i+1)
		if err != nil {
			return i, err
		}
		o.Support = name
		return next, once("support")
	case isWord(t, "set"):
		return p.funcSet(seq, i+1, o)
	case alter && isWord(t, "reset"):
		if isWord(at(seq, i+1), "all") {
			o.Reset = append(o.Reset, "all")
			return i + 2, nil
		}
		name, next, err := p.routineName(seq, i+1)
		if err != nil {
			return i, err
		}
		o.Reset = append(o.Reset, name)
		return next, nil
	case isWord(t, "transform"):
		return i, p.unsupported(t, "TRANSFORM is not supported")
	}
	return i, p.syntaxError(t)
}

// funcSet reads SET name {TO | =} value [, ...] or SET name FROM CURRENT
// from seq[i], the name.
func (p *stmtParser) funcSet(seq []item, i int, o *FuncOptions) (int, error) {
	name, j, err := p.routineName(seq, i)
	if err != nil {
		return i, err
	}
	if wordsAt(seq, j, "from", "current") {
		o.Set = append(o.Set, name+"=\x00current")
		return j + 2, nil
	}
	if !isWord(at(seq, j), "to") && !isOp(at(seq, j), "=") {
		return j, p.errorAt(seq, j)
	}
	j++
	var vals []string
	for {
		v := tokOf(at(seq, j))
		if v == nil || v.kind != tkString && v.kind != tkNumber && v.kind != tkWord && v.kind != tkQIdent {
			return j, p.errorAt(seq, j)
		}
		vals = append(vals, v.val)
		j++
		if !isPunct(at(seq, j), ",") {
			break
		}
		j++
	}
	o.Set = append(o.Set, name+"="+strings.Join(vals, ", "))
	return j, nil
}

// funcRefs reads the routines DROP or ALTER names: name [(args)], and
// with many, more after commas.
func (p *stmtParser) funcRefs(seq []item, i int, many bool) ([]FuncRef, int, error) {
	var refs []FuncRef
	for {
		name, j, err := p.routineName(seq, i)
		if err != nil {
			return nil, j, err
		}
		ref := FuncRef{Name: name}
		if g := parenGroup(at(seq, j)); g != nil {
			if ref.Params, err = p.funcParams(g, false); err != nil {
				return nil, j, err
			}
			ref.HasArgs = true
			j++
		}
		refs = append(refs, ref)
		i = j
		if !many || !isPunct(at(seq, i), ",") {
			return refs, i, nil
		}
		i++
	}
}

// dropFunction parses DROP FUNCTION, PROCEDURE or ROUTINE.
func (p *stmtParser) dropFunction(seq []item) error {
	d := &DropFunction{Kind: tokOf(seq[1]).val}
	i := 2
	if wordsAt(seq, i, "if", "exists") {
		d.IfExists = true
		i += 2
	}
	refs, i, err := p.funcRefs(seq, i, true)
	if err != nil {
		return err
	}
	d.Funcs = refs
	if isWord(at(seq, i), "cascade", "restrict") {
		d.Cascade = isWord(seq[i], "cascade")
		i++
	}
	if i < len(seq) {
		return p.errorAt(seq, i)
	}
	p.st.Cmd = d
	return nil
}

// alterFunction parses ALTER FUNCTION, PROCEDURE or ROUTINE.
func (p *stmtParser) alterFunction(seq []item) error {
	a := &AlterFunction{Kind: tokOf(seq[1]).val}
	refs, i, err := p.funcRefs(seq, 2, false)
	if err != nil {
		return err
	}
	a.Func = refs[0]
	name := func(j int) (string, error) {
		if t := tokOf(at(seq, j)); isName(t) && j == len(seq)-1 {
			return t.val, nil
		}
		return "", p.errorAt(seq, j)
	}
	switch {
	case wordsAt(seq, i, "rename", "to"):
		a.Rename, err = name(i + 2)
	case wordsAt(seq, i, "owner", "to"):
		switch {
		case wordsAt(seq, i+2, "current_user"), wordsAt(seq, i+2, "current_role"):
			a.Owner = "current_user"
		case wordsAt(seq, i+2, "session_user"):
			a.Owner = "session_user"
		default:
			a.Owner, err = name(i + 2)
		}
	case wordsAt(seq, i, "set", "schema"):
		a.SetSchema, err = name(i + 2)
	case wordsAt(seq, i, "depends"), wordsAt(seq, i, "no", "depends"):
		return p.unsupported(tokOf(seq[i]), "ALTER %s ... DEPENDS ON EXTENSION is not supported", upper(a.Kind))
	default:
		seen := map[string]bool{}
		if i == len(seq) {
			return p.syntaxErrorAtEnd()
		}
		for i < len(seq) {
			if isWord(seq[i], "restrict") && i == len(seq)-1 {
				break
			}
			if i, err = p.funcOption(seq, i, &a.Options, seen, true); err != nil {
				return err
			}
		}
		if a.Options.Language != "" || a.Options.Window {
			return p.syntaxError(tokOf(seq[2]))
		}
	}
	if err != nil {
		return err
	}
	p.st.Cmd = a
	return nil
}

func parseCall(c *cursor) (any, error) {
	if c.i == len(c.toks) {
		return nil, c.fail()
	}
	text := c.p.q[c.peek().pos:c.toks[len(c.toks)-1].end]
	stmts, err := Parse("SELECT " + text)
	if err != nil || len(stmts) != 1 {
		return nil, c.p.syntaxError(c.peek())
	}
	return &Call{Call: stmts[0]}, nil
}

func parseDo(c *cursor) (any, error) {
	d := &Do{Language: "plpgsql"}
	for c.i < len(c.toks) {
		t := c.peek()
		switch {
		case isWord(t, "language"):
			c.i++
			l := c.peek()
			if l == nil || l.kind != tkWord && l.kind != tkQIdent && l.kind != tkString {
				return nil, c.fail()
			}
			d.Language = strings.ToLower(l.val)
			c.i++
		case t.kind == tkString:
			if d.Code != "" {
				return nil, pgerr.New(pgerr.SyntaxError, "conflicting or redundant options")
			}
			d.Code = t.val
			c.i++
		default:
			return nil, c.fail()
		}
	}
	if d.Code == "" {
		return nil, pgerr.New(pgerr.SyntaxError, "no inline code specified")
	}
	return d, nil
}
