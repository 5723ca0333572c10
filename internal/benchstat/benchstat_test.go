package benchstat

import (
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{7}, 7},
		{[]time.Duration{9, 1, 5}, 5},
		{[]time.Duration{4, 10, 2, 6}, 5}, // the mean of the middle two, not the upper one
	} {
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := Median([]float64{1.5, 1.25}); got != 1.375 {
		t.Errorf("Median of two ratios = %v", got)
	}
	in := []time.Duration{3, 1, 2}
	Median(in)
	if in[0] != 3 {
		t.Error("Median sorted its argument")
	}
}
