#!/usr/bin/env bash
# compare.sh runs BenchmarkSyncCommit and prints, per committer count, the
# median commits/s of epochdb and Pebble and their ratio. BENCHTIME and COUNT
# set -benchtime and -count; OUT, if set, keeps the raw output for benchstat.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp/bench.txt}

# Build the summariser first: compiling during the run would steal a core.
go build -o "$tmp/ratio" ./cmd/ratio
go test -run '^$' -bench BenchmarkSyncCommit \
	-benchtime="${BENCHTIME:-3s}" -count="${COUNT:-3}" | tee "$out"
echo
"$tmp/ratio" <"$out"
