package main

import (
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	largeScale    = flag.Int("large-scale", 20, "pgbench scale of TestLargeData (issue 8 measures 200)")
	largeMemtable = flag.String("large-memtable", "4MiB", "the server's --memtable-size in TestLargeData")
	largeCache    = flag.String("large-cache", "16MiB", "the server's --cache-size in TestLargeData")
)

// TestLargeData loads pgbench's tables at -large-scale (2,000,000 accounts
// at the default 20) in one transaction through COPY, adds the primary
// keys, and kills the server: with a small memtable, the load flushes and
// compacts all the way, its provisional versions reach files before it
// commits, and the server's memory stays bounded. A restart after kill -9
// must be quick, and every row must be there and right.
func TestLargeData(t *testing.T) {
	psql := requireClient(t, "psql")
	pgbench := requireClient(t, "pgbench")
	bin := buildServer(t)
	dir := t.TempDir()
	args := []string{"--memtable-size", *largeMemtable, "--cache-size", *largeCache}
	srv := startServer(t, bin, dir, args...)
	host, port, _ := strings.Cut(srv.addr, ":")

	peak := make(chan int64, 1)
	stop := make(chan struct{})
	go func() { peak <- watchPeakRSS(srv.cmd.Process.Pid, stop) }()
	start := time.Now()
	init := exec.Command(pgbench, "-i", "-s", strconv.Itoa(*largeScale), "-h", host, "-p", port, "-U", "epochdb", "epochdb")
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	load := time.Since(start)
	close(stop)
	rss := <-peak
	accounts := 100000 * *largeScale

	out, err := psqlRun(t, psql, srv.addr, "-At", "-c",
		"SELECT flushes, compactions FROM epochdb_stat_checkpoint", "-c",
		"SELECT count(DISTINCT level), count(*), sum(size_bytes) FROM epochdb_stat_files WHERE state = 'live'")
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	var flushes, compactions, levels, files, bytes int64
	fmt.Sscanf(strings.ReplaceAll(out, "|", " "), "%d %d\n%d %d %d", &flushes, &compactions, &levels, &files, &bytes)
	t.Logf("pgbench -i -s %d: %v, peak RSS %d MB, %d flushes, %d compactions, %d files in %d levels, %d MB of sstables",
		*largeScale, load.Round(time.Millisecond), rss>>20, flushes, compactions, files, levels, bytes>>20)
	if flushes < 20 || compactions < 5 || levels < 2 {
		t.Fatalf("the load ran %d flushes and %d compactions into %d levels: the test did not reach the tree", flushes, compactions, levels)
	}
	if rss > 1<<30 {
		t.Fatalf("the server's peak RSS was %d MB, over 1 GiB", rss>>20)
	}

	// kill -9, and time the restart until it serves.
	srv.stop(t, syscall.SIGKILL)
	walBytes := dirBytes(t, filepath.Join(dir, "wal"))
	start = time.Now()
	srv = startServer(t, bin, dir, args...)
	restart := time.Since(start)
	t.Logf("restart after kill -9: %v, with %d MB of log on disk and %d MB in all", restart.Round(time.Millisecond), walBytes>>20, dirBytes(t, dir)>>20)
	select {
	case line := <-srv.recovered:
		t.Logf("the server logged: %s", line)
	default:
	}
	if restart > 10*time.Second {
		t.Fatalf("restart took %v, over 10 s", restart)
	}
	out, err = psqlRun(t, psql, srv.addr, "-At", "-c", "SELECT count(*), sum(abalance) FROM pgbench_accounts")
	if err != nil || strings.TrimSpace(out) != strconv.Itoa(accounts)+"|0" {
		t.Fatalf("after the restart: %q, %v; want %d accounts with balance 0", out, err, accounts)
	}
	// Random point reads, by the primary key: each row is the one pgbench
	// wrote.
	rng := rand.New(rand.NewPCG(1, 2))
	var q strings.Builder
	var want strings.Builder
	for range 200 {
		aid := 1 + rng.IntN(accounts)
		fmt.Fprintf(&q, "SELECT aid, bid, abalance FROM pgbench_accounts WHERE aid = %d;\n", aid)
		fmt.Fprintf(&want, "%d|%d|0\n", aid, (aid-1)/100000+1)
	}
	file := filepath.Join(t.TempDir(), "reads.sql")
	if err := os.WriteFile(file, []byte(q.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = psqlRun(t, psql, srv.addr, "-At", "-f", file)
	if err != nil || out != want.String() {
		t.Fatalf("point reads after the restart: %v\n%s", err, firstDiff(out, want.String()))
	}
	// The size on disk once compaction has caught up: the load's first
	// copy of pgbench_accounts, which ADD PRIMARY KEY replaced, is dropped.
	if out, err := psqlRun(t, psql, srv.addr, "-c", "VACUUM FULL"); err != nil {
		t.Fatalf("VACUUM FULL: %v\n%s", err, out)
	}
	// The replaced files go once no reader is pinned before the swap.
	for range 40 {
		out, err := psqlRun(t, psql, srv.addr, "-At", "-c", "SELECT count(*) FROM epochdb_stat_files WHERE state <> 'live'")
		if err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
		if strings.TrimSpace(out) == "0" {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	out, err = psqlRun(t, psql, srv.addr, "-At", "-c", "SELECT count(*), sum(entries), sum(size_bytes) FROM epochdb_stat_files")
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	var entries int64
	fmt.Sscanf(strings.ReplaceAll(out, "|", " "), "%d %d %d", &files, &entries, &bytes)
	t.Logf("after VACUUM FULL: %d MB in all, %d MB of it in %d sstables holding %d entries",
		dirBytes(t, dir)>>20, bytes>>20, files, entries)
	srv.stop(t, syscall.SIGTERM)
}

// buildServer builds the epochdb binary for tests that run it.
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "epochdb")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// watchPeakRSS polls a process's high-water resident set until stop, and
// returns it in bytes.
func watchPeakRSS(pid int, stop <-chan struct{}) int64 {
	var peak int64
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
					kb, _ := strconv.ParseInt(f[1], 10, 64)
					peak = max(peak, kb<<10)
				}
			}
		}
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}

func dirBytes(t *testing.T, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}
