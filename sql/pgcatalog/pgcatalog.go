package pgcatalog

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/epochdb/epochdb/sql/catalog"
	"github.com/epochdb/epochdb/sql/parser"
	"github.com/epochdb/epochdb/sql/plan"
	"github.com/epochdb/epochdb/sql/rowexec"
	"github.com/epochdb/epochdb/sql/types"
)

// The virtual catalogs: pg_catalog's tables and views and
// information_schema's views, computed from the built-in types and the
// session's catalog on every read, so they are always current. Drivers read
// them when they connect (pgjdbc and pgx look types up, postgres.js reads
// pg_type to learn array types); tools read them to describe a database
// (psql's \d commands, DatabaseMetaData).
//
// Every catalog object has PostgreSQL 15's oid and columns, so that queries
// keyed by them ('pg_class'::regclass as a pg_description.classoid, say)
// find what they look for. Where PostgreSQL's column type is one epochdb
// lacks, the column takes the nearest type that prints the same: aclitem[]
// is text[], pg_node_tree is text, xid is oid (0: epochdb freezes no
// transaction ids) and anyarray is text. A catalog row is a map from column name to
// value, and a column it leaves out holds its type's zero value, or NULL for
// text, arrays and timestamps: what PostgreSQL's catalogs hold for an object
// that has nothing to say there. A column it maps to nil is NULL.

// VirtualRelation plans a read, in s, of the virtual relation tn names, if
// there is one.
func VirtualRelation(s Host, q catalog.QName, alias string) (plan.Source, *plan.Scope, bool) {
	vt := virtualTable(q)
	if vt == nil {
		return nil, nil, false
	}
	return vt.source(s), vt.scope(alias), true
}

