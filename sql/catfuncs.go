package sql

import (
	"maps"
	"strconv"
	"strings"
	"unicode"

	"github.com/epochdb/epochdb/sql/catalog"

	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The functions clients call on the catalogs (format_type, pg_get_expr,
// pg_table_is_visible, ...), and the object identifier types: casts to
// regclass, regtype and their kin look names up in the catalogs.

func init() { maps.Copy(funcCompilers, catalogBuiltins) }

var catalogBuiltins = map[string]builtin{
	"format_type": func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		if len(n.Args) != 2 {
			return nil, argCountErr(n, nil)
		}
		oid, err := c.compileAs(n.Args[0], types.OidType)
		if err != nil {
			return nil, err
		}
		mod, err := c.compileAs(n.Args[1], types.Int4)
		if err != nil {
			return nil, err
		}
		// Not strict: a NULL typmod means "no modifier given".
		return &funcExpr{name: "format_type", t: types.Text, args: []expr{oid, mod}, fn: func(e *env, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			t := types.T{Oid: types.Oid(a[0].(int64)), Mod: -1}
			suffix := ""
			if elem, ok := t.Elem(); ok {
				t, suffix = elem, "[]"
			}
			if et := e.s.catalog().EnumByOid(t.Oid); et != nil {
				return e.s.relName(oidPublic, et.Name) + suffix, nil // qualified unless public is on the search path
			}
			if a[1] == nil {
				return formatType(types.Oid(a[0].(int64)), -1, false), nil
			}
			return formatType(types.Oid(a[0].(int64)), int32(a[1].(int64)), true), nil
		}}, nil
	},
	// The catalogs store expressions as their text, so there is nothing to
	// decompile.
	"pg_get_expr": optArgs(2, types.Text, []types.T{types.Text, types.OidType, types.Bool}, func(e *env, a []any) (any, error) {
		if len(a) > 2 && a[2] == true {
			if pretty, ok := e.s.prettyColumnExpr(uint32(a[1].(int64)), a[0].(string)); ok {
				return pretty, nil
			}
		}
		return a[0], nil
	}),
	"pg_get_indexdef": optArgs(1, types.Text, []types.T{types.OidType, types.Int4, types.Bool}, func(e *env, a []any) (any, error) {
		r, ok := e.s.relationByOID(uint32(a[0].(int64)))
		if !ok || r.index == nil {
			return nil, nil
		}
		if len(a) > 1 && a[1].(int64) != 0 {
			k := int(a[1].(int64))
			if k < 1 || k > len(r.index.Columns) {
				return "", nil
			}
			return e.s.indexColumnText(r.table, r.index.Columns[k-1]), nil
		}
		return indexDef(e.s, r.table, r.index, len(a) > 2 && a[2].(bool)), nil
	}),
	"pg_get_constraintdef": optArgs(1, types.Text, []types.T{types.OidType, types.Bool}, func(e *env, a []any) (any, error) {
		if t, ck := e.s.checkByOID(uint32(a[0].(int64))); ck != nil {
			return e.s.checkDef(t, ck, len(a) > 1 && a[1] == true), nil
		}
		if t, fk := e.s.fkByOID(uint32(a[0].(int64))); fk != nil {
			return e.s.fkDef(t, fk), nil
		}
		r, ok := e.s.relationByOID(uint32(a[0].(int64)))
		if !ok || r.index == nil {
			return nil, nil
		}
		kind := "UNIQUE"
		if r.index.Primary {
			kind = "PRIMARY KEY"
		}
		return kind + " (" + indexColumns(e.s, r.table, r.index) + ")", nil
	}),
	"pg_get_viewdef": optArgs(1, types.Text, []types.T{types.OidType, types.Bool}, func(e *env, a []any) (any, error) {
		if r, ok := e.s.relationByOID(uint32(a[0].(int64))); ok && r.view != nil {
			return viewDef(e.s, r.view), nil
		} else if ok && r.table != nil && r.table.IsMatView() {
			return viewDef(e.s, r.table.MatViewAsView()), nil
		}
		return nil, nil
	}),
	"pg_get_triggerdef":                  optArgs(1, types.Text, []types.T{types.OidType, types.Bool}, nullResult), // epochdb has no triggers
	"pg_get_function_result":             fixed(types.Text, []types.T{types.OidType}, nullResult),
	"pg_get_function_arguments":          fixed(types.Text, []types.T{types.OidType}, nullResult),
	"pg_get_function_identity_arguments": fixed(types.Text, []types.T{types.OidType}, nullResult),
	"pg_get_statisticsobjdef_columns":    fixed(types.Text, []types.T{types.OidType}, nullResult),
	"obj_description": optArgs(1, types.Text, []types.T{types.OidType, types.Name}, func(e *env, a []any) (any, error) {
		class := uint32(oidPgClass)
		if len(a) > 1 && a[1] == "pg_constraint" {
			class = oidPgConstraint
		} else if len(a) > 1 && a[1] == "pg_namespace" && uint32(a[0].(int64)) == oidPublic {
			return "standard public schema", nil
		}
		return e.s.description(class, uint32(a[0].(int64)), 0), nil
	}),
	"shobj_description": fixed(types.Text, []types.T{types.OidType, types.Name}, nullResult),
	"col_description": fixed(types.Text, []types.T{types.OidType, types.Int4}, func(e *env, a []any) (any, error) {
		return e.s.description(oidPgClass, uint32(a[0].(int64)), int32(a[1].(int64))), nil
	}),
	"pg_table_is_visible": fixed(types.Bool, []types.T{types.OidType}, func(e *env, a []any) (any, error) {
		r, ok := e.s.relationByOID(uint32(a[0].(int64)))
		if !ok {
			return nil, nil
		}
		return r.nsp != oidInfoSchema, nil
	}),
	"pg_type_is_visible": fixed(types.Bool, []types.T{types.OidType}, func(e *env, a []any) (any, error) {
		oid := types.Oid(a[0].(int64))
		if _, ok := types.Lookup(oid); !ok && e.s.catalog().EnumByOid(oid) == nil {
			return nil, nil
		}
		return true, nil
	}),
	// No functions, operators, conversions or operator classes are in the
	// catalogs, so no oid is one that is visible.
	"pg_function_is_visible":   fixed(types.Bool, []types.T{types.OidType}, nullResult),
	"pg_operator_is_visible":   fixed(types.Bool, []types.T{types.OidType}, nullResult),
	"pg_conversion_is_visible": fixed(types.Bool, []types.T{types.OidType}, nullResult),
	"pg_opclass_is_visible":    fixed(types.Bool, []types.T{types.OidType}, nullResult),
	"pg_collation_is_visible": fixed(types.Bool, []types.T{types.OidType}, func(_ *env, a []any) (any, error) {
		switch a[0].(int64) {
		case 100, 950, 951:
			return true, nil
		}
		return nil, nil
	}),
	"pg_relation_is_publishable": fixed(types.Bool, []types.T{types.OidType}, func(e *env, a []any) (any, error) {
		r, ok := e.s.relationByOID(uint32(a[0].(int64)))
		return ok && r.table != nil && r.index == nil, nil
	}),
	"has_table_privilege":    privilege,
	"has_column_privilege":   privilege,
	"has_sequence_privilege": privilege,
	"has_schema_privilege":   privilege,
	"has_database_privilege": privilege,
	"has_function_privilege": privilege,
	"pg_has_role":            privilege,
	"pg_get_userbyid": fixed(types.Name, []types.T{types.OidType}, func(e *env, a []any) (any, error) {
		switch a[0].(int64) {
		case oidSuperuser:
			return superuser(e.s), nil
		case oidDatabaseOwner:
			return "pg_database_owner", nil
		}
		return "unknown (OID=" + strconv.FormatInt(a[0].(int64), 10) + ")", nil
	}),
	"pg_encoding_to_char": fixed(types.Name, []types.T{types.Int4}, func(_ *env, a []any) (any, error) {
		switch a[0].(int64) {
		case 0:
			return "SQL_ASCII", nil
		case 6:
			return "UTF8", nil
		}
		return "", nil
	}),
	"pg_typeof": func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		if len(n.Args) != 1 {
			return nil, argCountErr(n, nil)
		}
		e, err := c.compile(n.Args[0])
		if err != nil {
			return nil, err
		}
		if p, ok := e.(*paramExpr); ok && p.Type().Oid == types.OidUnknown {
			return nil, pgerr.New(pgerr.IndeterminateDatatype, "could not determine data type of parameter $%d", p.idx+1)
		}
		o := e.Type().Oid
		return &constExpr{t: types.Regtype, v: types.Reg{Oid: o, Name: formatType(o, -1, false)}}, nil
	},
	"to_regclass":     toReg(types.Regclass),
	"to_regtype":      toReg(types.Regtype),
	"to_regnamespace": toReg(types.Regnamespace),
	"to_regrole":      toReg(types.Regrole),
	"to_regproc":      toReg(types.Regproc),
	"pg_get_serial_sequence": fixed(types.Text, []types.T{types.Text, types.Text}, func(e *env, a []any) (any, error) {
		t, err := e.s.catalog().Table(strings.TrimPrefix(a[0].(string), "public."))
		if err != nil {
			return nil, err
		}
		_, col := t.Column(a[1].(string))
		if col == nil {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", a[1].(string), t.Name)
		}
		if q := e.s.catalog().SequenceByID[col.Serial]; q != nil {
			return "public." + parser.QuoteIdent(q.Name), nil
		}
		return nil, nil
	}),
	"pg_tablespace_location": fixed(types.Text, []types.T{types.OidType}, func(*env, []any) (any, error) { return "", nil }),
	"pg_is_in_recovery":      fixed(types.Bool, nil, func(*env, []any) (any, error) { return false, nil }),
	// epochdb does not measure relations in pages.
	"pg_relation_size":       optArgs(1, types.Int8, []types.T{types.OidType, types.Text}, zeroSize),
	"pg_table_size":          fixed(types.Int8, []types.T{types.OidType}, zeroSize),
	"pg_indexes_size":        fixed(types.Int8, []types.T{types.OidType}, zeroSize),
	"pg_total_relation_size": fixed(types.Int8, []types.T{types.OidType}, zeroSize),
	"pg_database_size":       fixed(types.Int8, []types.T{types.Name}, zeroSize),
	"pg_size_pretty": fixed(types.Text, []types.T{types.Int8}, func(_ *env, a []any) (any, error) {
		return sizePretty(a[0].(int64)), nil
	}),
}

