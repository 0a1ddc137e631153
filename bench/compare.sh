#!/usr/bin/env bash
# compare.sh runs a benchmark COUNT times and prints, per case, the median
# of one metric for epochdb and the other engine, and their ratio. By
# default that is BenchmarkSyncCommit's commits/s against Pebble; ingest.sh
# sets BENCH, UNIT and OTHER for BenchmarkIngest against PostgreSQL.
# BENCHTIME sets -benchtime; OUT, if set, keeps the raw output for benchstat.
# BENCH may list several patterns, separated by spaces, and BENCHTIME then
# one -benchtime for each (lsm.sh runs one-shot fills with 1x and reads
# with 3s); each run goes through them all in order. UNIT may list several
# metrics, separated by commas: each case is compared in the first it has.
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
read -ra benches <<<"${BENCH:-BenchmarkSyncCommit}"
read -ra times <<<"${BENCHTIME:-3s}"
for ((i = 1; i <= ${COUNT:-3}; i++)); do
	for j in "${!benches[@]}"; do
		"$tmp/bench.test" -test.run '^$' -test.bench "${benches[j]}" \
			-test.benchtime="${times[j]:-${times[0]}}" -test.count=1 | tee -a "$out"
	done
done
echo
"$tmp/ratio" -unit "${UNIT:-commits/s}" -other "${OTHER:-pebble}" <"$out"
