package clienttest

import "testing"

// The Node.js ORMs, query builders and migration tools, installed by npm ci
// with the drivers. Each program runs its tool's own schema path (sync,
// synchronize or migrations), then CRUD, filters, joins, ordering,
// pagination, a rollback, a unique violation caught as the tool's own error
// class, and the tool's introspection. What they share is in
// testdata/clients/node/orm.js.

// TestORMSequelize runs Sequelize 6: sync, sync({ alter: true }), ENUM
// columns (created in DO blocks), associations with include.
func TestORMSequelize(t *testing.T) {
	t.Parallel()
	runNode(t, "sequelize.js", "sequelize")
}

// TestORMTypeORM runs TypeORM 0.3: synchronize, a second one with nothing to
// do, migrations run and reverted, relations, QueryBuilder with skip/take.
func TestORMTypeORM(t *testing.T) {
	t.Parallel()
	runNode(t, "typeorm.js", "typeorm")
}

// TestORMKnex runs Knex: migrations up, down, latest and rollback, and the
// query builder.
func TestORMKnex(t *testing.T) {
	t.Parallel()
	runNode(t, "knex.js", "knex")
}

// TestORMPgPromise runs pg-promise: the helpers' INSERT and multi-row
// UPDATE ... FROM (VALUES ...) from ColumnSets, tasks and transactions.
func TestORMPgPromise(t *testing.T) {
	t.Parallel()
	runNode(t, "pgpromise.js", "pg-promise")
}
