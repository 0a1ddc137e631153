package plan

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/types"
)

// Compiled expressions printed back as SQL, as PostgreSQL's ruleutils
// prints the trees it stores: what pg_get_expr, pg_get_indexdef,
// pg_get_constraintdef and pg_get_viewdef show, and so psql's \d and
// pg_dump.

// keywordFuncs are the calls PostgreSQL's grammar has keywords for, which
// it prints in capitals.
var keywordFuncs = map[string]string{"nullif": "NULLIF", "greatest": "GREATEST", "least": "LEAST"}

// sqlValueFuncs print as the SQL keywords they are written as.
var sqlValueFuncs = map[string]string{
	"current_timestamp": "CURRENT_TIMESTAMP", "current_date": "CURRENT_DATE", "localtimestamp": "LOCALTIMESTAMP",
	"localtime": "LOCALTIME", "current_user": "CURRENT_USER", "session_user": "SESSION_USER", "user": "CURRENT_USER",
	"current_schema": "CURRENT_SCHEMA",
}

// Deparse prints a compiled expression as PostgreSQL's ruleutils prints
// the expression tree it stores: implicit casts show only where an
// operator, COALESCE, an IN list or CASE takes the cast value, constants
// carry their type as get_const_expr decides, and every operator is
// parenthesized. cols names the columns a ColExpr reads. With h, the
// types and functions that h's search path would not find are named
// with their schemas. It reports false for an expression it cannot print.
func Deparse(h Host, e Expr, cols []string) (string, bool) {
	return Deparser{cols: cols, Host: h}.Print(e)
}

// DeparsePretty is deparse as pretty-printing ruleutils prints: without
// the parentheses that operator precedence makes redundant.
func DeparsePretty(h Host, e Expr, cols []string) (string, bool) {
	return Deparser{cols: cols, pretty: true, Host: h}.Print(e)
}

type Deparser struct {
	cols   []string
	pretty bool
	// s, when set, names the sequence of a nextval as regclass prints it
	// in s, qualified if its search path would not find it.
	Host Host
	// Params name the parameters, a routine's; one without a name, or
	// past them, prints as $n.
	Params []string
	// Qualifiers, when set, qualify each of cols: a trigger's WHEN
	// condition reads old.c and new.c.
	Qualifiers []string
}

// DeparseQualified prints e as Deparse does, or pretty as DeparsePretty,
// with column i named qualifiers[i].cols[i].
func DeparseQualified(h Host, e Expr, cols, qualifiers []string, pretty bool) (string, bool) {
	return Deparser{cols: cols, Qualifiers: qualifiers, pretty: pretty, Host: h}.Print(e)
}

// enumType is the enum type t, if it is one and d has a session to find
// it in.
func (d Deparser) enumType(t types.T) *catalog.EnumType {
	if d.Host == nil || !types.IsEnum(t.Oid) {
		return nil
	}
	return d.Host.Catalog().EnumByOid(t.Oid)
}

// operator is op, an operator of extension ext (if any), as ruleutils
// prints it: OPERATOR(schema.op) where the search path would not find it.
func (d Deparser) operator(op, ext string) string {
	e := d.extension(ext)
	if e == nil || slices.Contains(d.Host.SearchPath().Schemas, e.Schema) {
		return op
	}
	return "OPERATOR(" + parser.QuoteIdent(d.Host.Catalog().SchemaName(e.Schema)) + "." + op + ")"
}

// extension is the installed extension ext, when d has a session to ask.
func (d Deparser) extension(ext string) *catalog.Extension {
	if d.Host == nil || ext == "" {
		return nil
	}
	return d.Host.Catalog().ExtensionByName[ext]
}

// typeName is t as ruleutils names a type: an enum type or an
// extension's, or an array of one, qualified unless the search path finds
// it, when d has a session to ask.
func (d Deparser) typeName(t types.T) string {
	if d.Host == nil {
		return t.String()
	}
	elem, suffix := t, ""
	if e, ok := t.Elem(); ok {
		elem, suffix = e, "[]"
	}
	if q, ok := d.Host.Catalog().TypeQName(elem.Oid); ok {
		return d.Host.QualifiedName(q.Schema, q.Name) + suffix
	}
	return t.String()
}