func init() {
	for _, v := range []*virtTable{
		catalogTable(OidPgCatalog, 1247, "r", "pg_type", `oid oid, typname name, typnamespace oid, typowner oid,
			typlen int2, typbyval bool, typtype "char", typcategory "char", typispreferred bool, typisdefined bool,
			typdelim "char", typrelid oid, typsubscript regproc, typelem oid, typarray oid, typinput regproc,
			typoutput regproc, typreceive regproc, typsend regproc, typmodin regproc, typmodout regproc,
			typanalyze regproc, typalign "char",
			typstorage "char", typnotnull bool, typbasetype oid, typtypmod int4, typndims int4, typcollation oid,
			typdefaultbin text, typdefault text, typacl text[]`, pgTypeRows),
		catalogTable(OidPgCatalog, 2615, "r", "pg_namespace", "oid oid, nspname name, nspowner oid, nspacl text[]", pgNamespaceRows),
		catalogTable(OidPgCatalog, 1262, "r", "pg_database", `oid oid, datname name, datdba oid, encoding int4,
			datlocprovider "char", datistemplate bool, datallowconn bool, datconnlimit int4, datfrozenxid oid,
			datminmxid oid, dattablespace oid,
			datcollate text, datctype text, daticulocale text, datcollversion text, datacl text[]`, pgDatabaseRows),
		catalogTable(OidPgCatalog, OidPgClass, "r", "pg_class", `oid oid, relname name, relnamespace oid, reltype oid,
			reloftype oid, relowner oid, relam oid, relfilenode oid, reltablespace oid, relpages int4, reltuples float4,
			relallvisible int4, reltoastrelid oid, relhasindex bool, relisshared bool, relpersistence "char",
			relkind "char", relnatts int2, relchecks int2, relhasrules bool, relhastriggers bool, relhassubclass bool,
			relrowsecurity bool, relforcerowsecurity bool, relispopulated bool, relreplident "char",
			relispartition bool, relrewrite oid, relfrozenxid oid, relminmxid oid, relacl text[], reloptions text[], relpartbound text`, pgClassRows),
		catalogTable(OidPgCatalog, 1249, "r", "pg_attribute", `attrelid oid, attname name, atttypid oid,
			attstattarget int4, attlen int2, attnum int2, attndims int4, attcacheoff int4, atttypmod int4,
			attbyval bool, attalign "char", attstorage "char", attcompression "char", attnotnull bool,
			atthasdef bool, atthasmissing bool, attidentity "char", attgenerated "char", attisdropped bool,
			attislocal bool, attinhcount int4, attcollation oid, attacl text[], attoptions text[],
			attfdwoptions text[], attmissingval text`, pgAttributeRows),
		catalogTable(OidPgCatalog, 2610, "r", "pg_index", `indexrelid oid, indrelid oid, indnatts int2,
			indnkeyatts int2, indisunique bool, indnullsnotdistinct bool, indisprimary bool, indisexclusion bool,
			indimmediate bool, indisclustered bool, indisvalid bool, indcheckxmin bool, indisready bool,
			indislive bool, indisreplident bool, indkey int2vector, indcollation oidvector, indclass oidvector,
			indoption int2vector, indexprs text, indpred text`, pgIndexRows),
		catalogTable(OidPgCatalog, 2606, "r", "pg_constraint", `oid oid, conname name, connamespace oid,
			contype "char", condeferrable bool, condeferred bool, convalidated bool, conrelid oid, contypid oid,
			conindid oid, conparentid oid, confrelid oid, confupdtype "char", confdeltype "char",
			confmatchtype "char", conislocal bool, coninhcount int4, connoinherit bool, conkey int2[],
			confkey int2[], conpfeqop oid[], conppeqop oid[], conffeqop oid[], confdelsetcols int2[],
			conexclop oid[], conbin text`, pgConstraintRows),
		catalogTable(OidPgCatalog, 2604, "r", "pg_attrdef", "oid oid, adrelid oid, adnum int2, adbin text", pgAttrdefRows),
		catalogTable(OidPgCatalog, 2609, "r", "pg_description", "objoid oid, classoid oid, objsubid int4, description text", pgDescriptionRows),
		catalogTable(OidPgCatalog, 2396, "r", "pg_shdescription", "objoid oid, classoid oid, description text", none),
		catalogTable(OidPgCatalog, 2601, "r", "pg_am", `oid oid, amname name, amhandler regproc, amtype "char"`, pgAmRows),
		catalogTable(OidPgCatalog, 3456, "r", "pg_collation", `oid oid, collname name, collnamespace oid,
			collowner oid, collprovider "char", collisdeterministic bool, collencoding int4, collcollate text,
			collctype text, colliculocale text, collversion text`, pgCollationRows),
		catalogTable(OidPgCatalog, 1255, "r", "pg_proc", `oid oid, proname name, pronamespace oid, proowner oid,
			prolang oid, procost float4, prorows float4, provariadic oid, prosupport regproc, prokind "char",
			prosecdef bool, proleakproof bool, proisstrict bool, proretset bool, provolatile "char",
			proparallel "char", pronargs int2, pronargdefaults int2, prorettype oid, proargtypes oidvector,
			proallargtypes oid[], proargmodes "char"[], proargnames text[], proargdefaults text, protrftypes oid[],
			prosrc text, probin text, prosqlbody text, proconfig text[], proacl text[]`, pgProcRows),
		catalogTable(OidPgCatalog, 1213, "r", "pg_tablespace", "oid oid, spcname name, spcowner oid, spcacl text[], spcoptions text[]", pgTablespaceRows),
		catalogTable(OidPgCatalog, 2224, "r", "pg_sequence", `seqrelid oid, seqtypid oid, seqstart int8,
			seqincrement int8, seqmax int8, seqmin int8, seqcache int8, seqcycle bool`, pgSequenceRows),
		catalogTable(OidPgCatalog, 1261, "r", "pg_auth_members", "roleid oid, member oid, grantor oid, admin_option bool", none),

		// Catalogs of features epochdb does not have, which tools still read.
		catalogTable(OidPgCatalog, 2611, "r", "pg_inherits", "inhrelid oid, inhparent oid, inhseqno int4, inhdetachpending bool", none),
		catalogTable(OidPgCatalog, 3256, "r", "pg_policy", `oid oid, polname name, polrelid oid, polcmd "char",
			polpermissive bool, polroles oid[], polqual text, polwithcheck text`, none),
		catalogTable(OidPgCatalog, 3381, "r", "pg_statistic_ext", `oid oid, stxrelid oid, stxname name,
			stxnamespace oid, stxowner oid, stxstattarget int4, stxkeys int2vector, stxkind "char"[], stxexprs text`, none),
		catalogTable(OidPgCatalog, 6104, "r", "pg_publication", `oid oid, pubname name, pubowner oid, puballtables bool,
			pubinsert bool, pubupdate bool, pubdelete bool, pubtruncate bool, pubviaroot bool`, none),
		catalogTable(OidPgCatalog, 6237, "r", "pg_publication_namespace", "oid oid, pnpubid oid, pnnspid oid", none),
		catalogTable(OidPgCatalog, 6106, "r", "pg_publication_rel", "oid oid, prpubid oid, prrelid oid, prqual text, prattrs int2vector", none),
		catalogTable(OidPgCatalog, 2620, "r", "pg_trigger", `oid oid, tgrelid oid, tgparentid oid, tgname name,
			tgfoid oid, tgtype int2, tgenabled "char", tgisinternal bool, tgconstrrelid oid, tgconstrindid oid,
			tgconstraint oid, tgdeferrable bool, tginitdeferred bool, tgnargs int2, tgattr int2vector, tgargs bytea,
			tgqual text, tgoldtable name, tgnewtable name`, pgTriggerRows),
		catalogTable(OidPgCatalog, 2618, "r", "pg_rewrite", `oid oid, rulename name, ev_class oid, ev_type "char",
			ev_enabled "char", is_instead bool, ev_qual text, ev_action text`, pgRewriteRows),
		catalogTable(OidPgCatalog, 3079, "r", "pg_extension", `oid oid, extname name, extowner oid, extnamespace oid,
			extrelocatable bool, extversion text, extconfig oid[], extcondition text[]`, pgExtensionRows),
		catalogTable(OidPgCatalog, 12081, "v", "pg_available_extensions", `name name, default_version text,
			installed_version text, comment text`, pgAvailableExtensionsRows),
		catalogTable(OidPgCatalog, 3541, "r", "pg_range", `rngtypid oid, rngsubtype oid, rngmultitypid oid,
			rngcollation oid, rngsubopc oid, rngcanonical regproc, rngsubdiff regproc`, none),
		catalogTable(OidPgCatalog, 3501, "r", "pg_enum", "oid oid, enumtypid oid, enumsortorder float4, enumlabel name", pgEnumRows),
		catalogTable(OidPgCatalog, 2608, "r", "pg_depend", `classid oid, objid oid, objsubid int4, refclassid oid,
			refobjid oid, refobjsubid int4, deptype "char"`, pgDependRows),
		catalogTable(OidPgCatalog, 2617, "r", "pg_operator", `oid oid, oprname name, oprnamespace oid, oprowner oid,
			oprkind "char", oprcanmerge bool, oprcanhash bool, oprleft oid, oprright oid, oprresult oid, oprcom oid,
			oprnegate oid, oprcode regproc, oprrest regproc, oprjoin regproc`, none),
		catalogTable(OidPgCatalog, 2605, "r", "pg_cast", `oid oid, castsource oid, casttarget oid, castfunc oid,
			castcontext "char", castmethod "char"`, none),
		catalogTable(OidPgCatalog, 2607, "r", "pg_conversion", `oid oid, conname name, connamespace oid, conowner oid,
			conforencoding int4, contoencoding int4, conproc regproc, condefault bool`, none),
		catalogTable(OidPgCatalog, 2612, "r", "pg_language", `oid oid, lanname name, lanowner oid, lanispl bool,
			lanpltrusted bool, lanplcallfoid oid, laninline oid, lanvalidator oid, lanacl text[]`, pgLanguageRows),
		catalogTable(OidPgCatalog, 3466, "r", "pg_event_trigger", `oid oid, evtname name, evtevent name, evtowner oid,
			evtfoid oid, evtenabled "char", evttags text[]`, none),
		catalogTable(OidPgCatalog, 2328, "r", "pg_foreign_data_wrapper", `oid oid, fdwname name, fdwowner oid,
			fdwhandler oid, fdwvalidator oid, fdwacl text[], fdwoptions text[]`, none),
		catalogTable(OidPgCatalog, 1417, "r", "pg_foreign_server", `oid oid, srvname name, srvowner oid, srvfdw oid,
			srvtype text, srvversion text, srvacl text[], srvoptions text[]`, none),
		catalogTable(OidPgCatalog, 6100, "r", "pg_subscription", `oid oid, subdbid oid, subname name, subowner oid,
			subenabled bool, subbinary bool, substream bool, subtwophasestate "char", subdisableonerr bool,
			subconninfo text, subslotname name, subsynccommit text, subpublications text[]`, none),
		catalogTable(OidPgCatalog, 826, "r", "pg_default_acl", `oid oid, defaclrole oid, defaclnamespace oid,
			defaclobjtype "char", defaclacl text[]`, none),
		catalogTable(OidPgCatalog, 3118, "r", "pg_foreign_table", "ftrelid oid, ftserver oid, ftoptions text[]", none),
		catalogTable(OidPgCatalog, 3350, "r", "pg_partitioned_table", `partrelid oid, partstrat "char", partnatts int2,
			partdefid oid, partattrs int2vector, partclass oidvector, partcollation oidvector, partexprs text`, none),

		catalogTable(OidPgCatalog, 12000, "v", "pg_roles", `rolname name, rolsuper bool, rolinherit bool,
			rolcreaterole bool, rolcreatedb bool, rolcanlogin bool, rolreplication bool, rolconnlimit int4,
			rolpassword text, rolvaliduntil timestamptz, rolbypassrls bool, rolconfig text[], oid oid`, pgRolesRows),
		catalogTable(OidPgCatalog, 12014, "v", "pg_user", `usename name, usesysid oid, usecreatedb bool, usesuper bool,
			userepl bool, usebypassrls bool, passwd text, valuntil timestamptz, useconfig text[]`, pgUserRows),
		catalogTable(OidPgCatalog, 12028, "v", "pg_views", "schemaname name, viewname name, viewowner name, definition text", pgViewsRows),
		catalogTable(OidPgCatalog, 12033, "v", "pg_tables", `schemaname name, tablename name, tableowner name,
			tablespace name, hasindexes bool, hasrules bool, hastriggers bool, rowsecurity bool`, pgTablesRows),
		catalogTable(OidPgCatalog, 12038, "v", "pg_matviews", `schemaname name, matviewname name, matviewowner name,
			tablespace name, hasindexes bool, ispopulated bool, definition text`, pgMatviewsRows),
		catalogTable(OidPgCatalog, 12979, "v", "pg_stats", `schemaname name, tablename name, attname name, inherited bool,
			null_frac float4, avg_width int4, n_distinct float4, most_common_vals text[], most_common_freqs float4[],
			histogram_bounds text[], correlation float4, most_common_elems text[], most_common_elem_freqs float4[],
			elem_count_histogram float4[]`, pgStatsRows),
		catalogTable(OidPgCatalog, 12043, "v", "pg_indexes", "schemaname name, tablename name, indexname name, tablespace name, indexdef text", pgIndexesRows),
		catalogTable(OidPgCatalog, 12048, "v", "pg_sequences", `schemaname name, sequencename name, sequenceowner name,
			data_type regtype, start_value int8, min_value int8, max_value int8, increment_by int8, cycle bool,
			cache_size int8, last_value int8`, pgSequencesRows),
		catalogTable(OidPgCatalog, 12266, "v", "pg_stat_database", `datid oid, datname name, numbackends int4,
			xact_commit int8, xact_rollback int8, blks_read int8, blks_hit int8, tup_returned int8, tup_fetched int8,
			tup_inserted int8, tup_updated int8, tup_deleted int8, conflicts int8, temp_files int8, temp_bytes int8,
			deadlocks int8, checksum_failures int8, checksum_last_failure timestamptz, blk_read_time float8,
			blk_write_time float8, session_time float8, active_time float8, idle_in_transaction_time float8,
			sessions int8, sessions_abandoned int8, sessions_fatal int8, sessions_killed int8,
			stats_reset timestamptz`, pgStatDatabaseRows),
		statioTables(12170, "pg_statio_all_tables", func(uint32) bool { return true }),
		statioTables(12175, "pg_statio_sys_tables", systemSchema),
		statioTables(12179, "pg_statio_user_tables", func(nsp uint32) bool { return !systemSchema(nsp) }),
		catalogTable(OidPgCatalog, 12104, "v", "pg_settings", `name text, setting text, unit text, category text,
			short_desc text, extra_desc text, context text, vartype text, source text, min_val text, max_val text,
			enumvals text[], boot_val text, reset_val text, sourcefile text, sourceline int4, pending_restart bool`, pgSettingsRows),
	} {
		virtualTables[v.name] = v
		virtualByOID[v.oid] = v
	}

	// information_schema's domains are their base types on the wire:
	// sql_identifier is name, cardinal_number int4, character_data varchar
	// and yes_or_no varchar(3).
	for _, v := range []*virtTable{
		catalogTable(oidInfoSchema, 13425, "v", "tables", `table_catalog name, table_schema name, table_name name,
			table_type varchar, self_referencing_column_name name, reference_generation varchar,
			user_defined_type_catalog name, user_defined_type_schema name, user_defined_type_name name,
			is_insertable_into varchar(3), is_typed varchar(3), commit_action varchar`, infoTablesRows),
		catalogTable(oidInfoSchema, 13295, "v", "columns", `table_catalog name, table_schema name, table_name name,
			column_name name, ordinal_position int4, column_default varchar, is_nullable varchar(3), data_type varchar,
			character_maximum_length int4, character_octet_length int4, numeric_precision int4,
			numeric_precision_radix int4, numeric_scale int4, datetime_precision int4, interval_type varchar,
			interval_precision int4, character_set_catalog name, character_set_schema name, character_set_name name,
			collation_catalog name, collation_schema name, collation_name name, domain_catalog name,
			domain_schema name, domain_name name, udt_catalog name, udt_schema name, udt_name name,
			scope_catalog name, scope_schema name, scope_name name, maximum_cardinality int4, dtd_identifier name,
			is_self_referencing varchar(3), is_identity varchar(3), identity_generation varchar,
			identity_start varchar, identity_increment varchar, identity_maximum varchar, identity_minimum varchar,
			identity_cycle varchar(3), is_generated varchar, generation_expression varchar,
			is_updatable varchar(3)`, infoColumnsRows),
		catalogTable(oidInfoSchema, 13382, "v", "schemata", `catalog_name name, schema_name name, schema_owner name,
			default_character_set_catalog name, default_character_set_schema name, default_character_set_name name,
			sql_path varchar`, infoSchemataRows),
		catalogTable(oidInfoSchema, 13411, "v", "table_constraints", `constraint_catalog name, constraint_schema name,
			constraint_name name, table_catalog name, table_schema name, table_name name, constraint_type varchar,
			is_deferrable varchar(3), initially_deferred varchar(3), enforced varchar(3),
			nulls_distinct varchar(3)`, infoTableConstraintsRows),
		catalogTable(oidInfoSchema, 13329, "v", "key_column_usage", `constraint_catalog name, constraint_schema name,
			constraint_name name, table_catalog name, table_schema name, table_name name, column_name name,
			ordinal_position int4, position_in_unique_constraint int4`, infoKeyColumnUsageRows),
		catalogTable(oidInfoSchema, 13300, "v", "constraint_column_usage", `table_catalog name, table_schema name,
			table_name name, column_name name, constraint_catalog name, constraint_schema name,
			constraint_name name`, infoConstraintColumnUsageRows),
		catalogTable(oidInfoSchema, 13305, "v", "constraint_table_usage", `table_catalog name, table_schema name,
			table_name name, constraint_catalog name, constraint_schema name, constraint_name name`,
			infoConstraintTableUsageRows),
		catalogTable(oidInfoSchema, 13339, "v", "referential_constraints", `constraint_catalog name,
			constraint_schema name, constraint_name name, unique_constraint_catalog name,
			unique_constraint_schema name, unique_constraint_name name, match_option varchar,
			update_rule varchar, delete_rule varchar`, infoReferentialConstraintsRows),
		catalogTable(oidInfoSchema, 13483, "v", "views", `table_catalog name, table_schema name, table_name name,
			view_definition varchar, check_option varchar, is_updatable varchar(3), is_insertable_into varchar(3),
			is_trigger_updatable varchar(3), is_trigger_deletable varchar(3), is_trigger_insertable_into varchar(3)`, infoViewsRows),
	} {
		infoSchemaTables[v.name] = v
		virtualByOID[v.oid] = v
	}
}