func nullResult(*env, []any) (any, error) { return nil, nil }
func zeroSize(*env, []any) (any, error)   { return int64(0), nil }

// privilege is has_table_privilege and its kin: the one role may do
// anything.
func privilege(c *compiler, n *ast.FuncCallExpr) (expr, error) {
	args := make([]expr, len(n.Args))
	for i, a := range n.Args {
		e, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		if args[i], err = c.resolveUnknown(e); err != nil {
			return nil, err
		}
	}
	if len(args) < 2 || len(args) > 4 {
		return nil, argCountErr(n, nil)
	}
	return &funcExpr{name: n.FnName.L, t: types.Bool, args: args, strict: true, fn: func(*env, []any) (any, error) {
		return true, nil
	}}, nil
}

// optArgs compiles a strict function whose trailing parameters are
// optional: at least min of params must be given.
func optArgs(min int, ret types.T, params []types.T, fn func(*env, []any) (any, error)) builtin {
	return func(c *compiler, n *ast.FuncCallExpr) (expr, error) {
		if len(n.Args) < min || len(n.Args) > len(params) {
			return nil, argCountErr(n, nil)
		}
		return fixed(ret, params[:len(n.Args)], fn)(c, n)
	}
}

// toReg is to_regclass and its kin: the cast, but NULL for a name that
// names nothing.
func toReg(t types.T) builtin {
	return fixed(t, []types.T{types.Text}, func(e *env, a []any) (any, error) {
		r, err := e.s.regByName(t, a[0].(string))
		if err != nil {
			return nil, nil
		}
		return r, nil
	})
}

