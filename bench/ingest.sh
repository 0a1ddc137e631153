#!/usr/bin/env bash
# ingest.sh runs BenchmarkIngest COUNT times through compare.sh and prints
# the median rows/s of epochdb and PostgreSQL (EPOCHDB_PG_URL) and their
# ratio. N sets the batches of 100 rows per run (default 20000).
set -euo pipefail
: "${EPOCHDB_PG_URL:?set EPOCHDB_PG_URL to a PostgreSQL to compare with}"
BENCH=BenchmarkIngest UNIT=rows/s OTHER=postgres BENCHTIME="${N:-20000}x" exec "$(dirname "$0")/compare.sh"
