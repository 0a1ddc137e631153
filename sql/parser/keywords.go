package parser

import (
	"strings"

	tidb "github.com/pingcap/tidb/pkg/parser"
)

// kwCategory is a PostgreSQL keyword category (src/include/parser/kwlist.h).
// It decides where a word may serve as a name.
type kwCategory uint8

const (
	notKeyword   kwCategory = iota
	unreserved              // a name anywhere
	colName                 // a column or type name, not a function or type of the generic kind
	typeFuncName            // a function or type name, not a column name
	reserved                // never a name unless quoted
)

// pgKeywords holds PostgreSQL 17's keywords by category.
var pgKeywords = map[string]kwCategory{
	"all": reserved, "analyse": reserved, "analyze": reserved, "and": reserved, "any": reserved,
	"array": reserved, "as": reserved, "asc": reserved, "asymmetric": reserved, "both": reserved,
	"case": reserved, "cast": reserved, "check": reserved, "collate": reserved, "column": reserved,
	"constraint": reserved, "create": reserved, "current_catalog": reserved, "current_date": reserved,
	"current_role": reserved, "current_time": reserved, "current_timestamp": reserved,
	"current_user": reserved, "default": reserved, "deferrable": reserved, "desc": reserved,
	"distinct": reserved, "do": reserved, "else": reserved, "end": reserved, "except": reserved,
	"false": reserved, "fetch": reserved, "for": reserved, "foreign": reserved, "from": reserved,
	"grant": reserved, "group": reserved, "having": reserved, "in": reserved, "initially": reserved,
	"intersect": reserved, "into": reserved, "lateral": reserved, "leading": reserved,
	"limit": reserved, "localtime": reserved, "localtimestamp": reserved, "not": reserved,
	"null": reserved, "offset": reserved, "on": reserved, "only": reserved, "or": reserved,
	"order": reserved, "placing": reserved, "primary": reserved, "references": reserved,
	"returning": reserved, "select": reserved, "session_user": reserved, "some": reserved,
	"symmetric": reserved, "system_user": reserved, "table": reserved, "then": reserved,
	"to": reserved, "trailing": reserved, "true": reserved, "union": reserved, "unique": reserved,
	"user": reserved, "using": reserved, "variadic": reserved, "when": reserved, "where": reserved,
	"window": reserved, "with": reserved,
	"authorization": typeFuncName, "binary": typeFuncName, "collation": typeFuncName,
	"concurrently": typeFuncName, "cross": typeFuncName, "current_schema": typeFuncName,
	"freeze": typeFuncName, "full": typeFuncName, "ilike": typeFuncName, "inner": typeFuncName,
	"is": typeFuncName, "isnull": typeFuncName, "join": typeFuncName, "left": typeFuncName,
	"like": typeFuncName, "natural": typeFuncName, "notnull": typeFuncName, "outer": typeFuncName,
	"overlaps": typeFuncName, "right": typeFuncName, "similar": typeFuncName,
	"tablesample": typeFuncName, "verbose": typeFuncName,
	"between": colName, "bigint": colName, "bit": colName, "boolean": colName, "char": colName,
	"character": colName, "coalesce": colName, "dec": colName, "decimal": colName, "exists": colName,
	"extract": colName, "float": colName, "greatest": colName, "grouping": colName, "inout": colName,
	"int": colName, "integer": colName, "interval": colName, "json": colName, "json_array": colName,
	"json_arrayagg": colName, "json_exists": colName, "json_object": colName,
	"json_objectagg": colName, "json_query": colName, "json_scalar": colName,
	"json_serialize": colName, "json_table": colName, "json_value": colName, "least": colName,
	"merge_action": colName, "national": colName, "nchar": colName, "none": colName,
	"normalize": colName, "nullif": colName, "numeric": colName, "out": colName, "overlay": colName,
	"position": colName, "precision": colName, "real": colName, "row": colName, "setof": colName,
	"smallint": colName, "substring": colName, "time": colName, "timestamp": colName,
	"treat": colName, "trim": colName, "values": colName, "varchar": colName,
	"xmlattributes": colName, "xmlconcat": colName, "xmlelement": colName, "xmlexists": colName,
	"xmlforest": colName, "xmlnamespaces": colName, "xmlparse": colName, "xmlpi": colName,
	"xmlroot": colName, "xmlserialize": colName, "xmltable": colName,
	"abort": unreserved, "absent": unreserved, "absolute": unreserved, "access": unreserved,
	"action": unreserved, "add": unreserved, "admin": unreserved, "after": unreserved,
	"aggregate": unreserved, "also": unreserved, "alter": unreserved, "always": unreserved,
	"asensitive": unreserved, "assertion": unreserved, "assignment": unreserved, "at": unreserved,
	"atomic": unreserved, "attach": unreserved, "attribute": unreserved, "backward": unreserved,
	"before": unreserved, "begin": unreserved, "breadth": unreserved, "by": unreserved,
	"cache": unreserved, "call": unreserved, "called": unreserved, "cascade": unreserved,
	"cascaded": unreserved, "catalog": unreserved, "chain": unreserved, "characteristics": unreserved,
	"checkpoint": unreserved, "class": unreserved, "close": unreserved, "cluster": unreserved,
	"columns": unreserved, "comment": unreserved, "comments": unreserved, "commit": unreserved,
	"committed": unreserved, "compression": unreserved, "conditional": unreserved,
	"configuration": unreserved, "conflict": unreserved, "connection": unreserved,
	"constraints": unreserved, "content": unreserved, "continue": unreserved,
	"conversion": unreserved, "copy": unreserved, "cost": unreserved, "csv": unreserved,
	"cube": unreserved, "current": unreserved, "cursor": unreserved, "cycle": unreserved,
	"data": unreserved, "database": unreserved, "day": unreserved, "deallocate": unreserved,
	"declare": unreserved, "defaults": unreserved, "deferred": unreserved, "definer": unreserved,
	"delete": unreserved, "delimiter": unreserved, "delimiters": unreserved, "depends": unreserved,
	"depth": unreserved, "detach": unreserved, "dictionary": unreserved, "disable": unreserved,
	"discard": unreserved, "document": unreserved, "domain": unreserved, "double": unreserved,
	"drop": unreserved, "each": unreserved, "empty": unreserved, "enable": unreserved,
	"encoding": unreserved, "encrypted": unreserved, "enum": unreserved, "error": unreserved,
	"escape": unreserved, "event": unreserved, "exclude": unreserved, "excluding": unreserved,
	"exclusive": unreserved, "execute": unreserved, "explain": unreserved, "expression": unreserved,
	"extension": unreserved, "external": unreserved, "family": unreserved, "filter": unreserved,
	"finalize": unreserved, "first": unreserved, "following": unreserved, "force": unreserved,
	"format": unreserved, "forward": unreserved, "function": unreserved, "functions": unreserved,
	"generated": unreserved, "global": unreserved, "granted": unreserved, "groups": unreserved,
	"handler": unreserved, "header": unreserved, "hold": unreserved, "hour": unreserved,
	"identity": unreserved, "if": unreserved, "immediate": unreserved, "immutable": unreserved,
	"implicit": unreserved, "import": unreserved, "include": unreserved, "including": unreserved,
	"increment": unreserved, "indent": unreserved, "index": unreserved, "indexes": unreserved,
	"inherit": unreserved, "inherits": unreserved, "inline": unreserved, "input": unreserved,
	"insensitive": unreserved, "insert": unreserved, "instead": unreserved, "invoker": unreserved,
	"isolation": unreserved, "keep": unreserved, "key": unreserved, "keys": unreserved,
	"label": unreserved, "language": unreserved, "large": unreserved, "last": unreserved,
	"leakproof": unreserved, "level": unreserved, "listen": unreserved, "load": unreserved,
	"local": unreserved, "location": unreserved, "lock": unreserved, "locked": unreserved,
	"logged": unreserved, "mapping": unreserved, "match": unreserved, "matched": unreserved,
	"materialized": unreserved, "maxvalue": unreserved, "merge": unreserved, "method": unreserved,
	"minute": unreserved, "minvalue": unreserved, "mode": unreserved, "month": unreserved,
	"move": unreserved, "name": unreserved, "names": unreserved, "nested": unreserved,
	"new": unreserved, "next": unreserved, "nfc": unreserved, "nfd": unreserved, "nfkc": unreserved,
	"nfkd": unreserved, "no": unreserved, "normalized": unreserved, "nothing": unreserved,
	"notify": unreserved, "nowait": unreserved, "nulls": unreserved, "object": unreserved,
	"of": unreserved, "off": unreserved, "oids": unreserved, "old": unreserved, "omit": unreserved,
	"operator": unreserved, "option": unreserved, "options": unreserved, "ordinality": unreserved,
	"others": unreserved, "over": unreserved, "overriding": unreserved, "owned": unreserved,
	"owner": unreserved, "parallel": unreserved, "parameter": unreserved, "parser": unreserved,
	"partial": unreserved, "partition": unreserved, "passing": unreserved, "password": unreserved,
	"path": unreserved, "period": unreserved, "plan": unreserved, "plans": unreserved,
	"policy": unreserved, "preceding": unreserved, "prepare": unreserved, "prepared": unreserved,
	"preserve": unreserved, "prior": unreserved, "privileges": unreserved, "procedural": unreserved,
	"procedure": unreserved, "procedures": unreserved, "program": unreserved,
	"publication": unreserved, "quote": unreserved, "quotes": unreserved, "range": unreserved,
	"read": unreserved, "reassign": unreserved, "recursive": unreserved, "ref": unreserved,
	"referencing": unreserved, "refresh": unreserved, "reindex": unreserved, "relative": unreserved,
	"release": unreserved, "rename": unreserved, "repeatable": unreserved, "replace": unreserved,
	"replica": unreserved, "reset": unreserved, "restart": unreserved, "restrict": unreserved,
	"return": unreserved, "returns": unreserved, "revoke": unreserved, "role": unreserved,
	"rollback": unreserved, "rollup": unreserved, "routine": unreserved, "routines": unreserved,
	"rows": unreserved, "rule": unreserved, "savepoint": unreserved, "scalar": unreserved,
	"schema": unreserved, "schemas": unreserved, "scroll": unreserved, "search": unreserved,
	"second": unreserved, "security": unreserved, "sequence": unreserved, "sequences": unreserved,
	"serializable": unreserved, "server": unreserved, "session": unreserved, "set": unreserved,
	"sets": unreserved, "share": unreserved, "show": unreserved, "simple": unreserved,
	"skip": unreserved, "snapshot": unreserved, "source": unreserved, "sql": unreserved,
	"stable": unreserved, "standalone": unreserved, "start": unreserved, "statement": unreserved,
	"statistics": unreserved, "stdin": unreserved, "stdout": unreserved, "storage": unreserved,
	"stored": unreserved, "strict": unreserved, "string": unreserved, "strip": unreserved,
	"subscription": unreserved, "support": unreserved, "sysid": unreserved, "system": unreserved,
	"tables": unreserved, "tablespace": unreserved, "target": unreserved, "temp": unreserved,
	"template": unreserved, "temporary": unreserved, "text": unreserved, "ties": unreserved,
	"transaction": unreserved, "transform": unreserved, "trigger": unreserved, "truncate": unreserved,
	"trusted": unreserved, "type": unreserved, "types": unreserved, "uescape": unreserved,
	"unbounded": unreserved, "uncommitted": unreserved, "unconditional": unreserved,
	"unencrypted": unreserved, "unknown": unreserved, "unlisten": unreserved, "unlogged": unreserved,
	"until": unreserved, "update": unreserved, "vacuum": unreserved, "valid": unreserved,
	"validate": unreserved, "validator": unreserved, "value": unreserved, "varying": unreserved,
	"version": unreserved, "view": unreserved, "views": unreserved, "virtual": unreserved,
	"volatile": unreserved, "whitespace": unreserved, "within": unreserved, "without": unreserved,
	"work": unreserved, "wrapper": unreserved, "write": unreserved, "xml": unreserved,
	"year": unreserved, "yes": unreserved, "zone": unreserved,
}

