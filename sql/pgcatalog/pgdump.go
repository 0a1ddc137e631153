package pgcatalog

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/pgerr"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/types"
)

// What pg_dump reads of a server: the operator classes and families its
// index definitions name, the default privileges and initial ones
// (acldefault, pg_init_privs), the comments (pg_description), the views'
// rules (pg_rewrite) and the dependencies that order its output
// (pg_depend), and how names print as the search path sees them.

// An opclass is a btree operator class: how an index orders a type.
type opclass struct {
	oid, family uint32
	name        string
	familyName  string
}

// btreeOpclasses are PostgreSQL 15's default btree operator classes of the
// types epochdb indexes; an array's is array_ops, varchar's text's and
// cidr's inet's.
var btreeOpclasses = map[types.Oid]opclass{
	types.OidBool: {10003, 424, "bool_ops", "bool_ops"}, types.OidBytea: {10006, 428, "bytea_ops", "bytea_ops"},
	types.OidChar: {10007, 429, "char_ops", "char_ops"}, types.OidName: {10028, 1994, "name_ops", "text_ops"},
	types.OidInt2: {1979, 1976, "int2_ops", "integer_ops"}, types.OidInt4: {1978, 1976, "int4_ops", "integer_ops"},
	types.OidInt8: {3124, 1976, "int8_ops", "integer_ops"}, types.OidOid: {1981, 1989, "oid_ops", "oid_ops"},
	types.OidFloat4: {10012, 1970, "float4_ops", "float_ops"}, types.OidFloat8: {3123, 1970, "float8_ops", "float_ops"},
	types.OidText: {3126, 1994, "text_ops", "text_ops"}, types.OidBpchar: {10004, 426, "bpchar_ops", "bpchar_ops"},
	types.OidDate: {3122, 434, "date_ops", "datetime_ops"}, types.OidTimestamp: {3128, 434, "timestamp_ops", "datetime_ops"},
	types.OidTimestamptz: {3127, 434, "timestamptz_ops", "datetime_ops"},
	types.OidTime:        {10038, 1996, "time_ops", "time_ops"},
	types.OidInterval:    {10022, 1982, "interval_ops", "interval_ops"},
	types.OidNumeric:     {3125, 1988, "numeric_ops", "numeric_ops"}, types.OidUUID: {10065, 2968, "uuid_ops", "uuid_ops"},
	types.OidJSONB:    {10088, 4033, "jsonb_ops", "jsonb_ops"},
	types.OidAnyArray: {10000, 397, "array_ops", "array_ops"},
}

func pgOpclassRows(Host) []row {
	var rows []row
	for t, c := range btreeOpclasses {
		rows = append(rows, row{"oid": c.oid, "opcmethod": oidBtree, "opcname": c.name, "opcnamespace": OidPgCatalog,
			"opcowner": oidSuperuser, "opcfamily": c.family, "opcintype": uint32(t), "opcdefault": true})
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(a["oid"].(uint32), b["oid"].(uint32)) })
	return rows
}

func pgOpfamilyRows(Host) []row {
	var rows []row
	seen := map[uint32]bool{}
	for _, c := range btreeOpclasses {
		if !seen[c.family] {
			seen[c.family] = true
			rows = append(rows, row{"oid": c.family, "opfmethod": oidBtree, "opfname": c.familyName,
				"opfnamespace": OidPgCatalog, "opfowner": oidSuperuser})
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(a["oid"].(uint32), b["oid"].(uint32)) })
	return rows
}

// defaultPrivileges are the privileges an object's owner, and for some
// kinds PUBLIC, hold without a GRANT, by acldefault's object type letter.
var defaultPrivileges = map[string]struct{ owner, public string }{
	"r": {"arwdDxt", ""}, "s": {"rwU", ""}, "f": {"X", "X"}, "l": {"U", "U"}, "L": {"rw", ""},
	"n": {"UC", ""}, "T": {"U", "U"}, "d": {"CTc", "Tc"}, "F": {"U", ""}, "S": {"U", ""},
	"t": {"C", ""}, "p": {"sA", ""}, "c": {"", ""},
}

