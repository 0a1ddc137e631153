package pgcatalog

import (
	"maps"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The functions clients call on the catalogs (format_type, pg_get_expr,
// pg_table_is_visible, ...), and the object identifier types: casts to
// regclass, regtype and their kin look names up in the catalogs.

func init() { maps.Copy(plan.FuncCompilers, catalogBuiltins) }

// Object identifier types. A value of one is resolved against the catalogs
// when it is made (see types.Reg).

var catalogBuiltins = map[string]plan.Builtin{
	"format_type": func(c *plan.Compiler, n *ast.FuncCallExpr) (plan.Expr, error) {
		if len(n.Args) != 2 {
			return nil, plan.ArgCountErr(n, nil)
		}
		oid, err := c.CompileAs(n.Args[0], types.OidType)
		if err != nil {
			return nil, err
		}
		mod, err := c.CompileAs(n.Args[1], types.Int4)
		if err != nil {
			return nil, err
		}
		// Not strict: a NULL typmod means "no modifier given".
		return &plan.FuncExpr{Name: "format_type", T: types.Text, Args: []plan.Expr{oid, mod}, Fn: func(e *plan.Env, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			if name := catalogTypeName(hostOf(e.Host), types.Oid(a[0].(int64))); name != "" {
				return name, nil
			}
			if a[1] == nil {
				return formatType(types.Oid(a[0].(int64)), -1, false), nil
			}
			return formatType(types.Oid(a[0].(int64)), int32(a[1].(int64)), true), nil
		}}, nil
	},
	// The catalogs store expressions as their text, so there is nothing to
	// decompile.
	"pg_get_expr": optArgs(2, types.Text, []types.T{types.Text, types.OidType, types.Bool}, func(e *plan.Env, a []any) (any, error) {
		if len(a) > 2 && a[2] == true {
			if pretty, ok := prettyColumnExpr(hostOf(e.Host), uint32(a[1].(int64)), a[0].(string)); ok {
				return pretty, nil
			}
		}
		return a[0], nil
	}),
	"pg_get_indexdef": optArgs(1, types.Text, []types.T{types.OidType, types.Int4, types.Bool}, func(e *plan.Env, a []any) (any, error) {
		r, ok := relationByOID(hostOf(e.Host), uint32(a[0].(int64)))
		if !ok || r.index == nil {
			return nil, nil
		}
		if len(a) > 1 && a[1].(int64) != 0 {
			k := int(a[1].(int64))
			if k < 1 || k > len(r.index.Columns) {
				return "", nil
			}
			return hostOf(e.Host).IndexColumnText(r.table, r.index.Columns[k-1]), nil
		}
		return indexDef(hostOf(e.Host), r.table, r.index, len(a) > 2 && a[2].(bool)), nil
	}),
	"pg_get_constraintdef": optArgs(1, types.Text, []types.T{types.OidType, types.Bool}, func(e *plan.Env, a []any) (any, error) {
		if t, ck := e.Host.Catalog().CheckByOID(uint32(a[0].(int64))); ck != nil {
			return hostOf(e.Host).CheckDef(t, ck, len(a) > 1 && a[1] == true), nil
		}
		if t, fk := e.Host.Catalog().FKByOID(uint32(a[0].(int64))); fk != nil {
			return hostOf(e.Host).FKDef(t, fk), nil
		}
		r, ok := relationByOID(hostOf(e.Host), uint32(a[0].(int64)))
		if !ok || r.index == nil {
			return nil, nil
		}
		kind := "UNIQUE"
		if r.index.Primary {
			kind = "PRIMARY KEY"
		}
		return kind + " (" + indexColumns(hostOf(e.Host), r.table, r.index) + ")", nil
	}),
	"pg_get_viewdef": optArgs(1, types.Text, []types.T{types.OidType, types.Bool}, func(e *plan.Env, a []any) (any, error) {
		if r, ok := relationByOID(hostOf(e.Host), uint32(a[0].(int64))); ok && r.view != nil {
			return viewDef(hostOf(e.Host), r.view), nil
		} else if ok && r.table != nil && r.table.IsMatView() {
			return viewDef(hostOf(e.Host), r.table.MatViewAsView()), nil
		}
		return nil, nil
	}),
	"pg_get_triggerdef": optArgs(1, types.Text, []types.T{types.OidType, types.Bool}, func(e *plan.Env, a []any) (any, error) {
		h := hostOf(e.Host)
		if t, tg := triggerByOID(h, uint32(a[0].(int64))); tg != nil {
			return triggerDef(h, t, tg, len(a) > 1 && a[1] == true), nil
		}
		return nil, nil
	}),
	"pg_get_function_result": plan.Fixed(types.Text, []types.T{types.OidType}, withFunction(func(h Host, f *catalog.Function) any {
		return functionResult(h, f)
	})),
	"pg_get_function_arguments": plan.Fixed(types.Text, []types.T{types.OidType}, withFunction(func(h Host, f *catalog.Function) any {
		return functionArguments(h, f, false)
	})),
	"pg_get_function_identity_arguments": plan.Fixed(types.Text, []types.T{types.OidType}, withFunction(func(h Host, f *catalog.Function) any {
		return functionArguments(h, f, true)
	})),
	"pg_get_functiondef": plan.Fixed(types.Text, []types.T{types.OidType}, withFunction(func(h Host, f *catalog.Function) any {
		return functionDef(h, f)
	})),
	"pg_get_function_sqlbody": plan.Fixed(types.Text, []types.T{types.OidType}, withFunction(func(h Host, f *catalog.Function) any {
		if body, ok := sqlBody(h, f); ok {
			return body
		}
		return nil
	})),
	"pg_get_function_arg_default": plan.Fixed(types.Text, []types.T{types.OidType, types.Int4}, func(e *plan.Env, a []any) (any, error) {
		h := hostOf(e.Host)
		f := functionByOID(h, uint32(a[0].(int64)))
		if n := int(a[1].(int64)); f != nil && n >= 1 && n <= len(f.Params) && f.Params[n-1].Default != "" {
			return paramDefault(h, f.Params[n-1]), nil
		}
		return nil, nil
	}),
	"pg_get_statisticsobjdef_columns": plan.Fixed(types.Text, []types.T{types.OidType}, nullResult),
	"obj_description": optArgs(1, types.Text, []types.T{types.OidType, types.Name}, func(e *plan.Env, a []any) (any, error) {
		class := uint32(OidPgClass)
		if len(a) > 1 {
			var ok bool
			if class, ok = descriptionClasses[a[1].(string)]; !ok {
				return nil, nil
			}
		}
		oid := uint32(a[0].(int64))
		if d := hostOf(e.Host).Description(class, oid, 0); d != nil || class != OidPgNamespace || oid != OidPublic {
			return d, nil
		}
		return "standard public schema", nil
	}),
	"shobj_description": plan.Fixed(types.Text, []types.T{types.OidType, types.Name}, nullResult),
	"col_description": plan.Fixed(types.Text, []types.T{types.OidType, types.Int4}, func(e *plan.Env, a []any) (any, error) {
		return hostOf(e.Host).Description(OidPgClass, uint32(a[0].(int64)), int32(a[1].(int64))), nil
	}),
	"pg_my_temp_schema": plan.Fixed(types.OidType, nil, func(e *plan.Env, _ []any) (any, error) {
		return int64(e.Host.SearchPath().Temp), nil
	}),
	"pg_is_other_temp_schema": plan.Fixed(types.Bool, []types.T{types.OidType}, func(e *plan.Env, a []any) (any, error) {
		nsp := uint32(a[0].(int64))
		return tempSchema(hostOf(e.Host), nsp) && nsp != e.Host.SearchPath().Temp, nil
	}),
	"pg_table_is_visible": plan.Fixed(types.Bool, []types.T{types.OidType}, func(e *plan.Env, a []any) (any, error) {
		h := hostOf(e.Host)
		r, ok := relationByOID(h, uint32(a[0].(int64)))
		if !ok {
			return nil, nil
		}
		// Visible: the search path finds it by its bare name.
		q, _ := h.Catalog().Resolve(h.SearchPath(), "", r.Name)
		return q == catalog.QName{Schema: r.Namespace, Name: r.Name}, nil
	}),
	"pg_type_is_visible": plan.Fixed(types.Bool, []types.T{types.OidType}, func(e *plan.Env, a []any) (any, error) {
		oid := types.Oid(a[0].(int64))
		cat := e.Host.Catalog()
		if et := cat.EnumByOid(oid); et != nil {
			q, _ := cat.ResolveType(e.Host.SearchPath(), "", et.Name)
			return q == et.QName(), nil
		}
		in, ok := types.Lookup(oid)
		switch ext := cat.TypeExtension(oid); {
		case ext != nil:
			q, _ := cat.ResolveType(e.Host.SearchPath(), "", in.Name)
			return q == catalog.QName{Schema: ext.Schema, Name: in.Name}, nil
		case !ok || in.Extension != "":
			return nil, nil
		}
		return true, nil
	}),
	"pg_function_is_visible": plan.Fixed(types.Bool, []types.T{types.OidType}, func(e *plan.Env, a []any) (any, error) {
		h := hostOf(e.Host)
		if f := functionByOID(h, uint32(a[0].(int64))); f != nil {
			return functionVisible(h, f), nil
		}
		if _, ok := procsByOID[uint32(a[0].(int64))]; ok {
			return true, nil
		}
		return nil, nil
	}),
	// No operators, conversions or operator classes are in the catalogs,
	// so no oid is one that is visible.
	"pg_operator_is_visible":   plan.Fixed(types.Bool, []types.T{types.OidType}, nullResult),
	"pg_conversion_is_visible": plan.Fixed(types.Bool, []types.T{types.OidType}, nullResult),
	"pg_opclass_is_visible":    plan.Fixed(types.Bool, []types.T{types.OidType}, nullResult),
	"pg_collation_is_visible": plan.Fixed(types.Bool, []types.T{types.OidType}, func(_ *plan.Env, a []any) (any, error) {
		switch a[0].(int64) {
		case 100, 950, 951:
			return true, nil
		}
		return nil, nil
	}),
	"pg_relation_is_publishable": plan.Fixed(types.Bool, []types.T{types.OidType}, func(e *plan.Env, a []any) (any, error) {
		r, ok := relationByOID(hostOf(e.Host), uint32(a[0].(int64)))
		return ok && r.table != nil && r.index == nil, nil
	}),
	"has_table_privilege":    privilege,
	"has_column_privilege":   privilege,
	"has_sequence_privilege": privilege,
	"has_schema_privilege":   privilege,
	"has_database_privilege": privilege,
	"has_function_privilege": privilege,
	"pg_has_role":            privilege,
	"pg_get_userbyid": plan.Fixed(types.Name, []types.T{types.OidType}, func(e *plan.Env, a []any) (any, error) {
		switch a[0].(int64) {
		case oidSuperuser:
			return superuser(hostOf(e.Host)), nil
		case oidDatabaseOwner:
			return "pg_database_owner", nil
		}
		return "unknown (OID=" + strconv.FormatInt(a[0].(int64), 10) + ")", nil
	}),
	"pg_encoding_to_char": plan.Fixed(types.Name, []types.T{types.Int4}, func(_ *plan.Env, a []any) (any, error) {
		switch a[0].(int64) {
		case 0:
			return "SQL_ASCII", nil
		case 6:
			return "UTF8", nil
		}
		return "", nil
	}),
	"pg_typeof": func(c *plan.Compiler, n *ast.FuncCallExpr) (plan.Expr, error) {
		if len(n.Args) != 1 {
			return nil, plan.ArgCountErr(n, nil)
		}
		e, err := c.Compile(n.Args[0])
		if err != nil {
			return nil, err
		}
		if p, ok := e.(*plan.ParamExpr); ok && p.Type().Oid == types.OidUnknown {
			return nil, pgerr.New(pgerr.IndeterminateDatatype, "could not determine data type of parameter $%d", p.Index+1)
		}
		o := e.Type().Oid
		name := catalogTypeName(hostOf(c.Host), o)
		if name == "" {
			name = formatType(o, -1, false)
		}
		return &plan.ConstExpr{T: types.Regtype, V: types.Reg{Oid: o, Name: name}}, nil
	},
	"to_regclass":     toReg(types.Regclass),
	"to_regtype":      toReg(types.Regtype),
	"to_regnamespace": toReg(types.Regnamespace),
	"to_regrole":      toReg(types.Regrole),
	"to_regproc":      toReg(types.Regproc),
	"pg_get_serial_sequence": plan.Fixed(types.Text, []types.T{types.Text, types.Text}, func(e *plan.Env, a []any) (any, error) {
		h := hostOf(e.Host)
		r, err := RegByName(h, types.Regclass, a[0].(string))
		if err != nil {
			return nil, err
		}
		t := h.Catalog().TableByID[uint32(r.Oid)]
		if t == nil {
			return nil, nil
		}
		_, col := t.Column(a[1].(string))
		if col == nil {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", a[1].(string), t.Name)
		}
		if q := e.Host.Catalog().SequenceByID[col.Serial]; q != nil {
			return parser.QuoteIdent(h.Catalog().SchemaName(q.Schema)) + "." + parser.QuoteIdent(q.Name), nil
		}
		return nil, nil
	}),
	"pg_tablespace_location": plan.Fixed(types.Text, []types.T{types.OidType}, func(*plan.Env, []any) (any, error) { return "", nil }),
	"pg_is_in_recovery":      plan.Fixed(types.Bool, nil, func(*plan.Env, []any) (any, error) { return false, nil }),
	// epochdb does not measure relations in pages. The functions take a
	// regclass, so that pg_table_size('t') reads a name, and an oid that
	// names no relation has no size (NULL).
	"pg_relation_size":       optArgs(1, types.Int8, []types.T{types.Regclass, types.Text}, relationSize),
	"pg_table_size":          plan.Fixed(types.Int8, []types.T{types.Regclass}, relationSize),
	"pg_indexes_size":        plan.Fixed(types.Int8, []types.T{types.Regclass}, relationSize),
	"pg_total_relation_size": plan.Fixed(types.Int8, []types.T{types.Regclass}, relationSize),
	"pg_database_size":       plan.Fixed(types.Int8, []types.T{types.Name}, zeroSize),
	"pg_size_pretty": plan.Fixed(types.Text, []types.T{types.Int8}, func(_ *plan.Env, a []any) (any, error) {
		return sizePretty(a[0].(int64)), nil
	}),
}

func nullResult(*plan.Env, []any) (any, error) { return nil, nil }

// withFunction is a catalog function of a user-defined function's oid:
// NULL for any other oid.
func withFunction(fn func(Host, *catalog.Function) any) func(*plan.Env, []any) (any, error) {
	return func(e *plan.Env, a []any) (any, error) {
		h := hostOf(e.Host)
		if f := functionByOID(h, uint32(a[0].(int64))); f != nil {
			return fn(h, f), nil
		}
		return nil, nil
	}
}

func zeroSize(*plan.Env, []any) (any, error) { return int64(0), nil }

// relationSize is a relation's size in pages' bytes, which epochdb does
// not keep: zero for a relation, NULL for an oid that names none.
func relationSize(e *plan.Env, a []any) (any, error) {
	if _, ok := relationByOID(hostOf(e.Host), uint32(a[0].(types.Reg).Oid)); !ok {
		return nil, nil
	}
	return int64(0), nil
}

// privilege is has_table_privilege and its kin: the one role may do
// anything.
func privilege(c *plan.Compiler, n *ast.FuncCallExpr) (plan.Expr, error) {
	args := make([]plan.Expr, len(n.Args))
	for i, a := range n.Args {
		e, err := c.Compile(a)
		if err != nil {
			return nil, err
		}
		if args[i], err = c.ResolveUnknown(e); err != nil {
			return nil, err
		}
	}
	if len(args) < 2 || len(args) > 4 {
		return nil, plan.ArgCountErr(n, nil)
	}
	return &plan.FuncExpr{Name: n.FnName.L, T: types.Bool, Args: args, Strict: true, Fn: func(*plan.Env, []any) (any, error) {
		return true, nil
	}}, nil
}

// optArgs compiles a strict function whose trailing parameters are
// optional: at least min of params must be given.
func optArgs(min int, ret types.T, params []types.T, fn func(*plan.Env, []any) (any, error)) plan.Builtin {
	return func(c *plan.Compiler, n *ast.FuncCallExpr) (plan.Expr, error) {
		if len(n.Args) < min || len(n.Args) > len(params) {
			return nil, plan.ArgCountErr(n, nil)
		}
		return plan.Fixed(ret, params[:len(n.Args)], fn)(c, n)
	}
}

// toReg is to_regclass and its kin: the cast, but NULL for a name that
// names nothing.
func toReg(t types.T) plan.Builtin {
	return plan.Fixed(t, []types.T{types.Text}, func(e *plan.Env, a []any) (any, error) {
		r, err := RegByName(hostOf(e.Host), t, a[0].(string))
		if err != nil {
			return nil, nil
		}
		return r, nil
	})
}

// catalogTypeName is how format_type and regtype print oid, the type (or
// array type) of an enum or of an installed extension: qualified unless
// the search path looks in its schema; "" for any other type.
func catalogTypeName(s Host, oid types.Oid) string {
	t, suffix := types.T{Oid: oid, Mod: -1}, ""
	if elem, ok := t.Elem(); ok {
		t, suffix = elem, "[]"
	}
	if q, ok := s.Catalog().TypeQName(t.Oid); ok {
		return QualifiedName(s, q.Schema, q.Name) + suffix
	}
	return ""
}

// FormatType is t as format_type prints it: "integer", "character
// varying(10)".
func FormatType(t types.T) string { return formatType(t.Oid, t.Mod, t.Mod >= 0) }

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

// Storable rejects the types a column cannot have: pseudo-types, as in
// PostgreSQL, and the reg* types, whose values carry names that the row
// encoding does not keep.
func Storable(col string, t types.T) error {
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

// descriptionClasses are the catalogs obj_description's second argument
// names, whose objects have comments.
var descriptionClasses = map[string]uint32{
	"pg_class": OidPgClass, "pg_constraint": OidPgConstraint, "pg_namespace": OidPgNamespace, "pg_extension": OidPgExtension,
	"pg_proc": OidPgProc,
}

// RegByName is the input function of the reg* type t: a name, or an oid
// written as a number.
func RegByName(s Host, t types.T, name string) (types.Reg, error) {
	str := strings.TrimSpace(name)
	if str != "" && strings.Trim(str, "0123456789") == "" {
		n, err := strconv.ParseUint(str, 10, 32)
		if err != nil {
			return types.Reg{}, pgerr.New(pgerr.NumericValueOutOfRange, `value "%s" is out of range for type oid`, str)
		}
		return RegByOID(s, t, types.Oid(n)), nil
	}
	if str == "-" {
		return types.Reg{}, nil
	}
	if t.Oid == types.OidRegtype {
		tt, err := s.ParseTypeName(str)
		if err != nil {
			return types.Reg{}, err
		}
		if name := catalogTypeName(s, tt.Oid); name != "" {
			return types.Reg{Oid: tt.Oid, Name: name}, nil
		}
		return types.Reg{Oid: tt.Oid, Name: formatType(tt.Oid, -1, false)}, nil
	}
	if t.Oid == types.OidRegproc || t.Oid == types.OidRegprocedure {
		if r, ok, err := functionByRegName(s, t, str); ok || err != nil {
			return r, err
		}
		if name, _, ok := strings.Cut(str, "("); ok {
			str = name // a built-in function's arguments: it has one signature here
		}
	}
	parts, err := SplitQualified(str)
	if err != nil {
		return types.Reg{}, err
	}
	if t.Oid == types.OidRegclass || t.Oid == types.OidRegproc || t.Oid == types.OidRegprocedure {
		if parts, err = withoutCatalog(s, parts, str); err != nil {
			return types.Reg{}, err
		}
	}
	switch t.Oid {
	case types.OidRegclass:
		schema := ""
		if len(parts) == 2 {
			schema = parts[0]
			if sc, err := s.Catalog().SchemaOn(s.SearchPath(), schema); err != nil || sc == nil {
				return types.Reg{}, catalog.ErrNoSchema(schema)
			}
		}
		if len(parts) <= 2 {
			if r, ok := RelationByName(s, schema, parts[len(parts)-1]); ok {
				return types.Reg{Oid: types.Oid(r.oid), Name: r.qualifiedName(s)}, nil
			}
		}
		return types.Reg{}, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", str)
	case types.OidRegnamespace:
		if n := s.Catalog().SchemaNamed(parts[0]); n != nil && len(parts) == 1 {
			return types.Reg{Oid: types.Oid(n.ID), Name: parser.QuoteIdent(n.Name)}, nil
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

// withoutCatalog drops the database from a name of three parts,
// db.schema.name, as PostgreSQL's makeRangeVarFromNameList does: it must
// be the current database.
func withoutCatalog(s Host, parts []string, str string) ([]string, error) {
	switch {
	case len(parts) > 3:
		return nil, pgerr.New(pgerr.SyntaxError, "improper relation name (too many dotted names): %s", str)
	case len(parts) == 3 && parts[0] != s.Identity().Database:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: \"%s\"", str)
	case len(parts) == 3:
		return parts[1:], nil
	}
	return parts, nil
}

// RegByOID is the output function of the reg* type t: the name of the
// object oid identifies, or the number if there is none.
func RegByOID(s Host, t types.T, oid types.Oid) types.Reg {
	r := types.Reg{Oid: oid}
	switch t.Oid {
	case types.OidRegclass:
		if rel, ok := relationByOID(s, uint32(oid)); ok {
			r.Name = rel.qualifiedName(s)
		}
	case types.OidRegtype:
		if name := catalogTypeName(s, oid); name != "" {
			r.Name = name
		} else if in, ok := types.Lookup(oid); ok && in.Extension == "" {
			r.Name = formatType(oid, -1, false)
		}
	case types.OidRegnamespace:
		if n := s.Catalog().SchemaName(uint32(oid)); n != "" {
			r.Name = parser.QuoteIdent(n)
		}
	case types.OidRegrole:
		if oid == oidSuperuser {
			r.Name = parser.QuoteIdent(superuser(s))
		}
	case types.OidRegproc, types.OidRegprocedure:
		r.Name = procsByOID[uint32(oid)]
		if f := functionByOID(s, uint32(oid)); f != nil {
			r.Name = functionRegName(s, f, t.Oid == types.OidRegprocedure)
		}
	}
	return r
}

// SplitQualified splits a possibly qualified, possibly quoted name as
// PostgreSQL's reg* input functions read it: unquoted parts fold to lower
// case.
func SplitQualified(s string) ([]string, error) {
	var parts []string
	invalid := pgerr.New(pgerr.InvalidName, "invalid name syntax")
	for {
		var part string
		if strings.HasPrefix(s, `"`) {
			var ok bool
			if part, s, ok = types.QuotedIdent(s); !ok {
				return nil, invalid
			}
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
func indexColumns(s Host, t *catalog.Table, ix *catalog.Index) string {
	names := make([]string, len(ix.Columns))
	for i, ci := range ix.Columns {
		names[i] = s.IndexColumnText(t, ci)
	}
	return strings.Join(names, ", ")
}

// indexDef is pg_get_indexdef: the CREATE INDEX statement that would make
// the index, with the table qualified unless pretty.
func indexDef(s Host, t *catalog.Table, ix *catalog.Index, pretty bool) string {
	table := parser.QuoteIdent(t.Name)
	if !pretty {
		table = parser.QuoteIdent(s.Catalog().SchemaName(t.Schema)) + "." + table
	}
	create := "CREATE UNIQUE INDEX "
	if ix.NonUnique {
		create = "CREATE INDEX "
	}
	def := create + parser.QuoteIdent(ix.Name) + " ON " + table + " USING btree (" + indexColumns(s, t, ix) + ")"
	if pred := indexPredicateText(s, t, ix); pred != "" {
		def += " WHERE " + pred
	}
	return def
}

// indexPredicateText is a partial index's predicate as pg_get_indexdef
// prints it, or "".
func indexPredicateText(s Host, t *catalog.Table, ix *catalog.Index) string {
	if ix.Where == "" {
		return ""
	}
	e, err := s.PredicateOf(t, ix)
	if err != nil {
		return "(" + ix.Where + ")"
	}
	names := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		names[i] = col.Name
	}
	text, _ := plan.Deparse(s, e, names)
	return text
}

// prettyColumnExpr prints the default or generation expression of a column
// of relation relid that defaultText prints as text, as pretty-printing
// pg_get_expr does: without the parentheses its precedence makes needless.
func prettyColumnExpr(s Host, relid uint32, text string) (string, bool) {
	r, ok := relationByOID(s, relid)
	if !ok || r.table == nil {
		return "", false
	}
	t := r.table
	names := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		names[i] = col.Name
	}
	for _, c := range t.Columns {
		if !c.Visible() || c.Default == "" && c.Generated == "" || defaultText(s, t, c) != text {
			continue
		}
		var e plan.Expr
		var err error
		if c.Generated != "" {
			e, err = s.CompileGenerated(t, c)
		} else {
			e, err = s.CompileDefault(c)
		}
		if err != nil {
			return "", false
		}
		return plan.DeparsePretty(s, e, names)
	}
	return "", false
}

// defaultText is a column default, or a generated column's expression, as
// pg_get_expr prints it, or the stored SQL if it no longer compiles.
func defaultText(s Host, t *catalog.Table, c *catalog.TableColumn) string {
	if c.Generated != "" {
		e, err := s.CompileGenerated(t, c)
		if err != nil {
			return c.Generated
		}
		names := make([]string, len(t.Columns))
		for i, col := range t.Columns {
			names[i] = col.Name
		}
		if text, ok := plan.Deparse(s, e, names); ok {
			return text
		}
		return c.Generated
	}
	e, err := s.CompileDefault(c)
	if err != nil {
		return c.Default
	}
	if text, ok := (plan.Deparser{Host: s}).Print(e); ok {
		return text
	}
	return c.Default
}