// formatType is format_type(oid, typmod). Without a typmod, bpchar is
// "character", as the SQL type it usually is; with -1 it is bpchar.
func formatType(oid types.Oid, mod int32, hasMod bool) string {
	switch {
	case oid == 0:
		return "-"
	case !hasMod && oid == types.OidBpchar:
		return "character"
	case !hasMod && oid == types.OidBpcharArray:
		return "character[]"
	}
	return types.T{Oid: oid, Mod: mod}.String()
}

// sizePretty is pg_size_pretty: a unit is used below its limit, and the
// larger units round half away from zero (PostgreSQL 15's dbsize.c).
func sizePretty(n int64) string {
	units := []struct {
		name  string
		limit int64
		round bool
		bits  uint
	}{{"bytes", 10 * 1024, false, 0}, {"kB", 20*1024 - 1, true, 10}, {"MB", 20*1024 - 1, true, 20},
		{"GB", 20*1024 - 1, true, 30}, {"TB", 20*1024 - 1, true, 40}, {"PB", 20*1024 - 1, true, 50}}
	for i, u := range units {
		if i == len(units)-1 || n < u.limit && n > -u.limit {
			if u.round {
				if n < 0 {
					n = (n - 1) / 2
				} else {
					n = (n + 1) / 2
				}
			}
			return strconv.FormatInt(n, 10) + " " + u.name
		}
		// One bit less when the next unit rounds by halves, one more when
		// this one did.
		bits := units[i+1].bits - u.bits - 1
		if u.round {
			bits++
		}
		n /= 1 << bits
	}
	panic("unreachable")
}

