package clienttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// goBuilds serializes the builds of the Go programs: the first compiles the
// modules they share into the build cache, and the rest only link, where
// builds side by side would each compile them.
var goBuilds sync.Mutex

// buildGoProgram builds testdata/clients/go/<name>, in a module of its own
// so that the main module has none of the ORMs' dependencies, and returns
// the binary. A program that cannot be built (no go, no module proxy)
// counts as a missing client.
func buildGoProgram(t *testing.T, name string) string {
	t.Helper()
	gobin := lookPath(t, "go")
	dir, err := filepath.Abs(filepath.Join(clientsDir, "go"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command(gobin, "build", "-o", bin, "./"+name)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	goBuilds.Lock()
	out, err := cmd.CombinedOutput()
	goBuilds.Unlock()
	if err != nil {
		missingClient(t, "go build ./%s in %s: %v\n%s", name, dir, err, out)
	}
	return bin
}

func runGoProgram(t *testing.T, name string) {
	bin := buildGoProgram(t, name)
	runClient(t, startTarget(t), t.TempDir(), bin)
}

// TestORMGORM runs GORM: AutoMigrate twice, the Migrator's checks,
// associations and Preload.
func TestORMGORM(t *testing.T) {
	t.Parallel()
	runGoProgram(t, "gorm")
}

// TestORMSqlx runs sqlx on pgx's database/sql driver.
func TestORMSqlx(t *testing.T) {
	t.Parallel()
	runGoProgram(t, "sqlx")
}

// TestORMGolangMigrate runs golang-migrate's pgx/v5 driver, from two
// instances at once behind its advisory lock.
func TestORMGolangMigrate(t *testing.T) {
	t.Parallel()
	runGoProgram(t, "migrate")
}

// TestORMGoose runs goose's Provider, from two providers at once behind its
// session locker's advisory lock.
func TestORMGoose(t *testing.T) {
	t.Parallel()
	runGoProgram(t, "goose")
}
