#!/usr/bin/env bash
# ingest.sh runs BenchmarkIngest COUNT times and prints the median rows/s
# of epochdb and PostgreSQL (EPOCHDB_PG_URL) and their ratio. N sets the
# batches per run (-benchtime Nx, 100 rows each); OUT, if set, keeps the
# raw output for benchstat.
#
# Like compare.sh, it reruns the test binary instead of using -count, so the
# engines alternate and a slow stretch of a noisy disk is shared.
set -euo pipefail
cd "$(dirname "$0")"
: "${EPOCHDB_PG_URL:?set EPOCHDB_PG_URL to a PostgreSQL to compare with}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp/bench.txt}
: >"$out"

go build -o "$tmp/ratio" ./cmd/ratio
go test -c -o "$tmp/bench.test" .
for ((i = 1; i <= ${COUNT:-3}; i++)); do
	"$tmp/bench.test" -test.run '^$' -test.bench BenchmarkIngest \
		-test.benchtime="${N:-20000}x" -test.count=1 | tee -a "$out"
done
echo
"$tmp/ratio" -unit rows/s -other postgres <"$out"