// The information_schema views show what the user may see: the tables of
// every schema, and the columns and constraints of its own tables.

// Well-known oids: PostgreSQL 15's for its own objects.
const (
	oidPgToast    = catalog.PgToastID
	OidPgCatalog  = catalog.PgCatalogID
	OidPublic     = catalog.PublicID
	oidInfoSchema = catalog.InfoSchemaID
	oidDatabase   = 16384 - 1 // below user objects, above the built-ins
	oidSuperuser  = 10
	// oidDatabaseOwner is the predefined role pg_database_owner, which owns
	// the public schema in PostgreSQL 15.
	oidDatabaseOwner = 6171
	oidHeap          = 2   // pg_am: the table access method
	oidBtree         = 403 // pg_am: the index access method
	OidPgClass       = 1259
	OidPgExtension   = 3079
	OidPgProc        = 1255
	OidPgConstraint  = 2606
	oidPgType        = 1247
	oidTablespace    = 1663 // pg_default
)

func init() {
	catalog.SystemRelation = func(nsp uint32, name string) bool {
		return virtualTable(catalog.QName{Schema: nsp, Name: name}) != nil
	}
}

type virtCol struct {
	name string
	t    types.T
}

// virtTable is a table computed when it is read.
type virtTable struct {
	name string
	cols []virtCol
	rows func(s Host) [][]any
	// The catalogs' own tables also have a namespace (0: pg_catalog), an
	// oid under which pg_class lists them, and a kind, 'r' or 'v'.
	nsp  uint32
	oid  uint32
	kind string
}

// virtualTables are the tables read as pg_catalog.X, or as X: pg_catalog is
// implicitly first on every search path. infoSchemaTables are
// information_schema's, which must be named with their schema.
var (
	virtualTables    = map[string]*virtTable{}
	infoSchemaTables = map[string]*virtTable{}
	virtualByOID     = map[uint32]*virtTable{}
)

// row is a catalog row by column name.
type row map[string]any

// catalogTable defines a catalog table or view. spec lists its columns as
// "name type, ...", in PostgreSQL's order.
// RegisterView adds to pg_catalog a view of the session's own state,
// named name, with the columns of spec (as catalogTable's), whose rows,
// a value for each column, rows computes in s: the sql root package's
// views (epochdb_ingest_producers) register so.
func RegisterView(name, spec string, rows func(s Host) [][]any) {
	v := catalogTable(0, 0, "v", name, spec, nil)
	v.rows = rows
	virtualTables[name] = v
}

func catalogTable(nsp, oid uint32, kind, name, spec string, rows func(s Host) []row) *virtTable {
	v := &virtTable{name: name, nsp: nsp, oid: oid, kind: kind}
	for f := range strings.SplitSeq(spec, ",") {
		col, typ, _ := strings.Cut(strings.TrimSpace(f), " ")
		t, err := types.ParseTypeName(typ)
		if err != nil {
			panic(fmt.Sprintf("catalog %s: column %s: %v", name, col, err))
		}
		v.cols = append(v.cols, virtCol{col, t})
	}
	v.rows = func(s Host) [][]any {
		var out [][]any
		for _, r := range rows(s) {
			vals := make([]any, len(v.cols))
			for i, c := range v.cols {
				if x, ok := r[c.name]; !ok || x != nil {
					vals[i] = catalogDatum(c.t, x)
				}
			}
			out = append(out, vals)
		}
		return out
	}
	return v
}

// catalogDatum makes a catalog value a datum of type t: Go integers and
// slices are widened, and nil, a value the row leaves out, is t's default.
func catalogDatum(t types.T, v any) any {
	switch x := v.(type) {
	case nil:
		switch {
		case t.IsArray() || t.Oid == types.OidText || t.Oid == types.OidTimestamptz || t.Oid == types.OidVarchar:
			return nil
		case t.Oid == types.OidBool:
			return false
		case t.Oid == types.OidName || t.Oid == types.OidChar:
			return ""
		case t.Oid == types.OidFloat4:
			return float64(0)
		case types.IsReg(t.Oid):
			return types.Reg{}
		}
		return int64(0)
	case int:
		return int64(x)
	case int16:
		return int64(x)
	case uint32:
		return int64(x)
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []int16:
		out := make([]any, len(x))
		for i, n := range x {
			out[i] = int64(n)
		}
		return out
	case []uint32:
		out := make([]any, len(x))
		for i, n := range x {
			out[i] = int64(n)
		}
		return out
	}
	return v
}

// virtualTable resolves a table name to a virtual table, or nil.
func virtualTable(q catalog.QName) *virtTable {
	switch q.Schema {
	case OidPgCatalog:
		return virtualTables[q.Name]
	case oidInfoSchema:
		return infoSchemaTables[q.Name]
	}
	return nil
}

func (v *virtTable) scope(alias string) *plan.Scope {
	sc := &plan.Scope{}
	for i, c := range v.cols {
		sc.Cols = append(sc.Cols, plan.ScopeCol{Table: alias, Name: c.name, T: c.t, TableOID: v.oid, AttNum: int16(i + 1)})
	}
	sc.Cols = append(sc.Cols, plan.ScopeCol{Table: alias, Name: plan.HiddenKey, T: types.Bytea, TableOID: v.oid})
	return sc
}

// virtSource reads a virtual table.
type virtSource struct {
	v *virtTable
	s Host
}

func (v *virtTable) source(s Host) plan.Source { return &virtSource{v: v, s: s} }

// Describe shows a catalog relation as PostgreSQL does: a scan of a table.
func (vs *virtSource) Describe(e *plan.Explainer) *plan.Node {
	return &plan.Node{Type: "Seq Scan", Label: "Seq Scan on " + vs.v.name, Attrs: []plan.Field{{Key: "Relation Name", Value: vs.v.name}}}
}

func (vs *virtSource) Open(x *plan.ExecCtx) (rowexec.RowIter, error) {
	rows := vs.v.rows(vs.s)
	for i := range rows {
		rows[i] = append(rows[i], plan.PresentKey) // the hidden key slot
	}
	return &rowexec.SliceIter{Rows: rows}, nil
}

// Relation is one row of pg_class: a table, an index, a sequence, or one of
// the catalogs' own tables and views.
type Relation struct {
	oid       uint32
	Name      string
	Namespace uint32
	Kind      string
	table     *catalog.Table // a table, or the table an index is on
	index     *catalog.Index
	seq       *catalog.Sequence
	virt      *virtTable // a catalog's own table, or a view's columns
	view      *catalog.View
}

// relations lists every relation the session can see.
func relations(s Host) []Relation {
	cat := s.Catalog()
	var rels []Relation
	for _, t := range cat.Tables() {
		rels = append(rels, Relation{oid: t.ID, Name: t.Name, Namespace: t.Schema, Kind: t.Relkind(), table: t})
		for _, ix := range t.Indexes {
			rels = append(rels, Relation{oid: ix.OID, Name: ix.Name, Namespace: t.Schema, Kind: "i", table: t, index: ix})
		}
	}
	for _, v := range cat.ViewByName {
		rels = append(rels, viewRelation(v))
	}
	for _, seq := range cat.SequenceByName {
		// A hidden row-id sequence's name starts with a NUL byte.
		if seq.Name[0] != 0 {
			rels = append(rels, Relation{oid: seq.ID, Name: seq.Name, Namespace: seq.Schema, Kind: "S", seq: seq})
		}
	}
	for _, m := range []map[string]*virtTable{virtualTables, infoSchemaTables} {
		for _, v := range m {
			if v.oid != 0 {
				rels = append(rels, Relation{oid: v.oid, Name: v.name, Namespace: v.nsp, Kind: v.kind, virt: v})
			}
		}
	}
	slices.SortFunc(rels, func(a, b Relation) int { return cmp.Compare(a.oid, b.oid) })
	return rels
}