// sequenceNamed is the sequence that v, nextval's argument, names, if it
// is a name and there is one.
func (d Deparser) sequenceNamed(v any) *catalog.Sequence {
	name, ok := v.(string)
	if !ok {
		return nil
	}
	return SequenceNamed(d.Host, name)
}

// SequenceNamed is the sequence name, qualified or not, names on the
// search path, or nil.
func SequenceNamed(h Host, name string) *catalog.Sequence {
	return ResolveSequence(h.Catalog(), h.SearchPath(), name)
}

// ResolveSequence is the sequence name, qualified or not, names on path,
// or nil.
func ResolveSequence(cat *catalog.Catalog, path catalog.Path, name string) *catalog.Sequence {
	parts := parser.SplitName(name)
	if len(parts) > 2 {
		return nil
	}
	schema := ""
	if len(parts) == 2 {
		schema = parts[0]
	}
	q, _ := cat.Resolve(path, schema, parts[len(parts)-1])
	return cat.SequenceByName[q]
}

// Operator precedence, loosest first, as PostgreSQL's grammar binds.
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs
	precCmp
	precOther // ||, ~~ and every other operator without its own precedence
	precAdd
	precMul
	precUnary
	precPrimary
	// precArrayOp is x = ANY (ARRAY[...]), which pretty printing puts in
	// parentheses wherever it is an operand.
	precArrayOp
)

