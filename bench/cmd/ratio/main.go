// Command ratio reads benchmark output on stdin and prints, for each case,
// the median of one metric per engine over the runs and the ratio epochdb
// over the other engine. The median, not the mean, because one stall of a
// noisy disk would otherwise move the whole row.
//
// A case is a benchmark name without its engine=... part and GOMAXPROCS
// suffix: BenchmarkSyncCommit/engine=pebble/committers=16-2 is the case
// BenchmarkSyncCommit/committers=16 of engine pebble. With several units,
// separated by commas, each case is compared in the first one its lines
// report, and a column says which.
//
//	ratio -unit commits/s -other pebble <raw.txt
//	ratio -unit rows/s -other postgres <raw.txt
//	ratio -unit keys/s,reads/s -other pebble <raw.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	unit := flag.String("unit", "commits/s", "the metric to compare, or several separated by commas")
	other := flag.String("other", "pebble", "the engine epochdb is compared with")
	flag.Parse()

	units := strings.Split(*unit, ",")
	// samples[case][engine] holds one value per run, in caseUnit[case].
	samples := map[string]map[string][]float64{}
	caseUnit := map[string]string{}
	var cases []string
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name, engine := parseName(f[0])
		for i := 1; i < len(f); i++ {
			if !slices.Contains(units, f[i]) || caseUnit[name] != "" && caseUnit[name] != f[i] {
				continue
			}
			v, err := strconv.ParseFloat(f[i-1], 64)
			if err != nil {
				fmt.Fprintf(os.Stderr, "ratio: %s: %v\n", f[0], err)
				os.Exit(1)
			}
			if samples[name] == nil {
				samples[name] = map[string][]float64{}
				caseUnit[name] = f[i]
				cases = append(cases, name)
			}
			samples[name][engine] = append(samples[name][engine], v)
			break
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "ratio:", err)
		os.Exit(1)
	}

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	if len(units) == 1 {
		fmt.Fprintf(w, "case\tepochdb %s\t%s %s\tepochdb/%s\truns\t\n", *unit, *other, *unit, *other)
	} else {
		fmt.Fprintf(w, "case\tunit\tepochdb\t%s\tepochdb/%s\truns\t\n", *other, *other)
	}
	for _, c := range cases {
		e, o := samples[c]["epochdb"], samples[c][*other]
		ratio := "-"
		if len(e) > 0 && len(o) > 0 {
			ratio = fmt.Sprintf("%.2fx", median(e)/median(o))
		}
		fmt.Fprintf(w, "%s\t", c)
		if len(units) > 1 {
			fmt.Fprintf(w, "%s\t", caseUnit[c])
		}
		fmt.Fprintf(w, "%.0f\t%.0f\t%s\t%d/%d\t\n", median(e), median(o), ratio, len(e), len(o))
	}
	w.Flush()
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parseName splits a benchmark name into its case and its engine.
func parseName(name string) (string, string) {
	name = procSuffix.ReplaceAllString(name, "")
	var parts []string
	engine := ""
	for _, part := range strings.Split(name, "/") {
		if v, ok := strings.CutPrefix(part, "engine="); ok {
			engine = v
			continue
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "/"), engine
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