// aclDefault is acldefault(type, owner): the ACL that a NULL acl column
// stands for. aclitem[] is text[] here, as in the catalogs.
func aclDefault(e *plan.Env, a []any) (any, error) {
	kind := a[0].(string)
	p, ok := defaultPrivileges[kind]
	if !ok {
		return nil, pgerr.New(pgerr.InternalError, "unrecognized objtype abbreviation: %s", kind)
	}
	owner := aclRoleName(hostOf(e.Host), a[1].(int64))
	grantee := owner
	if a[1].(int64) == 0 {
		grantee = "" // PUBLIC
	}
	acl := []any{}
	if p.public != "" {
		acl = append(acl, "="+p.public+"/"+owner)
	}
	if p.owner != "" {
		acl = append(acl, grantee+"="+p.owner+"/"+owner)
	}
	return acl, nil
}

// aclRoleName is a role as an aclitem prints it: by name, or by number if
// there is no such role.
func aclRoleName(s Host, oid int64) string {
	switch oid {
	case oidSuperuser:
		return parser.QuoteIdent(superuser(s))
	case oidDatabaseOwner:
		return "pg_database_owner"
	}
	return strconv.FormatInt(oid, 10)
}

// CurrentSchemas is current_schemas(implicit): the search path's schemas,
// without pg_catalog where the path puts it first only implicitly.
func CurrentSchemas(s Host, implicit bool) []any {
	path, cat := s.SearchPath(), s.Catalog()
	out := []any{}
	for i, nsp := range path.Schemas {
		if i < path.Implicit && !implicit {
			continue
		}
		out = append(out, cat.SchemaName(nsp))
	}
	return out
}

// CurrentSchema is current_schema(): the first schema of the search path
// that it does not hold only implicitly, or nil.
func CurrentSchema(s Host) any {
	if path := CurrentSchemas(s, false); len(path) > 0 {
		return path[0]
	}
	return nil
}

// schemaVisible reports whether the search path looks names up in schema
// nsp.
func schemaVisible(s Host, nsp uint32) bool {
	return slices.Contains(s.SearchPath().Schemas, nsp)
}

// QualifiedName is an object's name as regclass, the catalog functions
// and the deparsed definitions print it: qualified unless the search path
// looks in its schema.
func QualifiedName(s Host, nsp uint32, name string) string {
	if schemaVisible(s, nsp) {
		return parser.QuoteIdent(name)
	}
	return parser.QuoteIdent(s.Catalog().SchemaName(nsp)) + "." + parser.QuoteIdent(name)
}

// OidPgNamespace is pg_namespace's own oid, a pg_description.classoid.
const OidPgNamespace = 2615

// namespaceACL is a schema's nspacl: everyone may use pg_catalog,
// information_schema and public, and, unlike the others, public's owner
// is pg_database_owner. pg_toast's is NULL, its default.
func namespaceACL(s Host, nsp uint32) any {
	if nsp != OidPgCatalog && nsp != oidInfoSchema && nsp != OidPublic {
		return nil
	}
	owner := aclRoleName(s, int64(namespaceOwner(nsp)))
	return []string{owner + "=UC/" + owner, "=U/" + owner}
}

// pgInitPrivsRows are the privileges schemas have from the start, which
// pg_dump leaves out of a dump unless they have changed.
func pgInitPrivsRows(s Host) []row {
	var rows []row
	for _, nsp := range []uint32{OidPgCatalog, OidPublic} {
		rows = append(rows, row{"objoid": nsp, "classoid": OidPgNamespace, "privtype": "i",
			"initprivs": namespaceACL(s, nsp)})
	}
	return rows
}

