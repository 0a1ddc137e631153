package sql_test

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layers is the import rule of the packages under sql/: each may import
// only the epochdb packages listed for it (and anything outside epochdb).
// A package missing from the table fails the test, so that a new package
// takes its place in the picture (sql/doc.go) before it lands.
var layers = map[string][]string{
	"sql/pgerr":     {"txn", "sstable", "wal"}, // maps the engine's errors to SQLSTATEs
	"sql/types":     {"sql/pgerr"},
	"sql/parser":    {"sql/pgerr"},
	"sql/spill":     {"sql/pgerr", "sql/types"},
	"sql/builtins":  {"sql/pgerr", "sql/types", "sql/parser"}, // the parser's keywords decide quote_ident
	"sql/catalog":   {"sql/pgerr", "sql/types", "txn"},
	"sql/rowexec":   {"sql/types", "sql/spill"},
	"sql/plan":      {"sql/pgerr", "sql/types", "sql/parser", "sql/spill", "sql/builtins", "sql/catalog", "sql/rowexec", "txn"},
	"sql/pgcatalog": {"sql/pgerr", "sql/types", "sql/parser", "sql/spill", "sql/catalog", "sql/rowexec", "sql/plan", "txn", "sstable"},
	"sql":           {"sql/pgcatalog", "sql/plan", "sql/builtins", "sql/catalog", "sql/parser", "sql/pgerr", "sql/rowexec", "sql/spill", "sql/types", "txn", "sstable"},
}

// Dependencies among sql's packages point one way: no package imports one
// its row in layers does not allow. The test reads each package's imports
// without its tests, which may reach further.
func TestPackageLayers(t *testing.T) {
	const module = "github.com/epochdb/epochdb/"
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.ToSlash(filepath.Join("sql", path))
		allowed, ok := layers[name]
		if !ok {
			t.Errorf("package %s has no row in layers: give it its place (and one in sql/doc.go's picture)", name)
			return nil
		}
		for _, imp := range pkg.Imports {
			dep, internal := strings.CutPrefix(imp, module)
			if internal && !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s, which its layer does not allow (it may import %v)", name, dep, allowed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