// Object identifier types. A value of one is resolved against the catalogs
// when it is made (see types.Reg).

// storable rejects the types a column cannot have: pseudo-types, as in
// PostgreSQL, and the reg* types, whose values carry names that the row
// encoding does not keep.
func storable(col string, t types.T) error {
	base := t
	if elem, ok := t.Elem(); ok {
		base = elem
	}
	if info, _ := types.Lookup(base.Oid); info.Type == 'p' {
		return pgerr.New(pgerr.InvalidTableDefinition, "column %q has pseudo-type %s", col, t)
	}
	if types.IsReg(base.Oid) {
		return pgerr.New(pgerr.FeatureNotSupported, "columns of type %s are not supported", t)
	}
	return nil
}

// isOidLike reports whether values of o are object identifiers.
func isOidLike(o types.Oid) bool { return o == types.OidOid || types.IsReg(o) }

func isInt(o types.Oid) bool {
	return o == types.OidInt2 || o == types.OidInt4 || o == types.OidInt8
}

// unifyOids is where an object identifier meets another or an integer:
// PostgreSQL compares them as oids.
func unifyOids(a, b types.T) (types.T, bool) {
	if isOidLike(a.Oid) && (isOidLike(b.Oid) || isInt(b.Oid)) || isOidLike(b.Oid) && isInt(a.Oid) {
		return types.OidType, true
	}
	return types.T{}, false
}

// oidCoercible reports whether PostgreSQL converts from to to implicitly
// among the integers and object identifiers.
func oidCoercible(from, to types.T) bool {
	return isOidLike(to.Oid) && (isOidLike(from.Oid) || isInt(from.Oid))
}

// toReg converts e to the reg* type t: a name or a number, looked up now if
// it is a literal and when evaluated otherwise. An untyped parameter is
// text, the name.
func (c *compiler) toReg(e expr, t types.T) (expr, error) {
	switch x := e.(type) {
	case *unknownExpr:
		r, err := c.s.regByName(t, x.s)
		if err != nil {
			return nil, err
		}
		return &constExpr{t: t, v: r}, nil
	case *constExpr:
		if x.v == nil {
			return &constExpr{t: t}, nil
		}
	case *paramExpr:
		if e.Type().Oid == types.OidUnknown {
			(*c.params)[x.idx] = types.Text
		}
	}
	from := e.Type()
	if !isString(from.Oid) && !isOidLike(from.Oid) && !isInt(from.Oid) {
		return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, t)
	}
	return &regCastExpr{e: e, to: t}, nil
}

