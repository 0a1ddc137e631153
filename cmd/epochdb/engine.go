package main

import (
	"github.com/epochdb/epochdb/pgwire"
	"github.com/epochdb/epochdb/sql"
	"github.com/epochdb/epochdb/txn"
)

// openEngine is the one place the server meets the SQL layer's constructor.
func openEngine(store *txn.Store, superuser, tempDir string) (pgwire.Engine, error) {
	eng, err := sql.NewEngine(store, sql.EngineOptions{Superuser: superuser, TempDir: tempDir})
	if err != nil {
		return nil, err
	}
	return pgwire.Adapt(eng.NewSession), nil
}
