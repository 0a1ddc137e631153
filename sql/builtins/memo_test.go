package builtins

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/epochdb/epochdb/sql/types"
)

// The process-wide caches give every session the right value when keys
// collide in a slot and when sessions look up at once (this runs under
// -race in CI), refuse the g flag by the asking function even for a
// pattern another function cached with it, and allocate nothing on a hit,
// since they are looked up per row.
func TestMemos(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				k := (g*7 + i) % 100 // more keys than slots
				re, err := compileRegex("regexp_like", fmt.Sprintf("^a{%d}$", k), "", false)
				if err != nil {
					errs <- err
					return
				}
				want := strings.Repeat("a", k)
				if !re.re.MatchString(want) || re.re.MatchString(want+"a") {
					errs <- fmt.Errorf("pattern ^a{%d}$ got %s", k, re.re)
					return
				}
				tmpl := fmt.Sprintf("YYYY \"%d\"", k)
				v, err := formatChar(nil, types.Timestamp, time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), tmpl)
				if err != nil || v != fmt.Sprintf("2024 %d", k) {
					errs <- fmt.Errorf("to_char(..., %q) = %v, %v", tmpl, v, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	if _, err := compileRegex("regexp_replace", "x", "g", true); err != nil {
		t.Fatal(err)
	}
	if _, err := compileRegex("regexp_like", "x", "g", false); err == nil {
		t.Error("regexp_like took the g flag of a pattern regexp_replace had cached")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = compileRegex("regexp_replace", "x", "g", true) }); n != 0 {
		t.Errorf("a cached pattern's lookup allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _, _ = parseCached("YYYY-MM-DD", false) }); n != 0 {
		t.Errorf("a cached template's lookup allocates %v times", n)
	}
}