// relationByOID finds a relation without listing them all: it runs once
// per row in queries such as SELECT oid::regclass FROM pg_class.
func relationByOID(s Host, oid uint32) (Relation, bool) {
	cat := s.Catalog()
	if t := cat.TableByID[oid]; t != nil {
		return Relation{oid: oid, Name: t.Name, Namespace: t.Schema, Kind: t.Relkind(), table: t}, true
	}
	if q := cat.SequenceByID[oid]; q != nil && q.Name[0] != 0 {
		return Relation{oid: oid, Name: q.Name, Namespace: q.Schema, Kind: "S", seq: q}, true
	}
	if v := virtualByOID[oid]; v != nil {
		return Relation{oid: oid, Name: v.name, Namespace: v.nsp, Kind: v.kind, virt: v}, true
	}
	for _, v := range cat.ViewByName {
		if v.ID == oid {
			return viewRelation(v), true
		}
	}
	for _, t := range cat.TableByID {
		for _, ix := range t.Indexes {
			if ix.OID == oid {
				return Relation{oid: oid, Name: ix.Name, Namespace: t.Schema, Kind: "i", table: t, index: ix}, true
			}
		}
	}
	return Relation{}, false
}

// RelationByName finds the relation schema.name, or with schema "", name
// on the search path.
func RelationByName(s Host, schema, name string) (Relation, bool) {
	cat := s.Catalog()
	q, err := cat.Resolve(s.SearchPath(), schema, name)
	if err != nil || !q.Found() {
		return Relation{}, false
	}
	if v := virtualTable(q); v != nil && v.oid != 0 {
		return Relation{oid: v.oid, Name: v.name, Namespace: v.nsp, Kind: v.kind, virt: v}, true
	}
	if t := cat.TableByName[q]; t != nil {
		return relationByOID(s, t.ID)
	}
	if sq := cat.SequenceByName[q]; sq != nil {
		return relationByOID(s, sq.ID)
	}
	if v := cat.ViewByName[q]; v != nil {
		return viewRelation(v), true
	}
	if _, ix := cat.IndexNamed(q); ix != nil {
		return relationByOID(s, ix.OID)
	}
	return Relation{}, false
}

// qualifiedName is how regclass prints a relation: qualified only if the
// search path would not find it by its bare name.
func (r Relation) qualifiedName(s Host) string { return QualifiedName(s, r.Namespace, r.Name) }

// superuser is the one role: every session runs as it, under the name the
// session gave.
func superuser(s Host) string { return s.Identity().User }

// none is the rows of a catalog of something epochdb does not have.
func none(Host) []row { return nil }

func pgTypeRows(s Host) []row {
	var rows []row
	for _, e := range s.Catalog().Enums() {
		at, _ := types.ArrayOf(e.T())
		rows = append(rows, row{"oid": uint32(e.Oid()), "typname": e.Name, "typnamespace": e.Schema, "typowner": oidSuperuser,
			"typlen": int16(4), "typbyval": true, "typtype": "e", "typcategory": "E", "typispreferred": false,
			"typisdefined": true, "typdelim": ",", "typelem": uint32(0), "typarray": uint32(at.Oid),
			"typinput": regproc("enum_in"), "typoutput": regproc("enum_out"), "typreceive": regproc("enum_recv"),
			"typsend": regproc("enum_send"), "typalign": "i", "typstorage": "p", "typtypmod": -1,
			"typcollation": uint32(0), "typbasetype": uint32(0), "typnotnull": false, "typndims": 0, "typrelid": uint32(0)},
			row{"oid": uint32(at.Oid), "typname": "_" + e.Name, "typnamespace": e.Schema, "typowner": oidSuperuser,
				"typlen": int16(-1), "typbyval": false, "typtype": "b", "typcategory": "A", "typispreferred": false,
				"typisdefined": true, "typdelim": ",", "typelem": uint32(e.Oid()), "typarray": uint32(0),
				"typsubscript": regproc("array_subscript_handler"), "typinput": regproc("array_in"),
				"typoutput": regproc("array_out"), "typreceive": regproc("array_recv"), "typsend": regproc("array_send"),
				"typanalyze": regproc("array_typanalyze"), "typalign": "i", "typstorage": "x", "typtypmod": -1,
				"typcollation": uint32(0), "typbasetype": uint32(0), "typnotnull": false, "typndims": 0, "typrelid": uint32(0)})
	}
	all := types.All()
	for _, e := range s.Catalog().Extensions() {
		all = append(slices.Clip(all), types.ExtensionTypes(e.Name)...)
	}
	for _, ti := range all {
		r := row{"oid": uint32(ti.Oid), "typname": ti.Name, "typnamespace": typeSchema(s, ti.Oid), "typowner": oidSuperuser,
			"typlen": ti.Len, "typbyval": ti.ByVal, "typtype": string(ti.Type), "typcategory": string(ti.Category),
			"typispreferred": ti.Preferred, "typisdefined": true, "typdelim": string(ti.Delim),
			"typelem": uint32(ti.Elem), "typarray": uint32(ti.Array), "typinput": regproc(ti.Input),
			"typoutput": regproc(ti.Output), "typreceive": regproc(ti.Receive), "typsend": regproc(ti.Send),
			"typalign": string(ti.Align), "typstorage": string(ti.Storage), "typtypmod": -1,
			"typcollation": uint32(ti.Collation)}
		switch {
		case ti.Category == 'A':
			r["typsubscript"] = regproc("array_subscript_handler")
			if ti.Name[0] == '_' {
				r["typanalyze"] = regproc("array_typanalyze")
			}
		case ti.Elem != 0:
			r["typsubscript"] = regproc("raw_array_subscript_handler")
		}
		base := ti.Oid
		if ti.Name[0] == '_' {
			base = ti.Elem
		}
		switch base {
		case types.OidBpchar, types.OidVarchar, types.OidNumeric, types.OidTime, types.OidTimestamp, types.OidTimestamptz, types.OidInterval:
			in, _ := types.Lookup(base)
			r["typmodin"], r["typmodout"] = regproc(in.Name+"typmodin"), regproc(in.Name+"typmodout")
		}
		rows = append(rows, r)
	}
	return rows
}

// typeSchema is the schema of type oid, an array's that of its element:
// an enum type's, or the installed extension's that provides it, or
// pg_catalog.
func typeSchema(s Host, oid types.Oid) uint32 {
	if elem, ok := (types.T{Oid: oid, Mod: -1}).Elem(); ok {
		oid = elem.Oid
	}
	if q, ok := s.Catalog().TypeQName(oid); ok {
		return q.Schema
	}
	return OidPgCatalog
}

// pgEnumRows are the enum types' labels, in each type's order.
func pgEnumRows(s Host) []row {
	var rows []row
	for _, e := range s.Catalog().Enums() {
		for _, l := range e.Labels {
			rows = append(rows, row{"oid": l.OID, "enumtypid": uint32(e.Oid()), "enumsortorder": float64(l.Sort), "enumlabel": l.Label})
		}
	}
	return rows
}

func pgNamespaceRows(s Host) []row {
	var rows []row
	for _, n := range s.Catalog().Schemas() {
		rows = append(rows, row{"oid": n.ID, "nspname": n.Name, "nspowner": namespaceOwner(n.ID),
			"nspacl": namespaceACL(s, n.ID)})
	}
	return rows
}

func namespaceOwner(nsp uint32) uint32 {
	if nsp == OidPublic {
		return oidDatabaseOwner
	}
	return oidSuperuser
}

// pgDatabaseRows lists the one database under the name the session
// connected to it by.
func pgDatabaseRows(s Host) []row {
	return []row{{"oid": oidDatabase, "datname": s.Identity().Database, "datdba": oidSuperuser, "encoding": 6,
		"datlocprovider": "c", "datallowconn": true, "datconnlimit": -1, "dattablespace": oidTablespace,
		"datcollate": "C", "datctype": "C"}}
}

// pgStatDatabaseRows are the database's statistics: the temporary files
// its statements wrote (see spill.go), and their bytes. epochdb keeps no
// other statistic PostgreSQL's view shows, and those columns are NULL.
func pgStatDatabaseRows(s Host) []row {
	r := row{"datid": oidDatabase, "datname": s.Identity().Database,
		"temp_files": s.TempFileStats().Files.Load(), "temp_bytes": s.TempFileStats().Bytes.Load()}
	for _, col := range []string{"numbackends", "xact_commit", "xact_rollback", "blks_read", "blks_hit",
		"tup_returned", "tup_fetched", "tup_inserted", "tup_updated", "tup_deleted", "conflicts", "deadlocks",
		"checksum_failures", "checksum_last_failure", "blk_read_time", "blk_write_time", "session_time",
		"active_time", "idle_in_transaction_time", "sessions", "sessions_abandoned", "sessions_fatal",
		"sessions_killed", "stats_reset"} {
		r[col] = nil
	}
	return []row{r}
}

func pgTablespaceRows(Host) []row {
	return []row{{"oid": oidTablespace, "spcname": "pg_default", "spcowner": oidSuperuser},
		{"oid": 1664, "spcname": "pg_global", "spcowner": oidSuperuser}}
}

