#!/usr/bin/env bash
# pgbench.sh runs pgbench workloads against epochdb and against a throwaway
# PostgreSQL 15 on the same machine in the same run, both with default
# durability, and prints for each workload each side's median tps, average
# and p99 latency, and the epochdb/PostgreSQL ratio of the medians:
#
#	bench/pgbench.sh                                # TPC-B, select-only, simple-update
#	SCALE=100 bench/pgbench.sh -S -M prepared -c 8 -j 2   # one workload of your own
#
# Without arguments it runs the suite: TPC-B (tpcb-like), select-only (-S)
# and simple-update (-N), each with -M prepared -c CLIENTS (default 8) -j
# THREADS (default 2). With arguments, they are the one workload's pgbench
# options.
#
# It loads pgbench's tables at SCALE (default 10) into each side with
# pgbench -i, prints each side's size on disk after the load, then runs
# ROUNDS (default 3) rounds of TIME seconds (default 20) per side and
# workload, interleaved A/B/A/B, so that a slow minute of the disk does not
# land on one side only. ROUNDS=0 stops after the load. Latencies come from
# pgbench's per-transaction log (-l).
#
# SIDES (default "epochdb postgres") picks the sides. WALWATCH=1 samples
# each side's log directory every second through the runs and prints the
# largest it saw. EPOCHDB_ARGS adds flags to epochdb serve. PGBIN (default
# /usr/lib/postgresql/15/bin) is where initdb and postgres are; run as root,
# the cluster runs as the postgres user. KEEP=1 leaves the data directories.
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${SCALE:-10} secs=${TIME:-20} rounds=${ROUNDS:-3}
read -ra sides <<<"${SIDES:-epochdb postgres}"
pgbin=${PGBIN:-/usr/lib/postgresql/15/bin}
pgport=${PGPORT:-55433} eport=${EPORT:-55434}
tmp=$(mktemp -d /tmp/epochdb-pgbench.XXXXXX)
chmod 755 "$tmp" # the cluster's user must reach its directory
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	if [[ -d $tmp/pg/data ]]; then
		aspg "$pgbin/pg_ctl -D $tmp/pg/data -m immediate stop" >/dev/null 2>&1 || true
	fi
	[[ -n ${KEEP:-} ]] && { echo "kept $tmp"; return; }
	rm -rf "$tmp"
}
trap cleanup EXIT

# aspg runs a shell command as the user that owns the cluster.
aspg() {
	if [[ $(id -u) == 0 ]]; then su postgres -c "$1"; else sh -c "$1"; fi
}

has() { [[ " ${sides[*]} " == *" $1 "* ]]; }

# Connection arguments for each side's pgbench and psql.
conn_epochdb=(-h 127.0.0.1 -p "$eport" -U epochdb epochdb)
conn_postgres=(-h 127.0.0.1 -p "$pgport" -U postgres postgres)
logdir_epochdb=$tmp/epochdb/wal
logdir_postgres=$tmp/pg/data/pg_wal

if has epochdb; then
	go build -o "$tmp/epochdb-server" ./cmd/epochdb
	# shellcheck disable=SC2086 # EPOCHDB_ARGS is a list of flags
	"$tmp/epochdb-server" serve --listen "127.0.0.1:$eport" --data-dir "$tmp/epochdb" \
		${EPOCHDB_ARGS:-} 2>"$tmp/epochdb.log" &
	pids+=($!)
fi
if has postgres; then
	mkdir -p "$tmp/pg"
	[[ $(id -u) == 0 ]] && chown postgres "$tmp/pg"
	aspg "$pgbin/initdb -D $tmp/pg/data -A trust -U postgres >$tmp/pg/initdb.log"
	aspg "$pgbin/pg_ctl -D $tmp/pg/data -o '-p $pgport -k $tmp/pg -c listen_addresses=127.0.0.1' -l $tmp/pg/log -w start" >/dev/null
fi
for side in "${sides[@]}"; do
	conn="conn_$side[@]"
	for _ in $(seq 100); do
		psql -X -q "${!conn}" -c 'SELECT 1' >/dev/null 2>&1 && break
		sleep 0.2
	done
done

mb() { echo $(($(du -sb "$1" | cut -f1) >> 20)); }