// regCastExpr makes a reg* value of a name or an oid.
type regCastExpr struct {
	e  expr
	to types.T
}

func (r *regCastExpr) Type() types.T { return r.to }
func (r *regCastExpr) Eval(e *env) (any, error) {
	v, err := r.e.Eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	switch x := v.(type) {
	case string:
		return e.s.regByName(r.to, x)
	case int64:
		return e.s.regByOID(r.to, types.Oid(uint32(x))), nil
	case types.Reg:
		return e.s.regByOID(r.to, x.Oid), nil
	}
	return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast %T to %s", v, r.to)
}

// regByName is the input function of the reg* type t: a name, or an oid
// written as a number.
func (s *Session) regByName(t types.T, name string) (types.Reg, error) {
	str := strings.TrimSpace(name)
	if str != "" && strings.Trim(str, "0123456789") == "" {
		n, err := strconv.ParseUint(str, 10, 32)
		if err != nil {
			return types.Reg{}, pgerr.New(pgerr.NumericValueOutOfRange, `value "%s" is out of range for type oid`, str)
		}
		return s.regByOID(t, types.Oid(n)), nil
	}
	if str == "-" {
		return types.Reg{}, nil
	}
	if t.Oid == types.OidRegtype {
		tt, err := s.parseTypeName(str)
		if err != nil {
			return types.Reg{}, err
		}
		if et := s.catalog().EnumByOid(tt.Oid); et != nil {
			return types.Reg{Oid: tt.Oid, Name: s.relName(oidPublic, et.Name)}, nil
		}
		return types.Reg{Oid: tt.Oid, Name: formatType(tt.Oid, -1, false)}, nil
	}
	parts, err := splitQualified(str)
	if err != nil {
		return types.Reg{}, err
	}
	switch t.Oid {
	case types.OidRegclass:
		schema := ""
		if len(parts) == 2 {
			schema = parts[0]
		}
		if len(parts) <= 2 {
			if r, ok := s.relationByName(schema, parts[len(parts)-1]); ok {
				return types.Reg{Oid: types.Oid(r.oid), Name: r.qualifiedName(s)}, nil
			}
		}
		return types.Reg{}, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", str)
	case types.OidRegnamespace:
		for _, n := range namespaces {
			if len(parts) == 1 && n.name == parts[0] {
				return types.Reg{Oid: types.Oid(n.oid), Name: parser.QuoteIdent(n.name)}, nil
			}
		}
		return types.Reg{}, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", str)
	case types.OidRegrole:
		if len(parts) == 1 && parts[0] == superuser(s) {
			return types.Reg{Oid: oidSuperuser, Name: parser.QuoteIdent(parts[0])}, nil
		}
		return types.Reg{}, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", str)
	}
	// Only the built-in functions the catalogs name are in pg_proc.
	if name := parts[len(parts)-1]; len(parts) == 1 || len(parts) == 2 && parts[0] == "pg_catalog" {
		if oid, ok := procsByName[name]; ok {
			return types.Reg{Oid: types.Oid(oid), Name: name}, nil
		}
	}
	return types.Reg{}, pgerr.New(pgerr.UndefinedFunction, "function %q does not exist", str)
}

// regByOID is the output function of the reg* type t: the name of the
// object oid identifies, or the number if there is none.
func (s *Session) regByOID(t types.T, oid types.Oid) types.Reg {
	r := types.Reg{Oid: oid}
	switch t.Oid {
	case types.OidRegclass:
		if rel, ok := s.relationByOID(uint32(oid)); ok {
			r.Name = rel.qualifiedName(s)
		}
	case types.OidRegtype:
		if _, ok := types.Lookup(oid); ok {
			r.Name = formatType(oid, -1, false)
		}
	case types.OidRegnamespace:
		if n, ok := namespaceName(uint32(oid)); ok {
			r.Name = parser.QuoteIdent(n)
		}
	case types.OidRegrole:
		if oid == oidSuperuser {
			r.Name = parser.QuoteIdent(superuser(s))
		}
	case types.OidRegproc, types.OidRegprocedure:
		r.Name = procsByOID[uint32(oid)]
	}
	return r
}