func pgAmRows(Host) []row {
	return []row{{"oid": oidHeap, "amname": "heap", "amhandler": regproc("heap_tableam_handler"), "amtype": "t"},
		{"oid": oidBtree, "amname": "btree", "amhandler": regproc("bthandler"), "amtype": "i"}}
}

func pgCollationRows(Host) []row {
	return []row{
		{"oid": 100, "collname": "default", "collnamespace": OidPgCatalog, "collowner": oidSuperuser,
			"collprovider": "d", "collisdeterministic": true, "collencoding": -1},
		{"oid": 950, "collname": "C", "collnamespace": OidPgCatalog, "collowner": oidSuperuser,
			"collprovider": "c", "collisdeterministic": true, "collencoding": -1, "collcollate": "C", "collctype": "C"},
		{"oid": 951, "collname": "POSIX", "collnamespace": OidPgCatalog, "collowner": oidSuperuser,
			"collprovider": "c", "collisdeterministic": true, "collencoding": -1, "collcollate": "POSIX", "collctype": "POSIX"},
	}
}

func pgClassRows(s Host) []row {
	var rows []row
	for _, r := range relations(s) {
		rw := row{"oid": r.oid, "relname": r.Name, "relnamespace": r.Namespace, "relowner": oidSuperuser,
			"relfilenode": r.oid, "relpersistence": "p", "relkind": r.Kind, "relispopulated": true, "relreplident": "n"}
		if tempSchema(s, r.Namespace) {
			rw["relpersistence"] = "t"
		}
		switch {
		case (r.Kind == "r" || r.Kind == "m") && r.table != nil:
			rw["relispopulated"] = !r.table.Unpopulated
			rw["relam"], rw["reltuples"], rw["relreplident"] = oidHeap, float64(-1), "d"
			if st := r.table.Stats; st != nil {
				rw["reltuples"], rw["relpages"] = st.Rows, st.Pages
			}
			rw["relhasindex"], rw["relnatts"] = len(r.table.Indexes) > 0, len(r.table.Columns)
			rw["relchecks"] = len(r.table.Checks)
			// PostgreSQL enforces foreign keys with triggers on both
			// tables; psql lists them only where this is set.
			rw["relhastriggers"] = len(r.table.Triggers) > 0 || len(r.table.ForeignKeys) > 0 || len(s.Catalog().Referencing(r.table.ID)) > 0
		case r.Kind == "v" && r.view != nil:
			rw["relhastriggers"] = len(r.view.Triggers) > 0
		case r.Kind == "i":
			rw["relam"], rw["relpages"], rw["relnatts"] = oidBtree, 1, len(r.index.Columns)
		case r.Kind == "S":
			rw["relpages"], rw["reltuples"], rw["relnatts"] = 1, float64(1), 3
		case r.Kind == "r":
			rw["relam"], rw["relnatts"], rw["relreplident"] = oidHeap, len(r.virt.cols), "d"
		default: // a view
			rw["relfilenode"], rw["reltuples"], rw["relnatts"] = 0, float64(-1), len(r.virt.cols)
		}
		rows = append(rows, rw)
	}
	return rows
}

// attRow is a pg_attribute row for a column of type t.
func attRow(rel uint32, num int16, name string, t types.T) row {
	info, _ := types.Lookup(t.Oid)
	r := row{"attrelid": rel, "attname": name, "atttypid": uint32(t.Oid), "attstattarget": -1, "attlen": info.Len,
		"attnum": num, "attcacheoff": -1, "atttypmod": int(t.Mod), "attbyval": info.ByVal,
		"attalign": string(info.Align), "attstorage": string(info.Storage), "attislocal": true,
		"attcollation": uint32(info.Collation)}
	if t.IsArray() && !isVectorType(t) {
		r["attndims"] = 1
	}
	return r
}

func isVectorType(t types.T) bool { return t.Oid == types.OidInt2Vector || t.Oid == types.OidOidVector }

func pgAttributeRows(s Host) []row {
	var rows []row
	for _, r := range relations(s) {
		switch {
		case (r.Kind == "r" || r.Kind == "m") && r.table != nil:
			for _, c := range r.table.Columns {
				if c.Hidden {
					continue // an expression index's; PostgreSQL has no such column
				}
				if c.Dropped {
					// PostgreSQL keeps a dropped column's row, renamed and untyped.
					rows = append(rows, row{"attrelid": r.oid, "attname": fmt.Sprintf("........pg.dropped.%d........", c.Num),
						"attnum": c.Num, "attstattarget": -1, "attlen": -1, "attcacheoff": -1, "atttypmod": -1,
						"attalign": "i", "attstorage": "x", "attisdropped": true, "attislocal": true})
					continue
				}
				a := attRow(r.oid, c.Num, c.Name, c.Type)
				a["attnotnull"], a["atthasdef"] = c.NotNull, c.Default != "" && c.Identity == 0 || c.Generated != ""
				if c.Generated != "" {
					a["attgenerated"] = "s"
				}
				if c.Identity != 0 {
					a["attidentity"] = string(c.Identity)
				}
				rows = append(rows, a)
			}
		case r.Kind == "i":
			for i, ci := range r.index.Columns {
				c := r.table.Columns[ci]
				rows = append(rows, attRow(r.oid, int16(i+1), c.Name, c.Type))
			}
		case r.Kind == "S":
			for i, c := range []virtCol{{"last_value", types.Int8}, {"log_cnt", types.Int8}, {"is_called", types.Bool}} {
				a := attRow(r.oid, int16(i+1), c.name, c.t)
				a["attnotnull"] = true
				rows = append(rows, a)
			}
		default:
			for i, c := range r.virt.cols {
				rows = append(rows, attRow(r.oid, int16(i+1), c.name, c.t))
			}
		}
	}
	return rows
}

// indexAttnums are the attnums of an index's columns, 0 for an expression.
func indexAttnums(t *catalog.Table, ix *catalog.Index) []int16 {
	nums := attnums(t, ix.Columns)
	for i, ci := range ix.Columns {
		if t.Columns[ci].Hidden {
			nums[i] = 0
		}
	}
	return nums
}

// indexExprs is pg_index.indexprs: NULL for an index on columns only;
// PostgreSQL's node tree, which epochdb does not have, is the expressions'
// SQL here, for tools that only ask whether there are any.
func indexExprs(s Host, t *catalog.Table, ix *catalog.Index) any {
	var exprs []string
	for _, ci := range ix.Columns {
		if t.Columns[ci].Hidden {
			exprs = append(exprs, s.IndexColumnText(t, ci))
		}
	}
	if exprs == nil {
		return nil
	}
	return strings.Join(exprs, ", ")
}

// attnums are the attnums of t's columns at positions cols.
func attnums(t *catalog.Table, cols []int) []int16 {
	nums := make([]int16, len(cols))
	for i, ci := range cols {
		nums[i] = t.Columns[ci].Num
	}
	return nums
}

func pgIndexRows(s Host) []row {
	var rows []row
	for _, t := range s.Catalog().Tables() {
		for _, ix := range t.Indexes {
			n := len(ix.Columns)
			colls, classes, opts := make([]uint32, n), make([]uint32, n), make([]int16, n)
			for i, ci := range ix.Columns {
				info, _ := types.Lookup(t.Columns[ci].Type.Oid)
				colls[i], classes[i] = uint32(info.Collation), btreeOpclass(t.Columns[ci].Type.Oid)
			}
			rows = append(rows, row{"indexrelid": ix.OID, "indrelid": t.ID, "indnatts": n, "indnkeyatts": n,
				"indisunique": !ix.NonUnique, "indisprimary": ix.Primary, "indimmediate": true, "indisvalid": true,
				"indisready": true, "indislive": true, "indkey": indexAttnums(t, ix), "indcollation": colls,
				"indclass": classes, "indoption": opts, "indpred": nilIfEmpty(indexPredicateText(s, t, ix)),
				"indexprs": indexExprs(s, t, ix)})
		}
	}
	return rows
}

// btreeOpclass is the default btree operator class of a type (pg_opclass),
// which pg_index.indclass names: varchar's is text's, and cidr's inet's.
func btreeOpclass(oid types.Oid) uint32 {
	switch oid {
	case types.OidVarchar:
		oid = types.OidText
	case types.OidCidr:
		oid = types.OidInet
	}
	if c, ok := btreeOpclasses[oid]; ok {
		return c.oid
	}
	return btreeOpclasses[types.OidAnyArray].oid
}

// A primary key or unique constraint has the oid of its index: oids are
// unique per catalog in PostgreSQL, so pg_constraint may share pg_class's.
func pgConstraintRows(s Host) []row {
	var rows []row
	for _, t := range s.Catalog().Tables() {
		for _, ix := range t.Indexes {
			if ix.Standalone {
				continue // CREATE INDEX makes no constraint
			}
			kind := "u"
			if ix.Primary {
				kind = "p"
			}
			rows = append(rows, row{"oid": ix.OID, "conname": ix.Name, "connamespace": t.Schema, "contype": kind,
				"convalidated": true, "conrelid": t.ID, "conindid": ix.OID, "confupdtype": " ", "confdeltype": " ",
				"confmatchtype": " ", "conislocal": true, "connoinherit": true, "conkey": indexAttnums(t, ix)})
		}
		for _, ck := range t.Checks {
			rows = append(rows, row{"oid": ck.OID, "conname": ck.Name, "connamespace": t.Schema, "contype": "c",
				"convalidated": true, "conrelid": t.ID, "conindid": uint32(0), "confupdtype": " ", "confdeltype": " ",
				"confmatchtype": " ", "conislocal": true, "connoinherit": false, "conkey": checkColumns(t, ck)})
		}
		for _, fk := range t.ForeignKeys {
			parent, ix := s.Catalog().ParentOf(fk)
			if ix == nil {
				continue
			}
			rows = append(rows, row{"oid": fk.OID, "conname": fk.Name, "connamespace": t.Schema, "contype": "f",
				"convalidated": true, "conrelid": t.ID, "conindid": ix.OID, "conparentid": uint32(0), "confrelid": parent.ID,
				"confupdtype": string(fk.OnUpdate), "confdeltype": string(fk.OnDelete), "confmatchtype": string(fk.Match),
				"conislocal": true, "connoinherit": true, "conkey": attnums(t, fk.Columns), "confkey": attnums(parent, fk.RefColumns),
				"condeferrable": fk.Deferrable, "condeferred": fk.InitiallyDeferred})
		}
	}
	return rows
}

