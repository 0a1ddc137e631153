#!/usr/bin/env bash
# lsm.sh runs BenchmarkLSM COUNT times through compare.sh and prints the
# median keys/s (fills, scans) and reads/s (point reads) of epochdb and
# Pebble and their ratio. Fills are one-shot (-benchtime=1x); reads and
# scans loop b.N for BENCHTIME (default 3s).
set -euo pipefail
BENCH='BenchmarkLSM/fill BenchmarkLSM/(read|scan)' BENCHTIME="1x ${BENCHTIME:-3s}" \
	UNIT=keys/s,reads/s exec "$(dirname "$0")/compare.sh"