// splitQualified splits a possibly qualified, possibly quoted name as
// PostgreSQL's reg* input functions read it: unquoted parts fold to lower
// case.
func splitQualified(s string) ([]string, error) {
	var parts []string
	invalid := pgerr.New(pgerr.InvalidName, "invalid name syntax")
	for {
		var part string
		if strings.HasPrefix(s, `"`) {
			var sb strings.Builder
			i := 1
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, invalid
				}
				sb.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					sb.WriteByte('"')
					i++
					continue
				}
				break
			}
			part, s = sb.String(), s[i:]
		} else {
			end := strings.IndexByte(s, '.')
			if end < 0 {
				end = len(s)
			}
			part, s = strings.ToLower(strings.TrimSpace(s[:end])), s[end:]
		}
		if part == "" {
			return nil, invalid
		}
		parts = append(parts, part)
		if s == "" {
			return parts, nil
		}
		if s[0] != '.' {
			return nil, invalid
		}
		s = s[1:]
	}
}

// indexColumns lists an index's columns, or expressions, as SQL.
func indexColumns(s *Session, t *catalog.Table, ix *catalog.Index) string {
	names := make([]string, len(ix.Columns))
	for i, ci := range ix.Columns {
		names[i] = s.indexColumnText(t, ci)
	}
	return strings.Join(names, ", ")
}

// indexDef is pg_get_indexdef: the CREATE INDEX statement that would make
// the index, with the table qualified unless pretty.
func indexDef(s *Session, t *catalog.Table, ix *catalog.Index, pretty bool) string {
	table := parser.QuoteIdent(t.Name)
	if !pretty {
		table = "public." + table
	}
	create := "CREATE UNIQUE INDEX "
	if ix.NonUnique {
		create = "CREATE INDEX "
	}
	def := create + parser.QuoteIdent(ix.Name) + " ON " + table + " USING btree (" + indexColumns(s, t, ix) + ")"
	if pred := s.indexPredicateText(t, ix); pred != "" {
		def += " WHERE " + pred
	}
	return def
}

// indexPredicateText is a partial index's predicate as pg_get_indexdef
// prints it, or "".
func (s *Session) indexPredicateText(t *catalog.Table, ix *catalog.Index) string {
	if ix.Where == "" {
		return ""
	}
	e, err := s.predicateOf(t, ix)
	if err != nil {
		return "(" + ix.Where + ")"
	}
	names := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		names[i] = col.Name
	}
	text, _ := deparse(e, names)
	return text
}

// prettyColumnExpr prints the default or generation expression of a column
// of relation relid that defaultText prints as text, as pretty-printing
// pg_get_expr does: without the parentheses its precedence makes needless.
func (s *Session) prettyColumnExpr(relid uint32, text string) (string, bool) {
	r, ok := s.relationByOID(relid)
	if !ok || r.table == nil {
		return "", false
	}
	t := r.table
	names := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		names[i] = col.Name
	}
	for _, c := range t.Columns {
		if !c.Visible() || c.Default == "" && c.Generated == "" || s.defaultText(t, c) != text {
			continue
		}
		var e expr
		var err error
		if c.Generated != "" {
			e, err = s.compileGenerated(t, c)
		} else {
			e, err = s.compileDefault(c)
		}
		if err != nil {
			return "", false
		}
		return deparsePretty(e, names)
	}
	return "", false
}

