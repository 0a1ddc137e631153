package pgcatalog

import (
	"slices"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// User-defined functions in the catalogs: their pg_proc rows, and the
// functions that print them as psql's \df and \sf and pg_dump read them
// (pg_get_function_arguments, pg_get_function_result,
// pg_get_functiondef), with PostgreSQL 15's formats.

// Languages' oids in pg_language.
const (
	OidLangSQL     = 14
	OidLangPlpgsql = 13563
)

var languageOIDs = map[string]uint32{"sql": OidLangSQL, "plpgsql": OidLangPlpgsql}

// pgLanguageRows are PostgreSQL 15's languages, with its oids (the
// handlers' oids too, which no pg_proc row here has).
func pgLanguageRows(Host) []row {
	return []row{
		{"oid": uint32(12), "lanname": "internal", "lanowner": oidSuperuser, "lanispl": false, "lanpltrusted": false,
			"lanplcallfoid": uint32(0), "laninline": uint32(0), "lanvalidator": uint32(2246)},
		{"oid": uint32(13), "lanname": "c", "lanowner": oidSuperuser, "lanispl": false, "lanpltrusted": false,
			"lanplcallfoid": uint32(0), "laninline": uint32(0), "lanvalidator": uint32(2247)},
		{"oid": uint32(OidLangSQL), "lanname": "sql", "lanowner": oidSuperuser, "lanispl": false, "lanpltrusted": true,
			"lanplcallfoid": uint32(0), "laninline": uint32(0), "lanvalidator": uint32(2248)},
		{"oid": uint32(OidLangPlpgsql), "lanname": "plpgsql", "lanowner": oidSuperuser, "lanispl": true, "lanpltrusted": true,
			"lanplcallfoid": uint32(13560), "laninline": uint32(13561), "lanvalidator": uint32(13562)},
	}
}

// userProcRows are pg_proc's rows of the catalog's functions and
// procedures.
func userProcRows(h Host) []row {
	var rows []row
	for _, f := range h.Catalog().Functions() {
		var argTypes, allTypes []uint32
		var modes, names []any
		hasNames, hasModes, ndefaults := false, false, 0
		for _, p := range f.Params {
			if p.In() || f.Kind == 'p' && p.Mode == 'o' {
				argTypes = append(argTypes, uint32(p.Type.Oid))
			}
			allTypes = append(allTypes, uint32(p.Type.Oid))
			modes = append(modes, string(p.Mode))
			names = append(names, p.Name)
			hasNames = hasNames || p.Name != ""
			hasModes = hasModes || p.Mode != 'i'
			if p.Default != "" {
				ndefaults++
			}
		}
		r := row{"oid": f.ID, "proname": f.Name, "pronamespace": f.Schema, "proowner": oidSuperuser,
			"prolang": languageOIDs[f.Language], "procost": f.Cost, "prorows": f.Rows, "provariadic": uint32(0),
			"prosupport": regproc(""), "prokind": string(f.Kind), "prosecdef": f.SecurityDefiner,
			"proleakproof": f.Leakproof, "proisstrict": f.Strict, "proretset": f.ReturnsSet,
			"provolatile": string(f.Volatility), "proparallel": string(f.Parallel), "pronargs": len(argTypes),
			"pronargdefaults": ndefaults, "prorettype": uint32(f.Returns.Oid), "proargtypes": argTypes, "prosrc": f.Body}
		if f.SQLBody != "" {
			r["prosrc"], r["prosqlbody"] = "", f.SQLBody
		}
		if f.Variadic() {
			in := f.InParams()
			elem, _ := in[len(in)-1].Type.Elem()
			r["provariadic"] = uint32(elem.Oid)
		}
		if hasModes {
			oids := make([]any, len(allTypes))
			for i, t := range allTypes {
				oids[i] = int64(t)
			}
			r["proallargtypes"], r["proargmodes"] = oids, modes
		}
		if hasNames {
			r["proargnames"] = names
		}
		if len(f.Config) > 0 {
			config := make([]any, len(f.Config))
			for i, c := range f.Config {
				config[i] = c
			}
			r["proconfig"] = config
		}
		rows = append(rows, r)
	}
	return rows
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// functionByOID is the user-defined function or procedure oid, or nil.
func functionByOID(h Host, oid uint32) *catalog.Function {
	return h.Catalog().FunctionByID[oid]
}

// functionArguments is pg_get_function_arguments: every parameter with
// its mode, name, type and default; identity leaves out the defaults and
// (of a function) the OUT parameters, as pg_get_function_identity_arguments.
func functionArguments(h Host, f *catalog.Function, identity bool) string {
	var parts []string
	for _, p := range f.Params {
		if p.Mode == 't' || identity && p.Mode == 'o' && f.Kind != 'p' {
			continue
		}
		var b strings.Builder
		switch p.Mode {
		case 'i':
			if f.Kind == 'p' {
				b.WriteString("IN ") // procedures' arguments name their modes
			}
		case 'o':
			b.WriteString("OUT ")
		case 'b':
			b.WriteString("INOUT ")
		case 'v':
			b.WriteString("VARIADIC ")
		}
		if p.Name != "" {
			b.WriteString(parser.QuoteIdent(p.Name) + " ")
		}
		b.WriteString(typeName(h, p.Type))
		if p.Default != "" && !identity {
			b.WriteString(" DEFAULT " + paramDefault(h, p))
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, ", ")
}

// paramDefault prints a parameter's default as ruleutils does.
func paramDefault(h Host, p catalog.Param) string {
	n, err := plan.ParseExpr(p.Default)
	if err != nil {
		return p.Default
	}
	params := []types.T{}
	e, err := (&plan.Compiler{Host: h, Params: &params, Scope: &plan.Scope{}}).CompileAssign(n, p.Type)
	if err != nil {
		return p.Default
	}
	if text, ok := (plan.Deparser{Host: h}).Print(e); ok {
		return text
	}
	return p.Default
}

// typeName is t as format_type prints it, an enum's or an extension's
// type qualified unless the search path finds it.
func typeName(h Host, t types.T) string {
	if name := catalogTypeName(h, t.Oid); name != "" {
		return name
	}
	return formatType(t.Oid, t.Mod, false)
}

// functionResult is pg_get_function_result: the RETURNS clause's type,
// SETOF or TABLE (...) included; NULL for a procedure.
func functionResult(h Host, f *catalog.Function) any {
	if f.Kind == 'p' {
		return nil
	}
	var cols []string
	for _, p := range f.Params {
		if p.Mode == 't' {
			cols = append(cols, parser.QuoteIdent(p.Name)+" "+typeName(h, p.Type))
		}
	}
	if cols != nil {
		return "TABLE(" + strings.Join(cols, ", ") + ")"
	}
	ret := typeName(h, f.Returns)
	if _, t := f.RowType(); f.ReturnsRow != 0 && t != nil {
		ret = QualifiedName(h, t.Schema, t.Name)
	}
	if f.ReturnsSet {
		return "SETOF " + ret
	}
	return ret
}

// functionDef is pg_get_functiondef: a CREATE OR REPLACE statement that
// makes the function again, in PostgreSQL's layout.
func functionDef(h Host, f *catalog.Function) string {
	var b strings.Builder
	kind := "FUNCTION"
	if f.Kind == 'p' {
		kind = "PROCEDURE"
	}
	b.WriteString("CREATE OR REPLACE " + kind + " " + parser.QuoteIdent(h.Catalog().SchemaName(f.Schema)) + "." +
		parser.QuoteIdent(f.Name) + "(" + functionArguments(h, f, false) + ")\n")
	if f.Kind != 'p' {
		b.WriteString(" RETURNS " + functionResult(h, f).(string) + "\n")
	}
	b.WriteString(" LANGUAGE " + f.Language + "\n")
	if f.Kind != 'p' {
		switch f.Volatility {
		case 'i':
			b.WriteString(" IMMUTABLE")
		case 's':
			b.WriteString(" STABLE")
		}
		if f.Strict {
			b.WriteString(" STRICT")
		}
	}
	if f.SecurityDefiner {
		b.WriteString(" SECURITY DEFINER")
	}
	if f.Leakproof {
		b.WriteString(" LEAKPROOF")
	}
	if f.Kind != 'p' {
		switch f.Parallel {
		case 's':
			b.WriteString(" PARALLEL SAFE")
		case 'r':
			b.WriteString(" PARALLEL RESTRICTED")
		}
		if f.Cost != 100 {
			b.WriteString(" COST " + formatFloat(f.Cost))
		}
		if f.ReturnsSet && f.Rows != 1000 {
			b.WriteString(" ROWS " + formatFloat(f.Rows))
		}
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteString("\n")
	}
	for _, c := range f.Config {
		name, value, _ := strings.Cut(c, "=")
		b.WriteString(" SET " + name + " TO " + configValue(name, value) + "\n")
	}
	if body, ok := sqlBody(h, f); ok {
		b.WriteString(body + "\n")
		return b.String()
	}
	tag := "$function$"
	if f.Kind == 'p' {
		tag = "$procedure$"
	}
	for strings.Contains(f.Body, tag) {
		tag = tag[:len(tag)-1] + "x$"
	}
	b.WriteString("AS " + tag + f.Body + tag + "\n")
	return b.String()
}

// sqlBody is a SQL-standard body: RETURN with its expression as ruleutils
// prints it, or a BEGIN ATOMIC block as written.
func sqlBody(h Host, f *catalog.Function) (string, bool) {
	if f.SQLBody == "" {
		return "", false
	}
	stmts, err := parser.Parse(f.Body)
	if err != nil || len(stmts) != 1 || !strings.HasPrefix(strings.ToUpper(f.SQLBody), "RETURN") {
		return f.SQLBody, true
	}
	sel, ok := stmts[0].AST.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return f.SQLBody, true
	}
	in := f.InParams()
	params := make([]types.T, len(in))
	names := make([]string, len(in))
	for i, p := range in {
		params[i], names[i] = p.Type, p.Name
	}
	vars := func(table, name string) (plan.Expr, bool) {
		if i := slices.Index(names, name); i >= 0 && name != "" && (table == "" || table == f.Name) {
			return plan.NewParam(i, &params), true
		}
		return nil, false
	}
	c := &plan.Compiler{Host: h, Params: &params, Order: stmts[0].ParamOrder, Scope: &plan.Scope{}, Vars: vars}
	e, err := c.Compile(sel.Fields.Fields[0].Expr)
	if err != nil {
		return f.SQLBody, true
	}
	text, ok := plan.Deparser{Host: h, Params: names}.Print(e)
	if !ok {
		return f.SQLBody, true
	}
	return "RETURN " + text, true
}

// configValue prints a SET clause's value: quoted, except a list of
// names (search_path).
func configValue(name, value string) string {
	if name == "search_path" {
		parts := strings.Split(value, ", ")
		for i, p := range parts {
			parts[i] = parser.QuoteLiteral(p)
		}
		return strings.Join(parts, ", ")
	}
	return parser.QuoteLiteral(value)
}

// functionVisible is pg_function_is_visible: no function of the same
// name and arguments is earlier on the search path.
func functionVisible(h Host, f *catalog.Function) bool {
	fs, err := h.Catalog().FunctionOverloads(h.SearchPath(), "", f.Name)
	if err != nil {
		return false
	}
	for _, g := range fs {
		if g.ID == f.ID {
			return true
		}
	}
	return false
}

// functionRegName is a routine as regproc (name) or regprocedure
// (name(types)) prints it: qualified unless visible.
func functionRegName(h Host, f *catalog.Function, procedure bool) string {
	name := parser.QuoteIdent(f.Name)
	if !functionVisible(h, f) {
		name = parser.QuoteIdent(h.Catalog().SchemaName(f.Schema)) + "." + name
	}
	if !procedure {
		return name
	}
	var ts []string
	for _, p := range f.InParams() {
		ts = append(ts, typeName(h, p.Type))
	}
	return name + "(" + strings.Join(ts, ",") + ")"
}

// functionByRegName resolves regproc's or regprocedure's input: a name,
// qualified or not, and for regprocedure, its argument types in
// parentheses.
func functionByRegName(h Host, t types.T, str string) (types.Reg, bool, error) {
	name, args, hasArgs := strings.Cut(str, "(")
	if hasArgs && t.Oid == types.OidRegproc {
		return types.Reg{}, false, pgerr.New(pgerr.InvalidName, "invalid name syntax")
	}
	parts, err := SplitQualified(strings.TrimSpace(name))
	if err != nil || len(parts) > 2 {
		return types.Reg{}, false, err
	}
	schema := ""
	if len(parts) == 2 {
		schema = parts[0]
	}
	fs, err := h.Catalog().FunctionOverloads(h.SearchPath(), schema, parts[len(parts)-1])
	if err != nil || len(fs) == 0 {
		return types.Reg{}, false, err
	}
	if !hasArgs {
		if len(fs) > 1 {
			return types.Reg{}, false, pgerr.New(pgerr.AmbiguousFunction, "more than one function named %q", str)
		}
		return types.Reg{Oid: types.Oid(fs[0].ID), Name: functionRegName(h, fs[0], false)}, true, nil
	}
	args, ok := strings.CutSuffix(strings.TrimSpace(args), ")")
	if !ok {
		return types.Reg{}, false, pgerr.New(pgerr.InvalidTextRepresentation, "expected a right parenthesis")
	}
	var sig []types.Oid
	if strings.TrimSpace(args) != "" {
		for _, a := range strings.Split(args, ",") {
			at, err := h.ParseTypeName(strings.ToLower(strings.TrimSpace(a)))
			if err != nil {
				return types.Reg{}, false, err
			}
			sig = append(sig, at.Oid)
		}
	}
	for _, f := range fs {
		if slices.Equal(f.Signature(), sig) {
			return types.Reg{Oid: types.Oid(f.ID), Name: functionRegName(h, f, true)}, true, nil
		}
	}
	return types.Reg{}, false, nil
}

// triggered are the relations that may have triggers, as tables: the
// tables, and the views' RowTables.
func triggered(h Host) []*catalog.Table {
	cat := h.Catalog()
	ts := cat.Tables()
	for _, v := range cat.Views() {
		ts = append(ts, v.RowTable())
	}
	return ts
}

// pgTriggerRows are pg_trigger's rows: each table's and view's triggers.
func pgTriggerRows(h Host) []row {
	var rows []row
	for _, t := range triggered(h) {
		for _, tg := range t.Triggers {
			enabled := "O"
			if tg.Disabled {
				enabled = "D"
			}
			var args []byte
			for _, a := range tg.Args {
				args = append(append(args, a...), 0)
			}
			r := row{"oid": tg.OID, "tgrelid": t.ID, "tgparentid": uint32(0), "tgname": tg.Name, "tgfoid": tg.Function,
				"tgtype": tg.TgType(), "tgenabled": enabled, "tgisinternal": false, "tgconstrrelid": uint32(0),
				"tgconstrindid": uint32(0), "tgconstraint": uint32(0), "tgdeferrable": false, "tginitdeferred": false,
				"tgnargs": len(tg.Args), "tgattr": slices.Clone(tg.Columns), "tgargs": args}
			if r["tgattr"] == nil {
				r["tgattr"] = []int16{}
			}
			if tg.When != "" {
				r["tgqual"] = tg.WhenText
			}
			r["tgoldtable"], r["tgnewtable"] = nullIfEmpty(tg.OldTable), nullIfEmpty(tg.NewTable)
			rows = append(rows, r)
		}
	}
	return rows
}

// triggerByOID is the trigger oid and its table, or nil.
func triggerByOID(h Host, oid uint32) (*catalog.Table, *catalog.Trigger) {
	for _, t := range triggered(h) {
		for _, tg := range t.Triggers {
			if tg.OID == oid {
				return t, tg
			}
		}
	}
	return nil, nil
}

// triggerWhen prints a WHEN condition as ruleutils does, or as written
// if it no longer compiles.
func triggerWhen(h Host, t *catalog.Table, tg *catalog.Trigger, pretty bool) string {
	n, err := plan.ParseExpr(tg.When)
	if err != nil {
		return tg.WhenText
	}
	sc := plan.OldNewScope(t)
	var cols, quals []string
	for _, c := range sc.Cols {
		cols, quals = append(cols, c.Name), append(quals, c.Table)
	}
	params := []types.T{}
	e, err := (&plan.Compiler{Host: h, Params: &params, Scope: sc}).CompileAs(n, types.Bool)
	if err != nil {
		return tg.WhenText
	}
	if text, ok := plan.DeparseQualified(h, e, cols, quals, pretty); ok {
		return text
	}
	return tg.WhenText
}

// triggerDef is pg_get_triggerdef: the CREATE TRIGGER that makes tg.
func triggerDef(h Host, t *catalog.Table, tg *catalog.Trigger, pretty bool) string {
	var b strings.Builder
	b.WriteString("CREATE TRIGGER " + parser.QuoteIdent(tg.Name) + " ")
	switch tg.Timing {
	case "before":
		b.WriteString("BEFORE ")
	case "after":
		b.WriteString("AFTER ")
	default:
		b.WriteString("INSTEAD OF ")
	}
	for i, ev := range tg.EventNames() {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(ev)
		if ev == "UPDATE" && len(tg.Columns) > 0 {
			var cols []string
			for _, num := range tg.Columns {
				for _, c := range t.Columns {
					if c.Num == num {
						cols = append(cols, parser.QuoteIdent(c.Name))
					}
				}
			}
			b.WriteString(" OF " + strings.Join(cols, ", "))
		}
	}
	if pretty {
		b.WriteString(" ON " + QualifiedName(h, t.Schema, t.Name))
	} else {
		b.WriteString(" ON " + parser.QuoteIdent(h.Catalog().SchemaName(t.Schema)) + "." + parser.QuoteIdent(t.Name))
	}
	if tg.OldTable != "" || tg.NewTable != "" {
		b.WriteString(" REFERENCING")
		if tg.OldTable != "" {
			b.WriteString(" OLD TABLE AS " + parser.QuoteIdent(tg.OldTable))
		}
		if tg.NewTable != "" {
			b.WriteString(" NEW TABLE AS " + parser.QuoteIdent(tg.NewTable))
		}
	}
	if tg.Row {
		b.WriteString(" FOR EACH ROW")
	} else {
		b.WriteString(" FOR EACH STATEMENT")
	}
	if tg.WhenText != "" {
		b.WriteString(" WHEN (" + triggerWhen(h, t, tg, pretty) + ")")
	}
	fname := "-"
	if f := h.Catalog().FunctionByID[tg.Function]; f != nil {
		fname = functionRegName(h, f, false)
	}
	args := make([]string, len(tg.Args))
	for i, a := range tg.Args {
		args[i] = parser.QuoteLiteral(a)
	}
	b.WriteString(" EXECUTE FUNCTION " + fname + "(" + strings.Join(args, ", ") + ")")
	return b.String()
}

// nullIfEmpty is s, or NULL for "".
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
