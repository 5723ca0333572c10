package parse

import (
	"strings"
	"testing"

	"tally/internal/memtest"
)

// TestHostileQIFCostsLittle parses QIF files built to make the parser hold one record's lines
// or one field's tags by the million, and checks that the record is left out with the reason
// while the parser's heap stays small. Held, the first took 308 MB and the second 204 MB.
func TestHostileQIFCostsLittle(t *testing.T) {
	cases := []struct {
		name, in, drop string
	}{
		{"a record of three million lines", "!Type:Bank\nD1/1/20\n" + strings.Repeat("Mx\n", 3<<20) + "^\n", "line 2: the record runs over more than 10000 lines"},
		{"a category of four million tags", "!Type:Bank\nD1/1/20\nT1\nLc/" + strings.Repeat("a:", 4<<20) + "\n^\n", "line 2: more than 100 tags (L)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var q *parsedQIF
			var err error
			u := memtest.Measure(func() { q, err = parseQIF(c.in) })
			if err != nil {
				t.Fatal(err)
			}
			if len(q.Records) != 0 || len(q.Dropped) != 1 || q.Dropped[0].String() != c.drop {
				t.Fatalf("records %d, left out %v; want none and %q", len(q.Records), q.Dropped, c.drop)
			}
			peak, live := u.MB()
			t.Logf("%.1f MB file: peak heap %.1f MB, live %.1f MB", memtest.MB(uint64(len(c.in))), peak, live)
			if peak > 16 {
				t.Errorf("the parser's heap peaked at %.1f MB, want under 16 MB", peak)
			}
		})
	}
}
