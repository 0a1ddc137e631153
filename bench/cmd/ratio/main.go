// Command ratio reads the output of BenchmarkSyncCommit on stdin and prints,
// for each committer count, the median commits/s of each engine over the
// -count runs and the ratio epochdb/pebble. The median, not the mean, because
// one stall of a noisy disk would otherwise move the whole row.
package main

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	// samples[committers][engine] holds one commits/s value per run.
	samples := map[int]map[string][]float64{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "BenchmarkSyncCommit/") {
			continue
		}
		engine, committers := parseName(f[0])
		for i := 1; i < len(f); i++ {
			if f[i] != "commits/s" {
				continue
			}
			v, err := strconv.ParseFloat(f[i-1], 64)
			if err != nil {
				fmt.Fprintf(os.Stderr, "ratio: %s: %v\n", f[0], err)
				os.Exit(1)
			}
			if samples[committers] == nil {
				samples[committers] = map[string][]float64{}
			}
			samples[committers][engine] = append(samples[committers][engine], v)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "ratio:", err)
		os.Exit(1)
	}

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "committers\tepochdb commits/s\tpebble commits/s\tepochdb/pebble\truns\t")
	for _, n := range slices.Sorted(maps.Keys(samples)) {
		e, p := samples[n]["epochdb"], samples[n]["pebble"]
		ratio := "-"
		if len(e) > 0 && len(p) > 0 {
			ratio = fmt.Sprintf("%.2fx", median(e)/median(p))
		}
		fmt.Fprintf(w, "%d\t%.0f\t%.0f\t%s\t%d/%d\t\n", n, median(e), median(p), ratio, len(e), len(p))
	}
	w.Flush()
}

// parseName reads the engine and committer count from a benchmark name such
// as BenchmarkSyncCommit/engine=pebble/committers=16-2, where -2 is
// GOMAXPROCS.
func parseName(name string) (engine string, committers int) {
	for _, part := range strings.Split(name, "/")[1:] {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "engine":
			engine = v
		case "committers":
			v, _, _ = strings.Cut(v, "-")
			committers, _ = strconv.Atoi(v)
		}
	}
	return engine, committers
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
