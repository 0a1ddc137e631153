#!/usr/bin/env bash
# pgbench.sh runs one pgbench workload against epochdb and against a
# throwaway PostgreSQL 15 on the same machine in the same run, both with
# default durability, and prints each side's tps and their ratio:
#
#	SCALE=100 ./pgbench.sh -S -M prepared -c 8 -j 2
#
# It loads pgbench's tables at SCALE (default 10) into each side with
# pgbench -i, prints each side's size on disk after the load, then
# alternates ROUNDS (default 2) runs of TIME seconds (default 60) per side,
# so that a slow minute of the disk does not land on one side only. ROUNDS=0
# stops after the load.
#
# SIDES (default "epochdb postgres") picks the sides. WALWATCH=1 samples
# each side's log directory every second through the runs and prints the
# largest it saw. EPOCHDB_ARGS adds flags to epochdb serve. PGBIN (default
# /usr/lib/postgresql/15/bin) is where initdb and postgres are; run as root,
# the cluster runs as the postgres user. KEEP=1 leaves the data directories.
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${SCALE:-10} secs=${TIME:-60} rounds=${ROUNDS:-2}
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
echo "pgbench $* -T $secs, $rounds rounds"
declare -A sum
for ((r = 1; r <= rounds; r++)); do
	for side in "${sides[@]}"; do
		conn="conn_$side[@]"
		out=$(pgbench "$@" -T "$secs" "${!conn}" 2>&1) || { echo "$out"; exit 1; }
		tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' <<<"$out")
		failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<<"$out")
		printf '  round %d %-8s %10.1f tps  (%s failed)\n' "$r" "$side" "$tps" "${failed:-0}"
		sum[$side]=$(echo "${sum[$side]:-0} + $tps" | bc)
	done
done
for side in "${sides[@]}"; do
	printf '  %-8s mean %10.1f tps' "$side" "$(echo "${sum[$side]} / $rounds" | bc -l)"
	[[ -f $tmp/walpeak-$side ]] && printf ', largest log directory %d MB' $(($(cat "$tmp/walpeak-$side") >> 20))
	echo
done
if has epochdb && has postgres; then
	printf '  epochdb/postgres %.2fx\n' "$(echo "${sum[epochdb]} / ${sum[postgres]}" | bc -l)"
fi