func (d Deparser) Print(e Expr) (string, bool) {
	fail := false
	var walk, shown func(e Expr) (string, int)
	var caseText func(x *caseExpr) string
	// operand prints a child of an operator of precedence prec. Pretty, it
	// has parentheses only if it binds looser (or, on the right of a
	// left-associative operator, as loose); otherwise every operator
	// already has its own.
	operand := func(e Expr, prec int, right bool) string {
		text, p := shown(e)
		// ruleutils' isSimpleNode: an operator inside another is simple
		// only if both are arithmetic, binary ones; x = ANY (...) never.
		isOp := func(p int) bool { return p >= precCmp && p <= precUnary }
		arith := func(p int) bool { return p == precAdd || p == precMul }
		opInOp := isOp(prec) && isOp(p) && !(arith(prec) && arith(p))
		if !d.pretty || p != precArrayOp && !opInOp && (p > prec || p == prec && !right) {
			return text
		}
		return "(" + text + ")"
	}
	binary := func(l Expr, op string, r Expr, prec int) (string, int) {
		l, r = mixedOperands(l, r)
		text := operand(l, prec, false) + " " + op + " " + operand(r, prec, true)
		if !d.pretty {
			return "(" + text + ")", precPrimary
		}
		return text, prec
	}
	// cast prints a cast as get_coercion_expr does: (arg)::type, or
	// pretty, arg::type with parentheses only if arg needs them.
	cast := func(x *castExpr) (string, int) {
		text, p := walk(x.e)
		if !d.pretty || p < precPrimary {
			text = "(" + text + ")"
		}
		return text + "::" + d.typeName(x.to), precPrimary
	}
	// shown prints an operand of an operator, an argument of COALESCE, an
	// element of an IN list or a result of CASE, where ruleutils shows
	// implicit casts too
	// (its showimplicit), except the ones PostgreSQL never makes there.
	shown = func(e Expr) (string, int) {
		c, ok := e.(*castExpr)
		if !ok || c.explicit {
			return walk(e)
		}
		to, show := operandCast(c.e.Type(), c.to)
		if !show {
			return walk(c.e)
		}
		return cast(&castExpr{e: c.e, from: c.from, to: to, explicit: true})
	}
	// caseText prints CASE as ruleutils does under PRETTYFLAG_INDENT,
	// which pg_get_expr and pg_get_constraintdef use: each keyword on a
	// line of its own, indented four more within the CASE.
	indent := 0
	line := func(b *strings.Builder, word string) {
		b.WriteString("\n" + strings.Repeat(" ", indent) + word)
	}
	caseText = func(x *caseExpr) string {
		var b strings.Builder
		line(&b, "CASE")
		if x.operand != nil {
			text, _ := walk(x.operand)
			b.WriteString(" " + text)
		}
		indent += 4
		for i, w := range x.whens {
			cond := w
			if x.operand != nil {
				if c, ok := w.(*cmpExpr); ok {
					cond = c.r // operand = value: the value alone
				}
			}
			when, _ := walk(cond)
			then, _ := shown(x.thens[i])
			line(&b, "WHEN "+when+" THEN "+then)
		}
		if x.els != nil {
			els, _ := shown(x.els)
			line(&b, "ELSE "+els)
		}
		indent -= 4
		line(&b, "END")
		return b.String()
	}
	walk = func(e Expr) (string, int) {
		switch x := e.(type) {
		case *ConstExpr:
			if et := d.enumType(x.T); et != nil && x.V != nil {
				// A label, with its type named as the search path finds it.
				return parser.QuoteLiteral(x.V.(types.Enum).Label) + "::" + d.Host.QualifiedName(et.Schema, et.Name), precPrimary
			}
			return constText(x.T, x.V, d.typeName(types.T{Oid: x.T.Oid, Mod: -1})), precPrimary
		case *ParamExpr:
			if x.Index < len(d.Params) && d.Params[x.Index] != "" {
				return parser.QuoteIdent(d.Params[x.Index]), precPrimary
			}
			return "$" + strconv.Itoa(x.Index+1), precPrimary
		case *ColExpr:
			if x.Index < len(d.Qualifiers) && x.Index < len(d.cols) {
				return parser.QuoteIdent(d.Qualifiers[x.Index]) + "." + parser.QuoteIdent(d.cols[x.Index]), precPrimary
			}
			if x.Index < len(d.cols) {
				return parser.QuoteIdent(d.cols[x.Index]), precPrimary
			}
		case *castExpr:
			if !x.explicit {
				return walk(x.e)
			}
			return cast(x)
		case *FuncExpr:
			if kw, ok := sqlValueFuncs[x.Name]; ok && len(x.Args) == 0 {
				return kw, precPrimary
			}
			if kw, ok := sqlValueFuncs[x.Name]; ok && len(x.Args) == 1 {
				// LOCALTIME(p): the precision is a constant.
				if p, ok := x.Args[0].(*ConstExpr); ok && p.V != nil {
					return kw + "(" + strconv.FormatInt(p.V.(int64), 10) + ")", precPrimary
				}
			}
			name := x.Name
			if upper, ok := keywordFuncs[name]; ok {
				name = upper
			}
			if e := d.extension(x.ext); e != nil && !IsOperatorName(name) {
				// As ruleutils names a function the search path would not find.
				name = d.Host.QualifiedName(e.Schema, name)
			}
			if x.op != 0 && len(x.Args) == 2 {
				return binary(x.Args[0], string(x.op), x.Args[1], precAdd)
			}
			if op := RegexOperator(x, false); op != "" {
				return binary(x.Args[0], d.operator(op, x.ext), x.Args[1], precOther)
			}
			if IsOperatorName(x.Name) && len(x.Args) == 2 {
				return binary(x.Args[0], d.operator(x.Name, x.ext), x.Args[1], precOther)
			}
			if IsOperatorName(x.Name) && len(x.Args) == 1 {
				// A prefix operator, as negExpr prints -.
				if d.pretty {
					return d.operator(x.Name, x.ext) + " " + operand(x.Args[0], precUnary, true), precUnary
				}
				text, _ := shown(x.Args[0])
				return "(" + d.operator(x.Name, x.ext) + " " + text + ")", precPrimary
			}
			args := make([]string, len(x.Args))
			for i, a := range x.Args {
				// ruleutils shows the implicit casts of a function's
				// arguments: lower((email)::text) for a varchar.
				if c, ok := a.(*castExpr); ok && !c.explicit && x.Name != "nextval" {
					args[i], _ = cast(c)
					continue
				}
				args[i], _ = walk(a)
			}
			if x.Name == "nextval" && len(args) == 1 {
				if k, ok := x.Args[0].(*ConstExpr); ok && d.Host != nil {
					if sq := d.sequenceNamed(k.V); sq != nil {
						args[0] = parser.QuoteLiteral(d.Host.QualifiedName(sq.Schema, sq.Name)) + "::text"
					}
				}
				if a, ok := strings.CutSuffix(args[0], "::text"); ok {
					args[0] = a + "::regclass" // nextval takes a regclass
				}
			}
			return name + "(" + strings.Join(args, ", ") + ")", precPrimary
		case *arithExpr:
			prec := precAdd
			if x.op == '*' || x.op == '/' || x.op == '%' {
				prec = precMul
			}
			return binary(x.l, string(x.op), x.r, prec)
		case *negExpr:
			if d.pretty {
				return "- " + operand(x.e, precUnary, true), precUnary
			}
			text, _ := walk(x.e)
			return "(- " + text + ")", precPrimary
		case *cmpExpr:
			if x.t.Oid == types.OidCitext {
				return binary(x.l, d.operator(x.op, "citext"), x.r, precCmp)
			}
			return binary(asText(x.l), x.op, asText(x.r), precCmp)
		case *likeExpr:
			op := map[[2]bool]string{{false, false}: "~~", {true, false}: "!~~", {false, true}: "~~*", {true, true}: "!~~*"}[[2]bool{x.not, x.ci}]
			if x.fold {
				op = d.operator(op, "citext")
			}
			if x.escape == '\\' {
				return binary(asText(x.e), op, x.pattern, precOther)
			}
			// PostgreSQL stores LIKE ... ESCAPE e as ~~ like_escape(pattern, e);
			// the call is only printed, never run.
			escape := ""
			if x.escape != 0 {
				escape = string(x.escape)
			}
			pattern := &FuncExpr{Name: "like_escape", T: types.Text, Args: []Expr{x.pattern, &ConstExpr{T: types.Text, V: escape}}}
			return binary(asText(x.e), op, pattern, precOther)
		case *coalesceExpr:
			args := make([]string, len(x.args))
			for i, a := range x.args {
				args[i], _ = shown(a)
			}
			return "COALESCE(" + strings.Join(args, ", ") + ")", precPrimary
		case *logicExpr:
			// PostgreSQL's AND and OR take any number of arguments: a
			// chain prints flat, (a AND b AND c).
			word, prec := "OR", precOr
			if x.and {
				word, prec = "AND", precAnd
			}
			var parts []string
			var flatten func(e Expr)
			flatten = func(e Expr) {
				if l, ok := e.(*logicExpr); ok && l.and == x.and {
					flatten(l.l)
					flatten(l.r)
					return
				}
				parts = append(parts, operand(e, prec, len(parts) > 0))
			}
			flatten(x)
			text := strings.Join(parts, " "+word+" ")
			if !d.pretty {
				return "(" + text + ")", precPrimary
			}
			return text, prec
		case *notDistinctExpr:
			text := operand(x.l, precIs, false) + " IS DISTINCT FROM " + operand(x.r, precIs, true)
			if !d.pretty {
				return "(NOT (" + text + "))", precPrimary
			}
			return "NOT " + text, precNot
		case *inExpr:
			// x IN (a, b) is x = ANY (ARRAY[a, b]) to PostgreSQL, or x = a
			// for one value; NOT IN is <> ALL, or <>.
			op, quant := "=", "ANY"
			if x.not {
				op, quant = "<>", "ALL"
			}
			if len(x.list) == 1 {
				return binary(asText(x.e), op, asText(x.list[0]), precCmp)
			}
			elems := make([]string, len(x.list))
			for i, el := range x.list {
				elems[i], _ = shown(el)
			}
			array := "ARRAY[" + strings.Join(elems, ", ") + "]"
			if x.e.Type().Oid == types.OidVarchar {
				// A varchar[] has no = ANY of its own either: the array
				// is cast to text[], as the value to text.
				if !d.pretty {
					array = "(" + array + ")"
				}
				array += "::text[]"
			}
			text := operand(asText(x.e), precCmp, false) + " " + op + " " + quant + " (" + array + ")"
			if !d.pretty {
				return "(" + text + ")", precPrimary
			}
			return text, precArrayOp
		case *caseExpr:
			return caseText(x), precPrimary
		case *notExpr:
			if f, ok := x.e.(*FuncExpr); ok {
				if op := RegexOperator(f, true); op != "" {
					return binary(f.Args[0], op, f.Args[1], precOther)
				}
			}
			if nd, ok := x.e.(*notDistinctExpr); ok {
				text := operand(nd.l, precIs, false) + " IS DISTINCT FROM " + operand(nd.r, precIs, true)
				if !d.pretty {
					return "(" + text + ")", precPrimary
				}
				return text, precIs
			}
			text := "NOT " + operand(x.e, precNot, true)
			if !d.pretty {
				return "(" + text + ")", precPrimary
			}
			return text, precNot
		case *isNullExpr:
			text := operand(x.e, precIs, false) + " IS NULL"
			if x.not {
				text = operand(x.e, precIs, false) + " IS NOT NULL"
			}
			if !d.pretty {
				return "(" + text + ")", precPrimary
			}
			return text, precIs
		}
		fail = true
		return "?", precPrimary
	}
	text, _ := walk(e)
	return text, !fail
}

