// Package builtins holds SQL's built-in functions: for each name, its
// overloads (argument types, result type, and a Go implementation), in
// one table (table.go) that the planner looks up. A function's code lives
// in its family's file: math.go for the math functions and the scale
// rules of numeric results, strings.go for the string functions,
// clock.go for the current date and time, dates.go for the date and time
// functions (date_trunc, age, AT TIME ZONE, make_*), extract.go for
// EXTRACT and date_part, datefmt.go for the template functions (to_char,
// to_date, to_timestamp, to_number), uuid.go for gen_random_uuid.
//
// # What a function is here
//
// An Overload computes its result from argument values that the planner
// has already converted to the overload's types, so an implementation
// type-asserts its arguments and never resolves a type. A NULL argument
// gives NULL without a call, unless CalledOnNull. What a function may ask
// of the statement calling it is Env: its context (for cancellation), the
// session's time zone, and when the transaction and the statement began;
// nothing else of the session, the catalog or the planner reaches this
// package. Each overload has a Volatility, which keeps stable and volatile
// calls out of index expressions and generated columns: the planner
// records the volatility of each overload it chooses, so date_trunc of a
// timestamp may key an index while date_trunc of a timestamptz, which
// reads TimeZone, may not.
//
// An overload may name its parameters (Params) and give the last ones
// defaults (Defaults), as pg_proc does, so that make_interval(days => 3)
// resolves the way PostgreSQL resolves it: arguments by position, then
// by name, and every parameter left out must have a default.
//
// State that outlives a call is the package's, never a call site's: the
// template functions keep parsed templates in a few hashed slots, as
// formatting.c keeps its caches for the whole backend.
//
// The planner (package sql's callOverloaded) chooses among a name's
// overloads as PostgreSQL's function type resolution does: the candidates
// whose parameters every argument matches or converts to implicitly;
// then those with the most exact matches; then those with preferred types
// (float8, text, ...) where conversions are needed; then, for an unknown
// literal, the string category if a candidate takes it there, else the
// category all take, and its preferred type. One candidate left is the
// call; none is 42883 and more than one is 42725, with PostgreSQL's
// messages.
//
// # Where a function goes
//
// A function with fixed signatures goes in its family's file and in
// table.go, with a testdata/sql case recorded against PostgreSQL. A
// function that needs special syntax (TRIM, SUBSTRING ... FROM), a
// polymorphic or variadic signature, or the session's catalog (nextval,
// pg_get_indexdef) is still compiled in package sql (funcs.go's
// funcCompilers) while the cut goes on.
//
// The package depends on sql/types and sql/pgerr only. The few exported
// numeric helpers (NumericDiv, NumericDivScale, OwnNumeric, EvalRounded,
// NBase, ErrNumericOverflow, NumericContext) serve the arithmetic
// operators and the aggregates that are still in package sql, and go
// back inside when those move here.
package builtins
