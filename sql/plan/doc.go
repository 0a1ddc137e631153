// Package plan is epochdb's planner and executor: it compiles the parser's
// syntax trees into typed expressions and queries into trees of row
// sources, and runs them.
//
// # From a query to its rows
//
// A statement's query goes through three steps, each with a type of its
// own:
//
//	*ast.SelectStmt ──Compiler.PlanQuery──► QueryPlan ──Open(ExecCtx)──► rowexec.RowIter
//	                  (names, types,          (a tree of       (rows, pulled
//	                   parameters, access      Sources)         one at a time)
//	                   paths)
//
// The Compiler resolves names against a Scope (the columns of the row an
// expression will see), infers types as PostgreSQL does, parameters
// included, and resolves calls against sql/builtins' tables of overloads
// (overload.go). What it makes is an Expr: Type is known when it is
// compiled, and Eval computes the value from an Env, which holds the row,
// the parameters and the execution. Planning chooses, for each FROM item,
// how to read it (a primary key lookup, an index range or a scan, see
// select.go's ChooseAccess), pushes WHERE conjuncts down into joins
// (pushdown.go), chooses hash joins where the condition has equalities
// (hashjoin.go), and plans grouping, windows, set operations, WITH queries
// and subqueries, each in its own file.
//
// A plan is made once per prepared statement and opened once per
// execution. Open takes an ExecCtx (the transaction, the parameters, the
// enclosing query's row for a subquery) and returns a rowexec.RowIter.
// Rows are pulled: a LIMIT stops the scans below it, and a WITH query or a
// subquery computes only as far as it is read.
//
// One shape runs differently: aggregates over a whole table with no GROUP
// BY (fused.go). When every expression in it compiles to a kernel over
// unboxed integers, floats and booleans, the aggregation runs inside the
// table scan's loop instead of pulling boxed rows through three
// iterators; past its first batch it uses every core, scanning chunks
// apart and merging the states where the aggregates merge, and
// overlapping the scan with the aggregation on a second goroutine where
// they must see the rows in order. The kernels reuse Eval's operators in
// Eval's order, so that the two paths agree to the first error.
//
// # Why the planner and the executor are one package
//
// Expressions hold queries and queries hold expressions. A subquery is an
// expression whose evaluation runs a plan, in an execution of its own for
// each row of the query around it (subquery.go); a plan's operators
// evaluate expressions that may run subqueries. So the compiler plans
// queries, and the operators evaluate what it compiled: cutting them into
// two packages would put an interface at every node for no reader's
// benefit. What runs without expressions (the sort, the spilling row store)
// is sql/rowexec's; spilled rows go through sql/spill.
//
// # What the package asks of its session
//
// The planner and the executor reach the session only through Host
// (host.go): the catalog to plan against, the time zone and settings, the
// planning notes the session keeps for a statement (the tables it reads,
// its locking clause, its data-modifying WITH queries), the virtual
// catalogs, and the planning of an INSERT, UPDATE or DELETE inside WITH.
// The sql root package's Session is the one Host. So this package knows
// nothing of transactions' lifecycles, DDL, COPY or the wire.
//
// The functions that need more of the session than Host gives (the
// sequence functions, pg_notify, the advisory locks, the catalog
// functions, the ingest functions) live in the sql root package and
// register into this package's tables when it starts: FuncCompilers for
// scalar calls (Overloaded resolves one with overloads, as sql/builtins'
// are), TableFuncs for set-returning functions in FROM, FromPlanners for
// FROM items that are relations of their own. Every function that needs
// neither the session nor special syntax is sql/builtins'.
//
// The package imports sql/builtins, sql/catalog, sql/parser, sql/rowexec,
// sql/spill, sql/types, sql/pgerr and txn, and nothing above them.
package plan