// RegexOperator is the operator a ~ b, a ~* b or, negated, a !~ b or
// a !~* b, that the parser rewrote to f, epochdb_match(a, b[, 'i']); ""
// if f is not one.
func RegexOperator(f *FuncExpr, negated bool) string {
	if f.Name != "epochdb_match" {
		return ""
	}
	op := "~"
	switch len(f.Args) {
	case 2:
	case 3:
		if k, ok := f.Args[2].(*ConstExpr); !ok || k.V != "i" {
			return ""
		}
		op = "~*"
	default:
		return ""
	}
	if negated {
		op = "!" + op
	}
	return op
}

// IsOperatorName reports whether a function's name is an operator's, as
// FuncExpr names the operators it implements (||, ~, ->).
func IsOperatorName(name string) bool {
	return name != "" && strings.IndexFunc(name, func(r rune) bool {
		return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
	}) < 0
}

// operandCast reports whether ruleutils shows the implicit cast from one
// type to another of an operand, and as which type. PostgreSQL has
// operators across the integer types, across float4 and float8, across
// date, timestamp and timestamptz, and between name and text, so it casts
// between those nowhere; beside a float4 it casts a number to float8,
// for the float4-float8 operators.
func operandCast(from, to types.T) (types.T, bool) {
	if f := castFamily(from.Oid); f != 0 && f == castFamily(to.Oid) {
		return to, false
	}
	if to.Oid == types.OidFloat4 && (isInt(from.Oid) || from.Oid == types.OidNumeric) {
		return types.Float8, true
	}
	return to, true
}

