package clienttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The ORM and migration-tool matrix for Python and Go. Each program in
// testdata/clients/python and testdata/clients/go makes its schema its own
// way (create_all or AutoMigrate, or its tool's migrations up and down),
// then does CRUD, filters, joins, ordering and pages, a rollback, a unique
// violation caught as the tool's own error, and reads the schema back
// where the tool can. Each checks its own results and exits non-zero on
// any mismatch.

// debianPython is Debian's python3, which has Debian's python3-sqlalchemy,
// python3-alembic and python3-django; a python3 earlier on PATH may not.
const debianPython = "/usr/bin/python3"

// pythonWith finds Debian's python3 and reports the client missing unless
// it imports every one of modules.
func pythonWith(t *testing.T, pkgs string, modules ...string) string {
	t.Helper()
	if _, err := os.Stat(debianPython); err != nil {
		missingClient(t, "%s is not installed: %v", debianPython, err)
	}
	if out, err := exec.Command(debianPython, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput(); err != nil {
		missingClient(t, "%s cannot import %s (apt-get install %s): %v\n%s", debianPython, strings.Join(modules, ", "), pkgs, err, out)
	}
	return debianPython
}

// TestORMSQLAlchemy runs SQLAlchemy's ORM and Core in the 2.0 style, with
// create_all and reflection.
func TestORMSQLAlchemy(t *testing.T) {
	t.Parallel()
	python := pythonWith(t, "python3-sqlalchemy", "sqlalchemy", "psycopg2")
	runClient(t, startTarget(t), filepath.Join(clientsDir, "python"), python, "sqlalchemy_orm.py")
}

// TestORMAlembic runs Alembic's migrations up and down, with
// autogenerate's comparison, and SQLAlchemy's ORM on what they made.
func TestORMAlembic(t *testing.T) {
	t.Parallel()
	python := pythonWith(t, "python3-alembic", "alembic", "sqlalchemy", "psycopg2")
	runClient(t, startTarget(t), filepath.Join(clientsDir, "python"), python, "alembic_orm.py")
}

// TestORMDjango runs Django's migrate of its contrib apps and an app of
// models, its ORM, introspection and inspectdb, and QuerySet.iterator()
// outside a transaction (a WITH HOLD cursor), last.
func TestORMDjango(t *testing.T) {
	t.Parallel()
	python := pythonWith(t, "python3-django", "django", "psycopg2")
	runClient(t, startTarget(t), filepath.Join(clientsDir, "python"), python, "django_orm.py")
}