// pgDescriptionRows are the comments on objects: only public's, which
// PostgreSQL's initdb gives it, since epochdb has no COMMENT.
func pgDescriptionRows(s Host) []row {
	var rows []row
	if s.Catalog().SchemaByID[OidPublic] != nil {
		rows = append(rows, row{"objoid": OidPublic, "classoid": OidPgNamespace, "description": "standard public schema"})
	}
	for k, text := range s.Catalog().Comments {
		rows = append(rows, row{"objoid": k.ObjOID, "classoid": k.ClassOID, "objsubid": int64(k.SubID), "description": text})
	}
	return append(rows, extensionComments(s)...)
}

// Catalog oids of pg_depend's classid and refclassid.
const (
	oidPgAttrdef = 2604
	oidPgRewrite = 2618
)

// ruleOIDOf is the pg_rewrite oid of the _RETURN rule of the view or
// materialized view id: the id with the top bit set, clear of the object
// ids epochdb allocates.
func ruleOIDOf(id uint32) uint32 { return 1<<31 | id }

// viewRules lists the relations with a _RETURN rule, views and
// materialized views, with the relations their queries read.
func viewRules(cat *catalog.Catalog) (ids []uint32, deps [][]uint32) {
	for _, v := range cat.ViewByName {
		ids, deps = append(ids, v.ID), append(deps, v.Deps)
	}
	for _, t := range cat.TableByName {
		if t.IsMatView() {
			ids, deps = append(ids, t.ID), append(deps, t.Deps)
		}
	}
	return ids, deps
}

// pgRewriteRows are the views' rules: in PostgreSQL a view is a relation
// whose query is its ON SELECT DO INSTEAD rule, named _RETURN.
func pgRewriteRows(s Host) []row {
	var rows []row
	ids, _ := viewRules(s.Catalog())
	for _, id := range ids {
		rows = append(rows, row{"oid": ruleOIDOf(id), "rulename": "_RETURN", "ev_class": id, "ev_type": "1",
			"ev_enabled": "O", "is_instead": true, "ev_qual": "<>"})
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(a["oid"].(uint32), b["oid"].(uint32)) })
	return rows
}

// pgDumpDependRows are the dependencies pg_dump orders a dump by: a
// column default on its column and on the sequences it takes values from,
// which is why a serial column's default comes after the CREATE SEQUENCE;
// and a view's rule on its view and on the relations it reads.
func pgDumpDependRows(s Host) []row {
	var rows []row
	cat := s.Catalog()
	for _, t := range cat.Tables() {
		for _, c := range t.Columns {
			if c.Default == "" || !c.Visible() {
				continue
			}
			def := attrdefOID(t, c)
			rows = append(rows, row{"classid": oidPgAttrdef, "objid": def, "refclassid": OidPgClass,
				"refobjid": t.ID, "refobjsubid": c.Num, "deptype": "a"})
			for _, q := range defaultSequences(s, c) {
				rows = append(rows, row{"classid": oidPgAttrdef, "objid": def, "refclassid": OidPgClass,
					"refobjid": q.ID, "deptype": "n"})
			}
		}
	}
	ids, deps := viewRules(cat)
	for i, id := range ids {
		rule := ruleOIDOf(id)
		// The rule reads the view's own columns too (deptype n).
		rows = append(rows, row{"classid": oidPgRewrite, "objid": rule, "refclassid": OidPgClass,
			"refobjid": id, "deptype": "i"}, row{"classid": oidPgRewrite, "objid": rule,
			"refclassid": OidPgClass, "refobjid": id, "deptype": "n"})
		for _, dep := range deps[i] {
			rows = append(rows, row{"classid": oidPgRewrite, "objid": rule, "refclassid": OidPgClass,
				"refobjid": dep, "deptype": "n"})
		}
	}
	return rows
}

