// Package builtins holds SQL's built-in functions, operators and
// aggregates: for each name, its overloads (parameter types, result type,
// and a Go implementation), in tables that the planner resolves calls
// against: functions and operators in table.go, aggregates in
// aggregates.go. A function's code lives in its family's file:
//
//	math.go        the math functions, round and trunc, and the scale
//	               rules of numeric results
//	strings.go     the string functions of text alone
//	text.go        the rest of the string functions: substr, trims and
//	               pads, lengths, overlay, quoting, format, concat, the
//	               encodings and digests of bytea
//	regex.go       the regular expressions (an ARE dialect on RE2) and
//	               the regexp_* functions, substring by pattern, ~
//	clock.go       now() and the other clocks, pg_sleep
//	dates.go       date_trunc, date_bin, age, AT TIME ZONE, make_*
//	extract.go     EXTRACT and date_part
//	datefmt.go     to_char, to_date, to_timestamp, to_number
//	arrays.go      the array functions
//	json.go        json and jsonb: functions, operators, set-returning
//	               functions
//	bitwise.go     & | # << >> ~ on integers
//	widthbucket.go width_bucket
//	series.go      generate_series and unnest
//	session.go     current_user, version(), current_setting, set_config
//	uuid.go        gen_random_uuid
//	network.go     inet, cidr, macaddr and macaddr8: abbrev, host,
//	               set_masklen, trunc, ...; << <<= >> >>= &&, ~ & |, and
//	               inet's + and -
//	extensions.go  the functions of uuid-ossp and pgcrypto (crypt.go),
//	citext.go      of citext, and of pg_trgm with its operators
//	trgm.go        (% <-> <% ...), which resolve only while CREATE
//	               EXTENSION has installed them (Overload.Extension)
//	aggregates.go  count, sum, avg, min, max, bool_and, bit_and,
//	               string_agg, array_agg, json_agg, ...
//	stats.go       stddev, variance, corr, covar_*, regr_*
//
// # What a function is here
//
// An Overload computes its result from argument values that the planner
// has already converted to the overload's types, so an implementation
// type-asserts its arguments and never resolves a type. A NULL argument
// gives NULL without a call, unless CalledOnNull. What a function may ask
// of the statement calling it is Env: its context (for cancellation), the
// session's time zone and run-time parameters, who the session is, and
// when the transaction and the statement began; nothing else of the
// session, the catalog or the planner reaches this package.
//
// Each overload has a Volatility, which keeps stable and volatile calls
// out of index expressions and generated columns: the planner records the
// volatility of each overload it chooses, so date_trunc of a timestamp may
// key an index while date_trunc of a timestamptz, which reads TimeZone,
// may not.
//
// Signatures are PostgreSQL's, pseudo-types included. Any takes an
// argument as it is; AnyElement, AnyArray and AnyNonArray take arguments
// that agree on one element type; AnyCompatible and AnyCompatibleArray
// take arguments that meet in their common type (array_append(int[],
// 2.5) is a numeric[]); Record takes a row. A polymorphic overload's
// implementation is made per call by Typed, from the resolved types. An
// overload may be Variadic (its last parameter repeats), name its
// parameters (Params) and give the last ones Defaults, as pg_proc does,
// so that make_interval(days => 3) resolves as in PostgreSQL. A
// set-returning function's overloads have Rows in place of Fn, yielding
// values one at a time.
//
// An Aggregate is an Overload's signature with an Accumulator in place of
// Fn: the planner groups rows and applies DISTINCT, ORDER BY and FILTER,
// and the accumulator folds one group's inputs, as PostgreSQL's
// transition and final functions do. An aggregate whose inputs come back
// out exactly (count, sum over integers, numeric and intervals, the
// boolean ones) also has a moving state, a Remover, with which a window
// frame that slides costs O(1) a row.
//
// # How a call is resolved
//
// The planner (sql/plan's overload.go) chooses among a name's
// overloads as PostgreSQL's function type resolution does: the candidates
// whose parameters every argument matches or converts to implicitly;
// then those with the most exact matches; then those with the most
// arguments that match or go to a preferred type of their own category;
// then, for unknown literals, the string category if a candidate takes it
// there, else the category all take, and its preferred type; and last,
// with the known arguments all of one type, unknown ones taken as it.
// One candidate left is the call; none is 42883 and more than one is
// 42725, with PostgreSQL's messages. An operator is first looked for as
// an exact match, an unknown operand taken as the other's type, then
// resolved the same way.
//
// State that outlives a call is the package's, never a call site's: the
// template functions and the regular expressions keep what they parsed in
// a few hashed slots, as PostgreSQL keeps its caches for the whole
// backend.
//
// # Where a function goes
//
// A function goes in its family's file and in table.go, with a
// testdata/sql case recorded against PostgreSQL; TestTableRows checks
// that the row is one the planner can call. A function with special
// syntax that is no plain call, or that needs the catalog (nextval,
// pg_get_indexdef, enum_range) or the engine, is compiled by the planner's
// FuncCompilers (sql/plan's funcs.go, and what sql/pgcatalog and the
// sql root package register there); no name is in both
// (TestFunctionsRegisteredOnce).
//
// # Dependencies
//
// The package depends on sql/types, sql/pgerr, and sql/parser, whose
// keyword list decides what quote_ident and format's %I quote. A few
// exported helpers serve the arithmetic operators, which sql/plan
// compiles with the expressions: NumericDiv, NumericDivScale, OwnNumeric
// and NumericContext.
package builtins