echo "pgbench -i -s $scale"
for side in "${sides[@]}"; do
	conn="conn_$side[@]"
	start=$(date +%s.%N)
	pgbench -i -q -s "$scale" "${!conn}" >"$tmp/init-$side.log" 2>&1 ||
		{ cat "$tmp/init-$side.log"; exit 1; }
	took=$(echo "$(date +%s.%N) - $start" | bc)
	case $side in
	epochdb) dir=$tmp/epochdb ;;
	postgres) dir=$tmp/pg/data ;;
	esac
	logdir="logdir_$side"
	printf '  %-8s loaded in %6.1f s: %6d MB on disk, %d MB of it log\n' \
		"$side" "$took" "$(mb "$dir")" "$(mb "${!logdir}")"
done

if [[ -n ${WALWATCH:-} ]]; then
	for side in "${sides[@]}"; do
		logdir="logdir_$side"
		(
			peak=0
			while :; do
				n=$(du -sb "${!logdir}" 2>/dev/null | cut -f1) || n=0
				((n > peak)) && { peak=$n; echo "$peak" >"$tmp/walpeak-$side"; }
				sleep 1
			done
		) &
		pids+=($!)
	done
fi

((rounds > 0)) || exit 0

# The workloads, by name, each a line of pgbench options.
declare -A opts
names=()
if (($# > 0)); then
	names=(custom)
	opts[custom]="$*"
else
	common="-M prepared -c ${CLIENTS:-8} -j ${THREADS:-2}"
	names=(tpcb select-only simple-update)
	opts[tpcb]="$common"
	opts[select-only]="-S $common"
	opts[simple-update]="-N $common"
fi

# run runs one workload on one side and prints "tps avg_ms p99_ms".
run() {
	local side=$1 name=$2 conn="conn_$1[@]" logs=$tmp/log-$1-$2
	rm -rf "$logs" && mkdir -p "$logs"
	# shellcheck disable=SC2086 # opts is a list of options
	out=$(cd "$logs" && pgbench ${opts[$name]} -T "$secs" -l --log-prefix=tx "${!conn}" 2>&1) ||
		{ echo "$out" >&2; exit 1; }
	local tps avg p99
	tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' <<<"$out")
	avg=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' <<<"$out")
	# The log's third field is each transaction's latency in microseconds.
	p99=$(cat "$logs"/tx.* | awk '{print $3}' | sort -n |
		awk '{v[NR] = $1} END {i = int(NR * 0.99); if (i < 1) i = 1; printf "%.3f", v[i] / 1000}')
	failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<<"$out")
	if [[ ${failed:-0} != 0 ]]; then echo "$side $name: $failed failed transactions" >&2; fi
	rm -rf "$logs"
	echo "$tps $avg $p99"
}

# median prints the median of its arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

declare -A tps avg p99
for ((r = 1; r <= rounds; r++)); do
	for name in "${names[@]}"; do
		for side in "${sides[@]}"; do
			read -r t a p < <(run "$side" "$name")
			printf '  round %d %-13s %-8s %10.1f tps %8.3f ms avg %8.3f ms p99\n' "$r" "$name" "$side" "$t" "$a" "$p"
			tps[$name.$side]+=" $t" avg[$name.$side]+=" $a" p99[$name.$side]+=" $p"
		done
	done
done

echo
echo "medians of $rounds rounds of ${secs}s, scale $scale"
printf '  %-13s %-8s %10s %10s %10s\n' workload side tps "avg ms" "p99 ms"
for name in "${names[@]}"; do
	for side in "${sides[@]}"; do
		# shellcheck disable=SC2086 # the values are a list
		printf '  %-13s %-8s %10.1f %10.3f %10.3f\n' "$name" "$side" \
			"$(median ${tps[$name.$side]})" "$(median ${avg[$name.$side]})" "$(median ${p99[$name.$side]})"
	done
	if has epochdb && has postgres; then
		# shellcheck disable=SC2086
		printf '  %-13s epochdb/postgres %.2fx\n' "$name" \
			"$(echo "$(median ${tps[$name.epochdb]}) / $(median ${tps[$name.postgres]})" | bc -l)"
	fi
done
for side in "${sides[@]}"; do
	[[ -f $tmp/walpeak-$side ]] && printf '  %-8s largest log directory %d MB\n' "$side" $(($(cat "$tmp/walpeak-$side") >> 20))
done
exit 0