// attrdefOID is the pg_attrdef oid of a column's default: derived from the
// table's and the column's, clear of the object ids epochdb allocates.
func attrdefOID(t *catalog.Table, c *catalog.TableColumn) uint32 {
	return 1<<30 | t.ID<<10 | uint32(c.Num)
}

func pgAttrdefRows(s Host) []row {
	var rows []row
	for _, t := range s.Catalog().Tables() {
		for _, c := range t.Columns {
			if c.Default == "" && c.Generated == "" || c.Identity != 0 || !c.Visible() {
				continue
			}
			rows = append(rows, row{"oid": attrdefOID(t, c), "adrelid": t.ID, "adnum": c.Num, "adbin": defaultText(s, t, c)})
		}
	}
	return rows
}

func pgSequenceRows(s Host) []row {
	var rows []row
	for _, r := range relations(s) {
		if r.Kind == "S" {
			q := r.seq
			rows = append(rows, row{"seqrelid": q.ID, "seqtypid": uint32(SequenceType(q).Oid), "seqstart": q.Start,
				"seqincrement": q.Increment, "seqmax": q.Max, "seqmin": q.Min, "seqcache": max(q.Cache, 1), "seqcycle": q.Cycle})
		}
	}
	return rows
}

// SequenceType is the type a sequence was made for, which its maximum
// tells, or a descending one's minimum.
func SequenceType(q *catalog.Sequence) types.T {
	if q.Type != 0 {
		return types.T{Oid: q.Type, Mod: -1}
	}
	switch {
	case q.Max == math.MaxInt16 || q.Min == math.MinInt16:
		return types.Int2
	case q.Max == math.MaxInt32 || q.Min == math.MinInt32:
		return types.Int4
	}
	return types.Int8
}

func pgSequencesRows(s Host) []row {
	var rows []row
	for _, r := range relations(s) {
		if r.Kind == "S" {
			q := r.seq
			t := SequenceType(q)
			rows = append(rows, row{"schemaname": s.Catalog().SchemaName(q.Schema), "sequencename": q.Name, "sequenceowner": superuser(s),
				"data_type": types.Reg{Oid: t.Oid, Name: formatType(t.Oid, -1, false)}, "start_value": q.Start,
				"min_value": q.Min, "max_value": q.Max, "increment_by": q.Increment, "cache_size": 1})
		}
	}
	return rows
}

func pgRolesRows(s Host) []row {
	return []row{{"rolname": superuser(s), "rolsuper": true, "rolinherit": true, "rolcreaterole": true,
		"rolcreatedb": true, "rolcanlogin": true, "rolreplication": true, "rolconnlimit": -1,
		"rolpassword": "********", "rolbypassrls": true, "oid": oidSuperuser},
		{"rolname": "pg_database_owner", "rolinherit": true, "rolconnlimit": -1, "rolpassword": "********",
			"oid": oidDatabaseOwner}}
}

// pgDependRows records what PostgreSQL's \d shows of dependencies: a serial
// column's sequence is owned by the column (deptype 'a', automatic), an
// identity column's is part of it (deptype 'i', internal).
func pgDependRows(s Host) []row {
	var rows []row
	cat := s.Catalog()
	for _, t := range cat.Tables() {
		for _, c := range t.Columns {
			if q := cat.SequenceByID[c.Serial]; q != nil && !c.Dropped {
				deptype := "a"
				if c.Identity != 0 {
					deptype = "i"
				}
				rows = append(rows, row{"classid": OidPgClass, "objid": q.ID, "refclassid": OidPgClass,
					"refobjid": t.ID, "refobjsubid": c.Num, "deptype": deptype})
			}
		}
	}
	// An extension's types are its members (deptype e), which pg_dump
	// leaves to CREATE EXTENSION; an array type is its element's (i).
	for _, e := range cat.Extensions() {
		for _, in := range types.ExtensionTypes(e.Name) {
			if in.Category == 'A' {
				rows = append(rows, row{"classid": oidPgType, "objid": uint32(in.Oid), "refclassid": oidPgType,
					"refobjid": uint32(in.Elem), "deptype": "i"})
				continue
			}
			rows = append(rows, row{"classid": oidPgType, "objid": uint32(in.Oid), "refclassid": OidPgExtension,
				"refobjid": e.ID, "deptype": "e"})
		}
	}
	return append(rows, pgDumpDependRows(s)...)
}

func pgUserRows(s Host) []row {
	return []row{{"usename": superuser(s), "usesysid": oidSuperuser, "usecreatedb": true, "usesuper": true,
		"userepl": true, "usebypassrls": true, "passwd": "********"}}
}

func pgTablesRows(s Host) []row {
	var rows []row
	for _, r := range relations(s) {
		if r.Kind != "r" {
			continue
		}
		rows = append(rows, row{"schemaname": s.Catalog().SchemaName(r.Namespace), "tablename": r.Name, "tableowner": superuser(s),
			"tablespace": nil, "hasindexes": r.table != nil && len(r.table.Indexes) > 0})
	}
	return rows
}

func pgMatviewsRows(s Host) []row {
	var rows []row
	for _, t := range s.Catalog().Tables() {
		if t.IsMatView() {
			rows = append(rows, row{"schemaname": s.Catalog().SchemaName(t.Schema), "matviewname": t.Name, "matviewowner": superuser(s),
				"hasindexes": len(t.Indexes) > 0, "ispopulated": !t.Unpopulated, "definition": viewDef(s, t.MatViewAsView())})
		}
	}
	return rows
}

func pgViewsRows(s Host) []row {
	var rows []row
	for _, r := range relations(s) {
		if r.Kind == "v" {
			rw := row{"schemaname": s.Catalog().SchemaName(r.Namespace), "viewname": r.Name, "viewowner": superuser(s)}
			if r.view != nil {
				rw["definition"] = viewDef(s, r.view)
			}
			rows = append(rows, rw)
		}
	}
	return rows
}

// viewRelation is a view as pg_class and pg_attribute list it: its columns
// in the form the catalogs' own views have.
func viewRelation(v *catalog.View) Relation {
	vt := &virtTable{name: v.Name, nsp: v.Schema, oid: v.ID, kind: "v"}
	for _, c := range v.Columns {
		vt.cols = append(vt.cols, virtCol{name: c.Name, t: c.Type})
	}
	return Relation{oid: v.ID, Name: v.Name, Namespace: v.Schema, Kind: "v", virt: vt, view: v}
}

// viewDef is pg_get_viewdef: the query, as written, ended by a semicolon,
// with its relations qualified where the search path would not find them.
func viewDef(s Host, v *catalog.View) string {
	query := v.SQL
	// Column names the view gave its query's columns are no part of the
	// query as written; a derived table's column list says them, so that
	// the definition alone, as pg_dump writes it, makes the same columns.
	path := plan.ViewPath(v)
	if qp, err := plan.PlanViewQuery(s, query, path, nil); err == nil {
		cols := qp.Columns()
		renamed := len(cols) != len(v.Columns)
		names := make([]string, len(v.Columns))
		for i, c := range v.Columns {
			names[i] = parser.QuoteIdent(c.Name)
			renamed = renamed || cols[i].Name != c.Name
		}
		if renamed && len(v.Columns) > 0 {
			query = "SELECT * FROM (" + strings.TrimSuffix(strings.TrimSpace(query), ";") + ") AS " +
				parser.QuoteIdent(v.Name) + "(" + strings.Join(names, ", ") + ")"
		}
	}
	// A name the view's search path finds where the session's does not
	// is shown qualified.
	cat, cur := s.Catalog(), s.SearchPath()
	q, err := parser.QualifyRelations(query, func(name string) string {
		made, _ := cat.Resolve(*path, "", name)
		if now, _ := cat.Resolve(cur, "", name); made.Found() && now != made {
			return cat.SchemaName(made.Schema)
		}
		return ""
	})
	if err == nil {
		query = q
	}
	return " " + query + ";"
}