// castFamily groups the types between which PostgreSQL has operators of
// mixed types (int4 + int8, date < timestamp), so that an operand is not
// cast within its group: 0 for a type in none.
func castFamily(o types.Oid) int {
	switch {
	case isInt(o):
		return 1
	case o == types.OidFloat4 || o == types.OidFloat8:
		return 2
	case o == types.OidDate || o == types.OidTimestamp || o == types.OidTimestamptz:
		return 3
	case o == types.OidName || o == types.OidText:
		return 4
	}
	return 0
}

// mixedOperands shows the implicit cast of an operator's operand within a
// group of castFamily when the other operand is of no type of that group:
// inet + 1 has no operator of mixed types, and PostgreSQL shows
// (1)::bigint, where real > 1.5 compares real with double precision.
func mixedOperands(l, r Expr) (Expr, Expr) {
	show := func(e, other Expr) Expr {
		c, ok := e.(*castExpr)
		if !ok || c.explicit {
			return e
		}
		f := castFamily(c.e.Type().Oid)
		if f == 0 || f != castFamily(c.to.Oid) || castFamily(other.Type().Oid) == f {
			return e
		}
		visible := *c
		visible.explicit = true
		return &visible
	}
	return show(l, r), show(r, l)
}

// asText is an operand of a comparison or LIKE as PostgreSQL reads it:
// varchar has no operators of its own, so a varchar is cast to text, and
// a varchar literal is a text one.
func asText(e Expr) Expr {
	if e.Type().Oid != types.OidVarchar {
		return e
	}
	if k, ok := e.(*ConstExpr); ok {
		return &ConstExpr{T: types.Text, V: k.V}
	}
	return &castExpr{e: e, from: e.Type(), to: types.Text}
}

// constText is get_const_expr: non-negative int4 and numeric literals and
// booleans print bare, anything else as a quoted literal with its type,
// named typeName.
func constText(t types.T, v any, typeName string) string {
	label := "::" + typeName
	if v == nil {
		return "NULL" + label
	}
	s := string(types.AppendText(nil, t, v, nil))
	switch t.Oid {
	case types.OidBool:
		if v.(bool) {
			return "true"
		}
		return "false"
	case types.OidInt4:
		if s[0] != '-' {
			return s
		}
	case types.OidNumeric:
		if s[0] >= '0' && s[0] <= '9' && strings.ContainsAny(s, ".eE") {
			return s
		}
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'" + label
}
