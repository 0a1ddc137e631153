package plan

import (
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Functions that register in FuncCompilers here rather than in funcs.go's
// table: those of enum types (see enum.go), and the parser's
// epochdb_rowfield.

func init() {
	FuncCompilers["epochdb_rowfield"] = compileRowField // see subquery.go
	FuncCompilers["enum_first"] = compileEnumFunc("enum_first")
	FuncCompilers["enum_last"] = compileEnumFunc("enum_last")
	FuncCompilers["enum_range"] = compileEnumFunc("enum_range")
}

// compileEnumFunc compiles enum_first(e), enum_last(e), enum_range(e) and
// enum_range(lo, hi): the type of e (whose value does not matter, NULL
// as often as not) names the enum; enum_range's bounds, NULL for none,
// limit the labels it lists.
func compileEnumFunc(name string) Builtin {
	return func(c *Compiler, n *ast.FuncCallExpr) (Expr, error) {
		args, err := CompileArgs(c, n)
		if err != nil {
			return nil, err
		}
		if len(args) != 1 && !(name == "enum_range" && len(args) == 2) {
			return nil, ArgCountErr(n, nil)
		}
		t := args[0].Type()
		if len(args) == 2 && t.Oid == types.OidUnknown {
			t = args[1].Type()
		}
		et := c.Host.Catalog().EnumByOid(t.Oid)
		if et == nil {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, argTypes(args)).
				WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
		}
		for i := range args {
			if args[i], err = c.Coerce(args[i], t); err != nil {
				return nil, err
			}
		}
		at, _ := types.ArrayOf(t)
		labels := et.Labels
		switch name {
		case "enum_first", "enum_last":
			return &FuncExpr{Name: name, T: t, Args: args, Fn: func(*Env, []any) (any, error) {
				if len(labels) == 0 {
					return nil, nil
				}
				l := labels[0]
				if name == "enum_last" {
					l = labels[len(labels)-1]
				}
				return types.Enum{Label: l.Label, Sort: l.Sort}, nil
			}}, nil
		}
		return &FuncExpr{Name: name, T: at, Args: args, Fn: func(_ *Env, a []any) (any, error) {
			out := []any{}
			for _, l := range labels {
				v := types.Enum{Label: l.Label, Sort: l.Sort}
				if len(a) == 2 && (a[0] != nil && v.Sort < a[0].(types.Enum).Sort || a[1] != nil && v.Sort > a[1].(types.Enum).Sort) {
					continue
				}
				out = append(out, v)
			}
			return out, nil
		}}, nil
	}
}