// pgStatsRows are the statistics ANALYZE stored, a row per analyzed
// column.
func pgStatsRows(s Host) []row {
	var rows []row
	for _, t := range s.Catalog().Tables() {
		for _, c := range t.Columns {
			cs := c.Stats
			if cs == nil || !c.Visible() {
				continue
			}
			r := row{"schemaname": s.Catalog().SchemaName(t.Schema), "tablename": t.Name, "attname": c.Name, "inherited": false,
				"null_frac": cs.NullFrac, "avg_width": cs.AvgWidth, "n_distinct": cs.NDistinct,
				"most_common_vals": nil, "most_common_freqs": nil, "histogram_bounds": nil, "correlation": nil,
				"most_common_elems": nil, "most_common_elem_freqs": nil, "elem_count_histogram": nil}
			if len(cs.MCV) > 0 {
				r["most_common_vals"], r["most_common_freqs"] = textArray(cs.MCV), floatArray(cs.MCF)
			}
			if len(cs.Bounds) > 0 {
				r["histogram_bounds"] = textArray(cs.Bounds)
			}
			if cs.Correlation != nil {
				r["correlation"] = *cs.Correlation
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func textArray(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func floatArray(xs []float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func pgIndexesRows(s Host) []row {
	var rows []row
	for _, t := range s.Catalog().Tables() {
		for _, ix := range t.Indexes {
			rows = append(rows, row{"schemaname": s.Catalog().SchemaName(t.Schema), "tablename": t.Name, "indexname": ix.Name,
				"tablespace": nil, "indexdef": indexDef(s, t, ix, false)})
		}
	}
	return rows
}

// SettingView is a run-time parameter as pg_settings shows it.
type SettingView struct {
	Name, Value, Default string
	ReadOnly             bool
}

func pgSettingsRows(s Host) []row {
	var rows []row
	for _, st := range s.Settings() {
		r := row{"name": st.Name, "setting": st.Value, "category": "Ungrouped", "short_desc": "", "context": "user",
			"vartype": "string", "source": "default", "boot_val": st.Default, "reset_val": st.Default}
		if st.ReadOnly {
			r["context"] = "internal"
		}
		if st.Value != st.Default {
			r["source"] = "session"
		}
		rows = append(rows, r)
	}
	return rows
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// tempSchema reports whether schema nsp holds a session's temporary
// objects.
func tempSchema(s Host, nsp uint32) bool {
	sc := s.Catalog().SchemaByID[nsp]
	return sc != nil && sc.IsTemp()
}

func infoTablesRows(s Host) []row {
	var rows []row
	for _, r := range relations(s) {
		if r.Kind != "r" && r.Kind != "v" {
			continue
		}
		nsp := s.Catalog().SchemaName(r.Namespace)
		kind := "BASE TABLE"
		switch {
		case r.Kind == "v":
			kind = "VIEW"
		case tempSchema(s, r.Namespace):
			kind = "LOCAL TEMPORARY"
		}
		rows = append(rows, row{"table_catalog": s.Identity().Database, "table_schema": nsp, "table_name": r.Name,
			"table_type": kind, "is_insertable_into": yesNo(r.Kind == "r"), "is_typed": "NO"})
	}
	return rows
}

func infoViewsRows(s Host) []row {
	var rows []row
	for _, r := range relations(s) {
		if r.view == nil {
			continue
		}
		rows = append(rows, row{"table_catalog": s.Identity().Database, "table_schema": s.Catalog().SchemaName(r.Namespace),
			"table_name": r.Name, "view_definition": viewDef(s, r.view), "check_option": "NONE", "is_updatable": "NO",
			"is_insertable_into": "NO", "is_trigger_updatable": "NO", "is_trigger_deletable": "NO",
			"is_trigger_insertable_into": "NO"})
	}
	return rows
}

func infoSchemataRows(s Host) []row {
	var rows []row
	for _, n := range s.Catalog().Schemas() {
		owner := superuser(s)
		if namespaceOwner(n.ID) == oidDatabaseOwner {
			owner = "pg_database_owner"
		}
		rows = append(rows, row{"catalog_name": s.Identity().Database, "schema_name": n.Name, "schema_owner": owner})
	}
	return rows
}

func infoColumnsRows(s Host) []row {
	var rows []row
	for _, t := range s.Catalog().Tables() {
		for _, c := range t.Columns {
			if !c.Visible() {
				continue
			}
			r := row{"table_catalog": s.Identity().Database, "table_schema": s.Catalog().SchemaName(t.Schema), "table_name": t.Name,
				"column_name": c.Name, "ordinal_position": c.Num, "is_nullable": yesNo(!c.NotNull),
				"udt_catalog": s.Identity().Database, "udt_schema": s.Catalog().SchemaName(typeSchema(s, c.Type.Oid)), "dtd_identifier": fmt.Sprint(c.Num),
				"is_self_referencing": "NO", "is_identity": "NO", "identity_cycle": "NO", "is_generated": "NEVER",
				"is_updatable": "YES"}
			if c.Default != "" && c.Identity == 0 {
				r["column_default"] = defaultText(s, t, c)
			}
			if c.Identity != 0 {
				r["is_identity"], r["identity_generation"] = "YES", map[byte]string{'a': "ALWAYS", 'd': "BY DEFAULT"}[c.Identity]
				if q := s.Catalog().SequenceByID[c.Serial]; q != nil {
					r["identity_start"], r["identity_increment"] = fmt.Sprint(q.Start), fmt.Sprint(q.Increment)
					r["identity_maximum"], r["identity_minimum"] = fmt.Sprint(q.Max), fmt.Sprint(q.Min)
				}
			}
			if c.Generated != "" {
				r["is_generated"], r["generation_expression"] = "ALWAYS", defaultText(s, t, c)
			}
			for k, v := range columnTypeInfo(s, c.Type) {
				r[k] = v
			}
			rows = append(rows, r)
		}
	}
	for _, v := range s.Catalog().ViewByName {
		for i, c := range v.Columns {
			r := row{"table_catalog": s.Identity().Database, "table_schema": s.Catalog().SchemaName(v.Schema), "table_name": v.Name,
				"column_name": c.Name, "ordinal_position": i + 1, "is_nullable": "YES",
				"udt_catalog": s.Identity().Database, "udt_schema": s.Catalog().SchemaName(typeSchema(s, c.Type.Oid)), "dtd_identifier": fmt.Sprint(i + 1),
				"is_self_referencing": "NO", "is_identity": "NO", "identity_cycle": "NO", "is_generated": "NEVER",
				"is_updatable": "NO"}
			for k, val := range columnTypeInfo(s, c.Type) {
				r[k] = val
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// columnTypeInfo is information_schema.columns' description of a type:
// data_type, udt_name, and the lengths and precisions that apply to it,
// NULL where they do not.
func columnTypeInfo(s Host, t types.T) row {
	info, _ := types.Lookup(t.Oid)
	r := row{"udt_name": info.Name, "data_type": t.String(), "character_maximum_length": nil,
		"character_octet_length": nil, "numeric_precision": nil, "numeric_precision_radix": nil,
		"numeric_scale": nil, "datetime_precision": nil, "interval_type": nil, "interval_precision": nil, "maximum_cardinality": nil}
	if i := strings.IndexByte(r["data_type"].(string), '('); i >= 0 {
		r["data_type"] = r["data_type"].(string)[:i]
	}
	if t.IsArray() && !isVectorType(t) {
		r["data_type"] = "ARRAY"
	}
	switch {
	case types.IsEnum(t.Oid):
		r["data_type"], r["udt_name"] = "USER-DEFINED", s.Catalog().EnumByOid(t.Oid).Name
	case types.HasEnum(t):
		elem, _ := t.Elem()
		r["udt_name"] = "_" + s.Catalog().EnumByOid(elem.Oid).Name
	case info.Extension != "" && !t.IsArray():
		r["data_type"] = "USER-DEFINED"
	}
	switch t.Oid {
	case types.OidTime:
		r["data_type"] = "time without time zone"
	case types.OidTimestamp:
		r["data_type"] = "timestamp without time zone"
	case types.OidTimestamptz:
		r["data_type"] = "timestamp with time zone"
	case types.OidBpchar:
		r["data_type"] = "character"
	}
	switch t.Oid {
	case types.OidVarchar, types.OidBpchar, types.OidText:
		if t.Mod >= 4 {
			r["character_maximum_length"] = int(t.Mod - 4)
			r["character_octet_length"] = int(t.Mod-4) * 4
		} else {
			r["character_octet_length"] = 1073741824
		}
	case types.OidInt2, types.OidInt4, types.OidInt8:
		r["numeric_precision"] = map[types.Oid]int{types.OidInt2: 16, types.OidInt4: 32, types.OidInt8: 64}[t.Oid]
		r["numeric_precision_radix"], r["numeric_scale"] = 2, 0
	case types.OidFloat4, types.OidFloat8:
		r["numeric_precision"] = map[types.Oid]int{types.OidFloat4: 24, types.OidFloat8: 53}[t.Oid]
		r["numeric_precision_radix"] = 2
	case types.OidNumeric:
		r["numeric_precision_radix"] = 10
		if t.Mod >= 4 {
			m := t.Mod - 4
			r["numeric_precision"], r["numeric_scale"] = int(m>>16&0xffff), int((m&0x7ff^0x400)-0x400)
		}
	case types.OidDate:
		r["datetime_precision"] = 0
	case types.OidTime, types.OidTimestamp, types.OidTimestamptz:
		r["datetime_precision"] = 6
		if t.Mod >= 0 {
			r["datetime_precision"] = int(t.Mod & 0xffff)
		}
	case types.OidInterval:
		fields, prec := types.IntervalTypmod(t)
		r["data_type"], r["datetime_precision"] = "interval", 6
		if prec >= 0 {
			r["datetime_precision"] = prec
			if fields != "" {
				fields += "(" + strconv.Itoa(prec) + ")"
			}
		}
		if fields != "" {
			r["interval_type"] = fields
		}
	}
	return r
}

func infoTableConstraintsRows(s Host) []row {
	var rows []row
	for _, t := range s.Catalog().Tables() {
		for _, ix := range t.Indexes {
			if ix.Standalone {
				continue
			}
			kind := "UNIQUE"
			if ix.Primary {
				kind = "PRIMARY KEY"
			}
			rows = append(rows, row{"constraint_catalog": s.Identity().Database, "constraint_schema": s.Catalog().SchemaName(t.Schema),
				"constraint_name": ix.Name, "table_catalog": s.Identity().Database, "table_schema": s.Catalog().SchemaName(t.Schema),
				"table_name": t.Name, "constraint_type": kind, "is_deferrable": "NO", "initially_deferred": "NO",
				"enforced": "YES", "nulls_distinct": "YES"})
		}
		for _, fk := range t.ForeignKeys {
			rows = append(rows, row{"constraint_catalog": s.Identity().Database, "constraint_schema": s.Catalog().SchemaName(t.Schema),
				"constraint_name": fk.Name, "table_catalog": s.Identity().Database, "table_schema": s.Catalog().SchemaName(t.Schema),
				"table_name": t.Name, "constraint_type": "FOREIGN KEY", "is_deferrable": yesNo(fk.Deferrable), "initially_deferred": yesNo(fk.InitiallyDeferred),
				"enforced": "YES"})
		}
		if t.Relkind() != "r" {
			continue
		}
		// CHECK constraints, then NOT NULL columns, which the view shows as
		// CHECK constraints named nspoid_reloid_attnum_not_null.
		checks := make([]string, 0, len(t.Checks))
		for _, ck := range t.Checks {
			checks = append(checks, ck.Name)
		}
		for _, c := range t.Columns {
			if c.NotNull && !c.Dropped && !c.Hidden {
				checks = append(checks, fmt.Sprintf("%d_%d_%d_not_null", t.Schema, t.ID, c.Num))
			}
		}
		for _, name := range checks {
			rows = append(rows, row{"constraint_catalog": s.Identity().Database, "constraint_schema": s.Catalog().SchemaName(t.Schema),
				"constraint_name": name, "table_catalog": s.Identity().Database, "table_schema": s.Catalog().SchemaName(t.Schema),
				"table_name": t.Name, "constraint_type": "CHECK", "is_deferrable": "NO", "initially_deferred": "NO",
				"enforced": "YES"})
		}
	}
	return rows
}

func infoReferentialConstraintsRows(s Host) []row {
	var rows []row
	rules := map[byte]string{'a': "NO ACTION", 'r': "RESTRICT", 'c': "CASCADE", 'n': "SET NULL", 'd': "SET DEFAULT"}
	for _, t := range s.Catalog().Tables() {
		for _, fk := range t.ForeignKeys {
			parent, ix := s.Catalog().ParentOf(fk)
			if ix == nil {
				continue
			}
			match := "NONE"
			if fk.Match == 'f' {
				match = "FULL"
			}
			rows = append(rows, row{"constraint_catalog": s.Identity().Database, "constraint_schema": s.Catalog().SchemaName(t.Schema),
				"constraint_name": fk.Name, "unique_constraint_catalog": s.Identity().Database, "unique_constraint_schema": s.Catalog().SchemaName(parent.Schema),
				"unique_constraint_name": ix.Name, "match_option": match,
				"update_rule": rules[fk.OnUpdate], "delete_rule": rules[fk.OnDelete]})
		}
	}
	return rows
}

func infoKeyColumnUsageRows(s Host) []row {
	var rows []row
	for _, t := range s.Catalog().Tables() {
		for _, ix := range t.Indexes {
			if ix.Standalone {
				continue
			}
			for i, ci := range ix.Columns {
				rows = append(rows, row{"constraint_catalog": s.Identity().Database, "constraint_schema": s.Catalog().SchemaName(t.Schema),
					"constraint_name": ix.Name, "table_catalog": s.Identity().Database, "table_schema": s.Catalog().SchemaName(t.Schema),
					"table_name": t.Name, "column_name": t.Columns[ci].Name, "ordinal_position": i + 1})
			}
		}
		for _, fk := range t.ForeignKeys {
			_, ix := s.Catalog().ParentOf(fk)
			if ix == nil {
				continue
			}
			for i, ci := range fk.Columns {
				rows = append(rows, row{"constraint_catalog": s.Identity().Database, "constraint_schema": s.Catalog().SchemaName(t.Schema),
					"constraint_name": fk.Name, "table_catalog": s.Identity().Database, "table_schema": s.Catalog().SchemaName(t.Schema),
					"table_name": t.Name, "column_name": t.Columns[ci].Name, "ordinal_position": i + 1,
					"position_in_unique_constraint": slices.Index(ix.Columns, fk.RefColumns[i]) + 1})
			}
		}
	}
	return rows
}

// constraintUse is a table a constraint uses, and the columns of it: a
// key's or a check's own table, a foreign key's referenced one.
type constraintUse struct {
	owner *catalog.Table // the constraint's table, whose schema it is in
	name  string
	table *catalog.Table
	cols  []int // column indexes in table
}

// constraintUses lists, as information_schema's constraint_column_usage
// and constraint_table_usage see them, every primary key, unique, foreign
// key and check constraint.
func constraintUses(s Host) []constraintUse {
	var uses []constraintUse
	for _, t := range s.Catalog().Tables() {
		for _, ix := range t.Indexes {
			if !ix.Standalone {
				uses = append(uses, constraintUse{t, ix.Name, t, ix.Columns})
			}
		}
		for _, fk := range t.ForeignKeys {
			if parent, ix := s.Catalog().ParentOf(fk); ix != nil {
				uses = append(uses, constraintUse{t, fk.Name, parent, fk.RefColumns})
			}
		}
		for _, ck := range t.Checks {
			var cols []int
			for _, num := range checkColumns(t, ck) {
				if i := slices.IndexFunc(t.Columns, func(c *catalog.TableColumn) bool { return c.Num == num }); i >= 0 && !slices.Contains(cols, i) {
					cols = append(cols, i)
				}
			}
			uses = append(uses, constraintUse{t, ck.Name, t, cols})
		}
	}
	return uses
}

func infoConstraintColumnUsageRows(s Host) []row {
	var rows []row
	db := s.Identity().Database
	for _, u := range constraintUses(s) {
		for _, ci := range u.cols {
			rows = append(rows, row{"table_catalog": db, "table_schema": s.Catalog().SchemaName(u.table.Schema),
				"table_name": u.table.Name, "column_name": u.table.Columns[ci].Name, "constraint_catalog": db,
				"constraint_schema": s.Catalog().SchemaName(u.owner.Schema), "constraint_name": u.name})
		}
	}
	return rows
}

func infoConstraintTableUsageRows(s Host) []row {
	var rows []row
	db := s.Identity().Database
	for _, u := range constraintUses(s) {
		if u.table != u.owner || !slices.ContainsFunc(u.owner.Checks, func(ck *catalog.Check) bool { return ck.Name == u.name }) {
			rows = append(rows, row{"table_catalog": db, "table_schema": s.Catalog().SchemaName(u.table.Schema),
				"table_name": u.table.Name, "constraint_catalog": db,
				"constraint_schema": s.Catalog().SchemaName(u.owner.Schema), "constraint_name": u.name})
		}
	}
	return rows
}

// systemSchema reports whether nsp is one of PostgreSQL's own schemas.
func systemSchema(nsp uint32) bool {
	return nsp == OidPgCatalog || nsp == oidInfoSchema || nsp == oidPgToast
}

// statioTables is one of the pg_statio_*_tables views, of the tables and
// materialized views whose schema keep accepts. epochdb reads no table
// through a buffer cache of blocks, so every block counter is zero; a table
// without indexes has NULL index counters, and none has a TOAST table.
func statioTables(oid uint32, name string, keep func(nsp uint32) bool) *virtTable {
	return catalogTable(OidPgCatalog, oid, "v", name, `relid oid, schemaname name, relname name,
		heap_blks_read int8, heap_blks_hit int8, idx_blks_read int8, idx_blks_hit int8, toast_blks_read int8,
		toast_blks_hit int8, tidx_blks_read int8, tidx_blks_hit int8`, func(s Host) []row {
		var rows []row
		for _, r := range relations(s) {
			if r.Kind != "r" && r.Kind != "m" || !keep(r.Namespace) {
				continue
			}
			var idx any
			if r.table != nil && len(r.table.Indexes) > 0 {
				idx = 0
			}
			rows = append(rows, row{"relid": r.oid, "schemaname": s.Catalog().SchemaName(r.Namespace), "relname": r.Name,
				"heap_blks_read": 0, "heap_blks_hit": 0, "idx_blks_read": idx, "idx_blks_hit": idx,
				"toast_blks_read": nil, "toast_blks_hit": nil, "tidx_blks_read": nil, "tidx_blks_hit": nil})
		}
		return rows
	})
}

// nilIfEmpty is s, or NULL for "".
func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// checkColumns are the attnums of the columns a check names.
func checkColumns(t *catalog.Table, ck *catalog.Check) []int16 {
	n, err := plan.ParseExpr(ck.Expr)
	if err != nil {
		return nil
	}
	var nums []int16
	for _, name := range plan.ColumnsNamed(n) {
		if _, col := t.Column(name); col != nil {
			nums = append(nums, col.Num)
		}
	}
	return nums
}
