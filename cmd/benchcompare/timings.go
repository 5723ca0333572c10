package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"tally/internal/benchstat"
)

// roundOrder is the order the builds run in round: reversed every other round, so that
// neither always runs on a machine the other has just warmed or loaded.
func roundOrder(builds []build, round int) []build {
	order := slices.Clone(builds)
	if round%2 == 1 {
		slices.Reverse(order)
	}
	return order
}

// timings are each build's times of one measurement, in the order the builds were given.
type timings struct {
	names []string
	times map[string][]time.Duration
}

func newTimings(builds []build) *timings {
	t := &timings{times: map[string][]time.Duration{}}
	for _, b := range builds {
		t.names = append(t.names, b.name)
	}
	return t
}

func (t *timings) add(name string, d time.Duration) { t.times[name] = append(t.times[name], d) }

// table is what of each build, round by round, with its median and the median's ratio over
// the first build's.
func (t *timings) table(what string) string {
	var b strings.Builder
	rounds := 0
	for _, ds := range t.times {
		rounds = max(rounds, len(ds))
	}
	fmt.Fprintf(&b, "%-26s", what)
	for r := range rounds {
		fmt.Fprintf(&b, " %8s", fmt.Sprintf("round %d", r+1))
	}
	fmt.Fprintf(&b, " %8s %6s\n", "median", "ratio")
	base := benchstat.Median(t.times[t.names[0]])
	for _, name := range t.names {
		ds := t.times[name]
		fmt.Fprintf(&b, "%-26s", name)
		for r := range rounds {
			cell := "-"
			if r < len(ds) {
				cell = seconds(ds[r])
			}
			fmt.Fprintf(&b, " %8s", cell)
		}
		m := benchstat.Median(ds)
		fmt.Fprintf(&b, " %8s %5.2fx\n", seconds(m), m.Seconds()/base.Seconds())
	}
	return b.String()
}

// seconds is d as seconds to the hundredth.
func seconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// ratio is the last build's median over the first's.
func (t *timings) ratio() float64 {
	return benchstat.Median(t.times[t.names[len(t.names)-1]]).Seconds() / benchstat.Median(t.times[t.names[0]]).Seconds()
}

// maxCopyRatio is the most a bare COPY into the working tree's entries may take over one into
// the commit's: the schema's own cost of the rows (issue 43).
const maxCopyRatio = 1.25

// verdict says whether the working tree publishes no slower than the commit, and whether its
// entries take the rows' COPY within maxCopyRatio of the commit's.
func verdict(publish, copies *timings) string {
	mark := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	p, c := publish.ratio(), copies.ratio()
	return fmt.Sprintf("publish: %.2fx the commit's median (at most 1.00x): %s\nCOPY into entries: %.2fx the commit's median (at most %.2fx): %s\n",
		p, mark(p <= 1), c, maxCopyRatio, mark(c <= maxCopyRatio))
}