// defaultText is a column default, or a generated column's expression, as
// pg_get_expr prints it, or the stored SQL if it no longer compiles.
func (s *Session) defaultText(t *catalog.Table, c *catalog.TableColumn) string {
	if c.Generated != "" {
		e, err := s.compileGenerated(t, c)
		if err != nil {
			return c.Generated
		}
		names := make([]string, len(t.Columns))
		for i, col := range t.Columns {
			names[i] = col.Name
		}
		if text, ok := deparse(e, names); ok {
			return text
		}
		return c.Generated
	}
	e, err := s.compileDefault(c)
	if err != nil {
		return c.Default
	}
	if text, ok := (deparser{s: s}).print(e); ok {
		return text
	}
	return c.Default
}

// keywordFuncs are the calls PostgreSQL's grammar has keywords for, which
// it prints in capitals.
var keywordFuncs = map[string]string{"nullif": "NULLIF", "greatest": "GREATEST", "least": "LEAST"}

// sqlValueFuncs print as the SQL keywords they are written as.
var sqlValueFuncs = map[string]string{
	"current_timestamp": "CURRENT_TIMESTAMP", "current_date": "CURRENT_DATE", "localtimestamp": "LOCALTIMESTAMP",
	"localtime": "LOCALTIME", "current_user": "CURRENT_USER", "session_user": "SESSION_USER", "user": "CURRENT_USER",
	"current_schema": "CURRENT_SCHEMA",
}

// deparse prints a compiled expression as PostgreSQL's ruleutils prints
// the expression tree it stores: implicit casts are invisible, constants
// carry their type as get_const_expr decides, and every operator is
// parenthesized. cols names the columns a colExpr reads. It reports false
// for an expression it cannot print.
func deparse(e expr, cols []string) (string, bool) {
	return deparser{cols: cols}.print(e)
}

// deparsePretty is deparse as pretty-printing ruleutils prints: without
// the parentheses that operator precedence makes redundant.
func deparsePretty(e expr, cols []string) (string, bool) {
	return deparser{cols: cols, pretty: true}.print(e)
}

type deparser struct {
	cols   []string
	pretty bool
	// s, when set, names the sequence of a nextval as regclass prints it
	// in s, qualified if its search path would not find it.
	s *Session
}