// constTypeWords are the column-name keywords that start a type name
// (gram.y's ConstTypename), and so may head a typed literal such as
// int '5' or double precision '1.5'.
var constTypeWords = map[string]bool{
	"bigint": true, "bit": true, "boolean": true, "char": true, "character": true, "dec": true,
	"decimal": true, "float": true, "int": true, "integer": true, "interval": true, "national": true,
	"nchar": true, "numeric": true, "real": true, "smallint": true, "time": true, "timestamp": true,
	"varchar": true, "json": true,
}

// tidbKeywords holds TiDB's keywords, lower case, with whether each is reserved.
var tidbKeywords = func() map[string]bool {
	m := make(map[string]bool, len(tidb.Keywords))
	for _, k := range tidb.Keywords {
		m[strings.ToLower(k.Word)] = k.Reserved
	}
	return m
}()

// tidbCallable are TiDB reserved words that are not PostgreSQL keywords but
// that TiDB's grammar accepts as function names, with PostgreSQL's meaning,
// so a call to one stays unquoted. Quoting a window function would make it
// an ordinary call, which takes no OVER clause.
var tidbCallable = map[string]bool{
	"cume_dist": true, "dense_rank": true, "first_value": true, "lag": true, "last_value": true,
	"lead": true, "nth_value": true, "ntile": true, "percent_rank": true, "rank": true,
	"repeat": true, "row_number": true,
}

// quotedCalls are functions that TiDB's grammar parses specially (nextval
// takes a table name, not an expression; stddev, variance and std are
// MySQL's population aggregates) or not as calls at all (cardinality and
// mode are unreserved keywords it does not call, nor pgcrypto's digest, nor
// text(inet), text being a type to it), so a call to one is quoted to make
// TiDB read it as an ordinary function call, as PostgreSQL does.
var quotedCalls = map[string]bool{
	"nextval": true, "lastval": true, "setval": true, "cardinality": true,
	"stddev": true, "variance": true, "std": true, "mode": true, "digest": true,
	"text": true,
}