// defaultSequences are the sequences a column default takes values from.
func defaultSequences(s Host, c *catalog.TableColumn) []*catalog.Sequence {
	cat := s.Catalog()
	var seqs []*catalog.Sequence
	if q := cat.SequenceByID[c.Serial]; q != nil {
		seqs = append(seqs, q)
	}
	n, err := plan.ParseExpr(c.Default)
	if err != nil {
		return seqs
	}
	f := &plan.TableNameFinder{}
	n.Accept(f)
	for _, name := range f.Sequences {
		if q := plan.SequenceNamed(s, name); q != nil && !slices.Contains(seqs, q) {
			seqs = append(seqs, q)
		}
	}
	return seqs
}

func init() {
	for name, f := range map[string]plan.Builtin{
		"acldefault": plan.Fixed(types.TextArray, []types.T{types.Char, types.OidType}, aclDefault),
	} {
		plan.FuncCompilers[name] = f
	}
	for _, v := range []*virtTable{
		catalogTable(OidPgCatalog, 2616, "r", "pg_opclass", `oid oid, opcmethod oid, opcname name, opcnamespace oid,
			opcowner oid, opcfamily oid, opcintype oid, opcdefault bool, opckeytype oid`, pgOpclassRows),
		catalogTable(OidPgCatalog, 2753, "r", "pg_opfamily", `oid oid, opfmethod oid, opfname name, opfnamespace oid,
			opfowner oid`, pgOpfamilyRows),
		catalogTable(OidPgCatalog, 3394, "r", "pg_init_privs", `objoid oid, classoid oid, objsubid int4,
			privtype "char", initprivs text[]`, pgInitPrivsRows),

		// Catalogs of features epochdb does not have, which pg_dump reads.
		catalogTable(OidPgCatalog, 2602, "r", "pg_amop", `oid oid, amopfamily oid, amoplefttype oid,
			amoprighttype oid, amopstrategy int2, amoppurpose "char", amopopr oid, amopmethod oid,
			amopsortfamily oid`, none),
		catalogTable(OidPgCatalog, 2603, "r", "pg_amproc", `oid oid, amprocfamily oid, amproclefttype oid,
			amprocrighttype oid, amprocnum int2, amproc regproc`, none),
		catalogTable(OidPgCatalog, 2964, "r", "pg_db_role_setting", "setdatabase oid, setrole oid, setconfig text[]", none),
		catalogTable(OidPgCatalog, 2995, "r", "pg_largeobject_metadata", "oid oid, lomowner oid, lomacl text[]", none),
		catalogTable(OidPgCatalog, 3576, "r", "pg_transform", `oid oid, trftype oid, trflang oid, trffromsql regproc,
			trftosql regproc`, none),
		catalogTable(OidPgCatalog, 3592, "r", "pg_shseclabel", "objoid oid, classoid oid, provider text, label text", none),
		catalogTable(OidPgCatalog, 3596, "r", "pg_seclabel", `objoid oid, classoid oid, objsubid int4, provider text,
			label text`, none),
		catalogTable(OidPgCatalog, 3600, "r", "pg_ts_dict", `oid oid, dictname name, dictnamespace oid, dictowner oid,
			dicttemplate oid, dictinitoption text`, none),
		catalogTable(OidPgCatalog, 3601, "r", "pg_ts_parser", `oid oid, prsname name, prsnamespace oid,
			prsstart regproc, prstoken regproc, prsend regproc, prsheadline regproc, prslextype regproc`, none),
		catalogTable(OidPgCatalog, 3602, "r", "pg_ts_config", `oid oid, cfgname name, cfgnamespace oid, cfgowner oid,
			cfgparser oid`, none),
		catalogTable(OidPgCatalog, 3764, "r", "pg_ts_template", `oid oid, tmplname name, tmplnamespace oid,
			tmplinit regproc, tmpllexize regproc`, none),
		catalogTable(OidPgCatalog, 12099, "v", "pg_seclabels", `objoid oid, classoid oid, objsubid int4, objtype text,
			objnamespace oid, objname text, provider text, label text`, none),
	} {
		virtualTables[v.name] = v
		virtualByOID[v.oid] = v
	}
}
