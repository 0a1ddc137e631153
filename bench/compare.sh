#!/usr/bin/env bash
# compare.sh runs a benchmark COUNT times and prints, per case, the median
# of one metric for epochdb and the other engine, and their ratio. By
# default that is BenchmarkSyncCommit's commits/s against Pebble; ingest.sh
# sets BENCH, UNIT and OTHER for BenchmarkIngest against PostgreSQL.
# BENCHTIME sets -benchtime; OUT, if set, keeps the raw output for benchstat.
#
# go test -count=N would run each sub-benchmark N times in a row, so a slow
# minute of the disk could land on one engine only. Running the test binary
# COUNT times with -count=1 instead alternates the engines at every step:
# epochdb/1, pebble/1, epochdb/16, pebble/16, ..., and again.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp/bench.txt}
: >"$out"

# Build everything first: compiling during the run would steal a core.
go build -o "$tmp/ratio" ./cmd/ratio
go test -c -o "$tmp/bench.test" .
for ((i = 1; i <= ${COUNT:-3}; i++)); do
	"$tmp/bench.test" -test.run '^$' -test.bench "${BENCH:-BenchmarkSyncCommit}" \
		-test.benchtime="${BENCHTIME:-3s}" -test.count=1 | tee -a "$out"
done
echo
"$tmp/ratio" -unit "${UNIT:-commits/s}" -other "${OTHER:-pebble}" <"$out"
