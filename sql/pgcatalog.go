package sql

import (
	"strconv"

	"github.com/epochdb/epochdb/sql/types"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Virtual pg_catalog tables: computed from the built-in types and the
// catalog on every read, so they are always current. Clients read them when
// they connect (postgres.js reads pg_type to learn array types) and to
// describe tables.

// Well-known OIDs of the catalog's own objects.
const (
	oidPgCatalog = 11
	oidPublic    = 2200
	oidDatabase  = 16384 - 1 // below user objects, above the built-ins
	oidSuperuser = 10
)

type virtCol struct {
	name string
	t    types.T
}

type virtTable struct {
	name string
	cols []virtCol
	rows func(s *Session) [][]any
}

var (
	tOid  = types.OidType
	tName = types.Name
	tChar = types.T{Oid: types.OidChar, Mod: -1}
)

var virtualTables = map[string]*virtTable{
	"pg_type": {
		name: "pg_type",
		cols: []virtCol{{"oid", tOid}, {"typname", tName}, {"typnamespace", tOid}, {"typowner", tOid},
			{"typlen", types.Int2}, {"typbyval", types.Bool}, {"typtype", tChar}, {"typcategory", tChar},
			{"typispreferred", types.Bool}, {"typisdefined", types.Bool}, {"typdelim", tChar},
			{"typrelid", tOid}, {"typelem", tOid}, {"typarray", tOid}, {"typinput", types.Text},
			{"typoutput", types.Text}, {"typbasetype", tOid}, {"typtypmod", types.Int4},
			{"typnotnull", types.Bool}, {"typndims", types.Int4}, {"typcollation", tOid}},
		rows: func(*Session) [][]any {
			var rows [][]any
			for _, ti := range types.All() {
				rows = append(rows, []any{int64(ti.Oid), ti.Name, int64(oidPgCatalog), int64(oidSuperuser),
					int64(ti.Len), ti.ByVal, string(ti.Type), string(ti.Category), false, true, string(ti.Delim),
					int64(0), int64(ti.Elem), int64(ti.Array), ti.Input, ti.Output, int64(0), int64(-1),
					false, int64(0), int64(0)})
			}
			return rows
		},
	},
	"pg_namespace": {
		name: "pg_namespace",
		cols: []virtCol{{"oid", tOid}, {"nspname", tName}, {"nspowner", tOid}},
		rows: func(*Session) [][]any {
			return [][]any{{int64(oidPgCatalog), "pg_catalog", int64(oidSuperuser)}, {int64(oidPublic), "public", int64(oidSuperuser)}}
		},
	},
	"pg_database": {
		name: "pg_database",
		cols: []virtCol{{"oid", tOid}, {"datname", tName}, {"datdba", tOid}, {"encoding", types.Int4},
			{"datcollate", tName}, {"datctype", tName}, {"datistemplate", types.Bool}, {"datallowconn", types.Bool}},
		rows: func(*Session) [][]any {
			return [][]any{{int64(oidDatabase), DatabaseName, int64(oidSuperuser), int64(6), "C", "C", false, true}}
		},
	},
	"pg_class": {
		name: "pg_class",
		cols: []virtCol{{"oid", tOid}, {"relname", tName}, {"relnamespace", tOid}, {"reltype", tOid},
			{"relowner", tOid}, {"relkind", tChar}, {"relnatts", types.Int2}, {"relhasindex", types.Bool},
			{"relpersistence", tChar}, {"reltuples", types.Float4}},
		rows: func(s *Session) [][]any {
			var rows [][]any
			cat := s.catalog()
			for _, t := range cat.Tables() {
				n := int64(0)
				for _, c := range t.Columns {
					if !c.Dropped {
						n++
					}
				}
				rows = append(rows, []any{int64(t.ID), t.Name, int64(oidPublic), int64(0), int64(oidSuperuser),
					"r", n, len(t.Indexes) > 0, "p", float64(-1)})
			}
			for _, seq := range cat.sequences {
				if seq.Name[0] != 0 {
					rows = append(rows, []any{int64(seq.ID), seq.Name, int64(oidPublic), int64(0), int64(oidSuperuser),
						"S", int64(3), false, "p", float64(1)})
				}
			}
			return rows
		},
	},
	"pg_attribute": {
		name: "pg_attribute",
		cols: []virtCol{{"attrelid", tOid}, {"attname", tName}, {"atttypid", tOid}, {"attlen", types.Int2},
			{"attnum", types.Int2}, {"atttypmod", types.Int4}, {"attnotnull", types.Bool},
			{"atthasdef", types.Bool}, {"attisdropped", types.Bool}},
		rows: func(s *Session) [][]any {
			var rows [][]any
			for _, t := range s.catalog().Tables() {
				for _, c := range t.Columns {
					info, _ := types.Lookup(c.Type.Oid)
					name := c.Name
					if c.Dropped {
						name = "........pg.dropped." + itoa(int(c.Num)) + "........"
					}
					rows = append(rows, []any{int64(t.ID), name, int64(c.Type.Oid), int64(info.Len),
						int64(c.Num), int64(c.Type.Mod), c.NotNull, c.Default != "", c.Dropped})
				}
			}
			return rows
		},
	},
}

func itoa(i int) string { return strconv.Itoa(i) }

// virtualTable resolves pg_catalog.X, or X when unqualified: pg_catalog is
// implicitly first on every search path.
func virtualTable(tn *ast.TableName) *virtTable {
	if tn.Schema.O != "" && tn.Schema.O != "pg_catalog" {
		return nil
	}
	return virtualTables[tn.Name.O]
}

func (v *virtTable) scope(alias string) *scope {
	sc := &scope{}
	for i, c := range v.cols {
		sc.cols = append(sc.cols, scopeCol{table: alias, name: c.name, t: c.t, attNum: int16(i + 1)})
	}
	sc.cols = append(sc.cols, scopeCol{table: alias, name: hiddenKey, t: types.Bytea})
	return sc
}

// virtSource reads a virtual table.
type virtSource struct {
	v *virtTable
	s *Session
}

func (v *virtTable) source(s *Session) source { return &virtSource{v: v, s: s} }

func (vs *virtSource) explain(indent string) string { return indent + "Function Scan on " + vs.v.name }

func (vs *virtSource) open(x *execCtx) (rowIter, error) {
	rows := vs.v.rows(x.s)
	for i := range rows {
		rows[i] = append(rows[i], nil) // the hidden key slot
	}
	return &sliceIter{rows: rows}, nil
}
