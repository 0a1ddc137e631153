#!/usr/bin/env bash
# function.sh runs BenchmarkSQLFunction COUNT times through compare.sh and
# prints the median rows/s of SELECT sum(f(x)) over 1M rows on epochdb and
# PostgreSQL (EPOCHDB_PG_URL), and their ratio.
set -euo pipefail
: "${EPOCHDB_PG_URL:?set EPOCHDB_PG_URL to a PostgreSQL to compare with}"
BENCH=BenchmarkSQLFunction UNIT=rows/s OTHER=postgres BENCHTIME="${N:-5}x" exec "$(dirname "$0")/compare.sh"
