#!/usr/bin/env bash
# trigger.sh runs BenchmarkTrigger COUNT times through compare.sh and
# prints the median cost per row of a PL/pgSQL BEFORE UPDATE row trigger
# on epochdb and PostgreSQL (EPOCHDB_PG_URL), and their ratio (lower is
# better for epochdb here: it is a cost).
set -euo pipefail
: "${EPOCHDB_PG_URL:?set EPOCHDB_PG_URL to a PostgreSQL to compare with}"
BENCH=BenchmarkTrigger UNIT=trigger-ns/row OTHER=postgres BENCHTIME="${N:-5}x" exec "$(dirname "$0")/compare.sh"