// enumType is the enum type t, if it is one and d has a session to find
// it in.
func (d deparser) enumType(t types.T) *catalog.EnumType {
	if d.s == nil || !types.IsEnum(t.Oid) {
		return nil
	}
	return d.s.catalog().EnumByOid(t.Oid)
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

func (d deparser) print(e expr) (string, bool) {
	fail := false
	var walk func(e expr) (string, int)
	var caseText func(x *caseExpr) string
	// operand prints a child of an operator of precedence prec. Pretty, it
	// has parentheses only if it binds looser (or, on the right of a
	// left-associative operator, as loose); otherwise every operator
	// already has its own.
	operand := func(e expr, prec int, right bool) string {
		text, p := walk(e)
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
	binary := func(l expr, op string, r expr, prec int) (string, int) {
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
		return text + "::" + x.to.String(), precPrimary
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
			then, _ := walk(x.thens[i])
			line(&b, "WHEN "+when+" THEN "+then)
		}
		if x.els != nil {
			els, _ := walk(x.els)
			line(&b, "ELSE "+els)
		}
		indent -= 4
		line(&b, "END")
		return b.String()
	}
	walk = func(e expr) (string, int) {
		switch x := e.(type) {
		case *constExpr:
			if et := d.enumType(x.t); et != nil && x.v != nil {
				// A label, with its type named as the search path finds it.
				return parser.QuoteLiteral(x.v.(types.Enum).Label) + "::" + d.s.publicName(et.Name), precPrimary
			}
			return constText(x.t, x.v), precPrimary
		case *colExpr:
			if x.idx < len(d.cols) {
				return parser.QuoteIdent(d.cols[x.idx]), precPrimary
			}
		case *castExpr:
			if !x.explicit {
				return walk(x.e)
			}
			return cast(x)
		case *funcExpr:
			if kw, ok := sqlValueFuncs[x.name]; ok && len(x.args) == 0 {
				return kw, precPrimary
			}
			if kw, ok := sqlValueFuncs[x.name]; ok && len(x.args) == 1 {
				// LOCALTIME(p): the precision is a constant.
				if p, ok := x.args[0].(*constExpr); ok && p.v != nil {
					return kw + "(" + strconv.FormatInt(p.v.(int64), 10) + ")", precPrimary
				}
			}
			name := x.name
			if upper, ok := keywordFuncs[name]; ok {
				name = upper
			}
			if x.op != 0 && len(x.args) == 2 {
				return binary(x.args[0], string(x.op), x.args[1], precAdd)
			}
			if op := regexOperator(x, false); op != "" {
				return binary(x.args[0], op, x.args[1], precOther)
			}
			if isOperatorName(x.name) && len(x.args) == 2 {
				return binary(x.args[0], x.name, x.args[1], precOther)
			}
			args := make([]string, len(x.args))
			for i, a := range x.args {
				// ruleutils shows the implicit casts of a function's
				// arguments: lower((email)::text) for a varchar.
				if c, ok := a.(*castExpr); ok && !c.explicit && x.name != "nextval" {
					args[i], _ = cast(c)
					continue
				}
				args[i], _ = walk(a)
			}
			if x.name == "nextval" && len(args) == 1 {
				if k, ok := x.args[0].(*constExpr); ok && d.s != nil {
					if q, ok := k.v.(string); ok && d.s.catalog().SequenceByName[q] != nil {
						args[0] = parser.QuoteLiteral(d.s.publicName(q)) + "::text"
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
			return binary(x.l, x.op, x.r, precCmp)
		case *likeExpr:
			op := map[[2]bool]string{{false, false}: "~~", {true, false}: "!~~", {false, true}: "~~*", {true, true}: "!~~*"}[[2]bool{x.not, x.ci}]
			if x.escape == '\\' {
				return binary(x.e, op, x.pattern, precOther)
			}
			// PostgreSQL stores LIKE ... ESCAPE e as ~~ like_escape(pattern, e);
			// the call is only printed, never run.
			escape := ""
			if x.escape != 0 {
				escape = string(x.escape)
			}
			pattern := &funcExpr{name: "like_escape", t: types.Text, args: []expr{x.pattern, &constExpr{t: types.Text, v: escape}}}
			return binary(x.e, op, pattern, precOther)
		case *coalesceExpr:
			args := make([]string, len(x.args))
			for i, a := range x.args {
				args[i], _ = walk(a)
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
			var flatten func(e expr)
			flatten = func(e expr) {
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
				return binary(x.e, op, x.list[0], precCmp)
			}
			elems := make([]string, len(x.list))
			for i, el := range x.list {
				elems[i], _ = walk(el)
			}
			text := operand(x.e, precCmp, false) + " " + op + " " + quant + " (ARRAY[" + strings.Join(elems, ", ") + "])"
			if !d.pretty {
				return "(" + text + ")", precPrimary
			}
			return text, precArrayOp
		case *caseExpr:
			return caseText(x), precPrimary
		case *notExpr:
			if f, ok := x.e.(*funcExpr); ok {
				if op := regexOperator(f, true); op != "" {
					return binary(f.args[0], op, f.args[1], precOther)
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

// regexOperator is the operator a ~ b, a ~* b or, negated, a !~ b or
// a !~* b, that the parser rewrote to f, epochdb_match(a, b[, 'i']); ""
// if f is not one.
func regexOperator(f *funcExpr, negated bool) string {
	if f.name != "epochdb_match" {
		return ""
	}
	op := "~"
	switch len(f.args) {
	case 2:
	case 3:
		if k, ok := f.args[2].(*constExpr); !ok || k.v != "i" {
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

// isOperatorName reports whether a function's name is an operator's, as
// funcExpr names the operators it implements (||, ~, ->).
func isOperatorName(name string) bool {
	return name != "" && strings.IndexFunc(name, func(r rune) bool {
		return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
	}) < 0
}

// constText is get_const_expr: non-negative int4 and numeric literals and
// booleans print bare, anything else as a quoted literal with its type.
func constText(t types.T, v any) string {
	label := "::" + types.T{Oid: t.Oid, Mod: -1}.String()
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
