package parse

import (
	"reflect"
	"testing"
)

func TestLines(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
		at       []int
	}{
		{"LF", "a\nbc\n", []string{"a", "bc", ""}, []int{0, 2, 5}},
		{"CRLF counts once", "a\r\nb", []string{"a", "b"}, []int{0, 3}},
		{"a lone CR breaks a line", "a\rb\n\rc", []string{"a", "b", "", "c"}, []int{0, 2, 4, 5}},
		{"CR CR LF is two breaks", "a\r\r\nb", []string{"a", "", "b"}, []int{0, 2, 4}},
		{"no break", "abc", []string{"abc"}, []int{0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			var at []int
			for i, l := range Lines(c.in) {
				got, at = append(got, l), append(at, i)
			}
			if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(at, c.at) {
				t.Fatalf("Lines(%q) = %q at %v, want %q at %v", c.in, got, at, c.want, c.at)
			}
		})
	}
}

func TestGrowForReservesWhatTheRestOfTheTextHolds(t *testing.T) {
	const per, size = 32, 1 << 20
	s := make([]int, 2048)
	at := len(s) * per // where the next item starts, the first having started at 0
	s = GrowFor(s, 0, at, size)
	rest := (size - at) / per
	// A sixteenth more, and what the allocator rounds up to.
	if c := cap(s) - len(s); c < rest || c > rest*9/8 {
		t.Fatalf("room for %d more, want %d and at most an eighth more", c, rest)
	}
	if small := GrowFor(make([]int, 10), 0, 320, size); cap(small) != 10 {
		t.Fatalf("a slice of 10 grew to %d: under 1,024 items append's own growth is cheap", cap(small))
	}
}
