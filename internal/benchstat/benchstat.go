// Package benchstat holds what Tally's benchmarks and cmd/benchcompare compute over their
// rounds, so that each reads a set of timings by the same rule.
package benchstat

import "slices"

// Median is the middle of xs: of an even count, the mean of the two middle ones, so that four
// rounds are read by both of their middle timings and not the slower one alone. It is zero
// for no xs.
func Median[T ~int64 | ~float64](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}
